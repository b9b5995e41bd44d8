// What yc_signals.c (the handlers and the temporary-file registry) shares with the pieces split from it by role:
// the stream watchdog (yc_stream_watchdog.c), which after a first, graceful interrupt interrupts writes blocked on
// streams, and the cut-back registry (yc_cut_back.c). The handler wakes the one and sweeps the other.
#ifndef YC_SIGNALS_INTERNAL_H
#define YC_SIGNALS_INTERNAL_H

/// Starts the watchdog thread and installs SIGURG's no-op handler (once; `yc_set_graceful_interrupt`).
void yc_start_stream_watchdog(void);
/// Wakes the watchdog, once started (async-signal-safe: the signal handler calls it).
void yc_wake_stream_watchdog(void);

/// Whether a signal is ending the process (the handler sets it once): no new temporary file, nor guarded write.
int yc_signals_dying(void);
/// Cuts back each registered output no other thread is writing to (the handler's sweeps; async-signal-safe).
void yc_cut_back_all(void);
/// Waits until no other thread is inside a guarded write, up to 5 s in all (the handler, once, while dying).
void yc_wait_for_cut_writes(void);

#endif
