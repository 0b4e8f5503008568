#pragma once
/// Isolation (`devparity run --isolate`): trials run in worker processes, so
/// a subject that segfaults, aborts, exits, hangs or exhausts memory costs
/// only its own trials (Note [Workers], worker_protocol.h).

#include "harness/model/results.h"
#include "harness/run/worker_protocol.h"

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace devparity {

struct Plan;

/// How workers are started and watched.
struct IsolationOptions {
  std::string executable;              ///< devparity itself (/proc/self/exe)
  std::vector<std::string> arguments;  ///< the parent's arguments, without --isolate and reporters
  double timeout_s = 300.0;            ///< without a result for this long, the worker is killed
  int64_t memory_limit_mb = 0;         ///< RLIMIT_DATA of workers (what they allocate); 0: none
};

/// Runs units of work in workers, one at a time.
class IsolatedExecutor {
 public:
  explicit IsolatedExecutor(IsolationOptions options) : options_(std::move(options)) {}

  /// Runs `items` of `plan` in one worker. `emit` receives every result, the
  /// worker's as they arrive and then one error result per planned trial it
  /// did not report. Returns false when the worker did not finish cleanly.
  /// `spec`: what the worker is told to run, when not the list of `items`.
  bool run(const Plan& plan, const std::vector<WorkerItem>& items,
           const std::function<void(TrialResult&)>& emit, const std::string& spec = "") const;

  /// Kills the running worker, if any (from a signal handler's aftermath).
  static void kill_current();

 private:
  IsolationOptions options_;
};

/// A result for a trial that produced none: the run check is an error with
/// `why`, every other check of the case is skipped with the same reason.
TrialResult unfinished_trial(const Plan& plan, size_t group, size_t trial, const std::string& why);

}  // namespace devparity
