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
/// Asks the run to stop as signal `sig` would, from code rather than a
/// handler (Python's KeyboardInterrupt inside an audited callable): the trial
/// it arrived in is abandoned, not reported as the subject's failure.
void request(int sig);
/// Whether request() abandoned the trial in progress.
bool abandoned();
/// Forgets a recorded signal and request (tests; an audit after an interrupted one).
void reset();

}  // namespace devparity::interrupt
