// The stream watchdog (yc_stream_watchdog.c): after a first, graceful interrupt it interrupts writes blocked on
// streams. Split from yc_signals.c by role; the handler there wakes it.
#ifndef YC_SIGNALS_INTERNAL_H
#define YC_SIGNALS_INTERNAL_H

/// Starts the watchdog thread and installs SIGURG's no-op handler (once; `yc_set_graceful_interrupt`).
void yc_start_stream_watchdog(void);
/// Wakes the watchdog, once started (async-signal-safe: the signal handler calls it).
void yc_wake_stream_watchdog(void);

#endif
