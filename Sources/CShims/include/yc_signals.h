// Removing temporary output files when the process is interrupted (SIGINT, SIGTERM, SIGHUP) or crashes (SIGABRT, SIGSEGV, …): a signal
// handler may only make async-signal-safe calls, so the list of paths lives here, in C, and the handler
// does nothing but unlink() them and re-raise the signal with its default action.
#ifndef YC_SIGNALS_H
#define YC_SIGNALS_H

#ifdef __cplusplus
extern "C" {
#endif

/// Installs the handlers once, and ignores SIGPIPE so a closed pipe becomes a write error (EPIPE).
void yc_install_signal_cleanup(void);
/// With `on`, the first SIGINT or SIGTERM is only recorded (see yc_interrupted); a second one cleans up and
/// ends the process.
void yc_set_graceful_interrupt(int on);
/// The signal that asked the run to stop, or 0.
int yc_interrupted(void);
/// Registers a temporary file to remove on a signal; returns a slot, or -1 when all slots are in use.
int yc_register_temp(const char *path);
/// Forgets a slot (after the file was renamed into place or removed).
void yc_unregister_temp(int slot);

#ifdef __cplusplus
}
#endif
#endif
