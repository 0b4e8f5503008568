#pragma once
/// SIGINT, SIGTERM and SIGHUP during a run: the first asks the run to stop
/// after the current trial (the report is written, marked interrupted; exit
/// 130, 143 or 129); a second one ends the process at once (the streamed
/// .partial file keeps every finished result).
///
/// Note [Signals before the handler]: LibTorch takes ~0.6 s to load before
/// main() runs; a signal then ended the run with the previous run's green
/// report and JUnit still in place (issue 56). The devparity front, which
/// loads no LibTorch, holds the three signals (blocks them) before it starts
/// devparity-torch; the mask and any pending signal survive exec, and the run
/// lets them in once its handler is installed, so the signal marks the
/// reports as it would later. Every other command releases them first thing.

namespace devparity::interrupt {

/// Installs the handlers (idempotent) and releases held signals to them.
void install();
/// Blocks the three signals in the calling thread (and what it execs or starts).
void hold();
/// Unblocks them: one that arrived while held is delivered now.
void release();
/// "SIGINT", "SIGTERM", "SIGHUP"; null for any other signal.
const char* signal_name(int sig);
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
