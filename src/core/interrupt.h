#pragma once
// Ctrl-C / SIGTERM: a flag the run polls, plus one waker that interrupts a blocking event loop.
// The handler only sets an atomic and calls the waker (which must be async-signal-safe, e.g. a
// write to an eventfd).

namespace sm {

/// Installs SIGINT and SIGTERM handlers (idempotent). A second Ctrl-C exits at once.
void install_interrupt_handler();

/// True once SIGINT or SIGTERM arrived.
bool interrupt_requested();

/// For tests and for programmatic stops: behaves like a received signal.
void request_interrupt();

/// Clears the flag (tests).
void reset_interrupt();

/// The waker called from the signal handler (and request_interrupt); nullptr to clear. fn must be
/// async-signal-safe. The pair is published at once (a handler never sees fn with another arg),
/// and once this returns no call of the previous waker is still running, so its argument may
/// be destroyed. Not callable from the waker itself.
void set_interrupt_waker(void (*fn)(void*), void* arg);

}  // namespace sm
