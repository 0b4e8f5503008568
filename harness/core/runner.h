#pragma once
/// The runner: executes a plan group by group and reports every row to a
/// listener.
///
/// For each group (one case variant, input and dtype): make the input on the
/// CPU from its seed; sample the parameters once on the CPU; run the reference
/// subject on the reference device; then, for each device of the matrix, copy
/// the input there, run the subject, bring the output home and hand both
/// outputs to the case's checks. Every device gets a result: absent devices
/// are skipped with the reason, exceptions become verdicts, never crashes.

#include "harness/core/run_listener.h"
#include "harness/core/trial.h"

namespace devparity {

class CheckRegistry;

/// Runs plans.
class Runner {
 public:
  /// Events go to `listener`; checks are looked up in `checks`.
  explicit Runner(RunListener& listener);
  Runner(RunListener& listener, const CheckRegistry& checks);

  /// Runs every group of `plan`; `info.planned_trials` is filled in.
  RunSummary run(const Plan& plan, RunInfo info);

 private:
  RunListener& listener_;
  const CheckRegistry& checks_;
};

}  // namespace devparity
