#pragma once
/// Isolation (`devparity run --isolate`): trials run in worker processes, so
/// a subject that segfaults, aborts, exits, hangs or exhausts memory costs
/// only its own trials.
///
/// Note [Workers]
/// A worker is the devparity executable itself, started (fork + exec, so a
/// CUDA context is never inherited across fork) with the parent's command
/// line plus `--worker SPEC`: it rebuilds the same plan, runs only the
/// trials SPEC names and writes each result as one JSON line to the file
/// descriptor in DEVPARITY_WORKER_FD. The parent streams those results to its
/// reporters as they arrive; when the worker dies or stops making progress
/// for the timeout, the parent kills it and reports every trial it did not
/// finish as an error naming the signal or exit status and the worker's last
/// stderr lines.

#include "harness/model/results.h"

#include <cstddef>
#include <functional>
#include <string>
#include <vector>

namespace devparity {

struct Plan;
struct RunnerOptions;

/// One unit of work for a worker: a group of the plan, and one of its trials
/// (or all of them when trial < 0).
struct WorkerItem {
  size_t group = 0;
  int trial = -1;
};

/// "3:1,4" <-> {{3, 1}, {4, -1}}. parse throws UsageError.
std::string worker_spec(const std::vector<WorkerItem>& items);
std::vector<WorkerItem> parse_worker_spec(const std::string& spec);

/// The plan restricted to `items` (groups and trials in their plan order).
Plan select_items(const Plan& plan, const std::vector<WorkerItem>& items);

/// How workers are started and watched.
struct IsolationOptions {
  std::string executable;              ///< devparity itself (/proc/self/exe)
  std::vector<std::string> arguments;  ///< the parent's arguments, without --isolate and reporters
  double timeout_s = 300.0;            ///< without a result for this long, the worker is killed
  int64_t memory_limit_mb = 0;         ///< RLIMIT_DATA of workers (what they allocate); 0: none
};

/// Runs units of work in workers.
class IsolatedExecutor {
 public:
  explicit IsolatedExecutor(IsolationOptions options) : options_(std::move(options)) {}

  /// Runs `items` of `plan` in one worker. `emit` receives every result, the
  /// worker's as they arrive and then one error result per planned trial it
  /// did not report. Returns false when the worker did not finish cleanly.
  bool run(const Plan& plan, const std::vector<WorkerItem>& items,
           const std::function<void(TrialResult&)>& emit) const;

  /// Kills the running worker, if any (from a signal handler's aftermath).
  static void kill_current();

 private:
  IsolationOptions options_;
};

/// A result for a trial that produced none: the run check is an error with
/// `why`, every other check of the case is skipped with the same reason.
TrialResult unfinished_trial(const Plan& plan, size_t group, size_t trial, const std::string& why);

/// The worker's end: runs the items `spec` names of `plan` and writes each
/// result as one JSON line to the descriptor in DEVPARITY_WORKER_FD. Throws
/// UsageError when not started by IsolatedExecutor.
void serve_worker(const Plan& plan, const std::string& spec, const RunnerOptions& options);

}  // namespace devparity
