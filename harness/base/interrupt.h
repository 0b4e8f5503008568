#pragma once
/// SIGINT and SIGTERM during a run: the first asks the run to stop after the
/// current trial (the report is written, marked interrupted; exit 130 or
/// 143); a second one ends the process at once (the streamed .partial file
/// keeps every finished result).

namespace devparity::interrupt {

/// Installs the handlers (idempotent).
void install();
/// The signal that asked the run to stop, or 0.
int signal();
/// For tests: forget a recorded signal.
void reset();

}  // namespace devparity::interrupt
