#pragma once
/// The runner: executes a plan group by group and reports every row to a
/// listener.
///
/// For each group (one case variant, input and dtype): make the input on the
/// CPU from its seed; sample the parameters once on the CPU; run the reference
/// subject on the reference device; then, for each device of the matrix, copy
/// the input there, make and move the subject's state (stateful subjects),
/// run the subject under the placement tracer, bring the output home and hand
/// everything to the case's checks. Every device gets a result: absent devices
/// are skipped with the reason, exceptions become verdicts, never crashes.

#include "harness/model/run_listener.h"
#include "harness/run/baseline_listener.h"
#include "harness/run/run_modes.h"
#include "harness/suite/plan.h"

#include <nlohmann/json.hpp>

#include <optional>
#include <string>

namespace devparity {

class ArtifactStore;
class CheckRegistry;
class IsolatedExecutor;
class SplitWorker;

/// How the runner runs.
struct RunnerOptions {
  /// --placement: each case's setting (warn), strict everywhere, or no tracing.
  Placement placement = Placement::kWarn;
  /// --baseline: a previous report's failures (failing_checks()); those that recur with the
  /// same failing checks are "known" and do not fail the run.
  std::optional<BaselineFailures> baseline;
  std::string baseline_path;  ///< for messages and the report
  /// Failing checks save their evidence here; null keeps none.
  ArtifactStore* artifacts = nullptr;
  /// --isolate: trials run in worker processes (isolation.h); null runs them
  /// in this process.
  const IsolatedExecutor* isolate = nullptr;
  Isolation isolate_unit = Isolation::kTrial;  ///< what one worker runs
  /// The plan spans two accelerators (Note [One accelerator per process]):
  /// the trials that leave (leaves_for_worker) come from `split`, or, under
  /// --isolate, from workers of their own.
  bool split = false;
  SplitWorker* split_worker = nullptr;
  /// In this process: a trial running longer than this ends the run (the
  /// trial is reported as a timeout error and the reports are written; a
  /// stuck thread cannot be stopped). 0: no limit. Workers have their own.
  double timeout_s = 0.0;
  /// --interleavings: on the asynchronous vdev, each trial runs under this
  /// many interleavings (Note [Interleaving sweep]).
  int interleavings = 1;
  /// --require-all: the summary fails a case that did not run on every device.
  bool require_all = false;
};

/// Runs plans.
class Runner {
 public:
  /// Events go to `listener`; checks are looked up in `checks`.
  explicit Runner(RunListener& listener, RunnerOptions options = {});
  Runner(RunListener& listener, RunnerOptions options, const CheckRegistry& checks);

  /// Runs every group of `plan`; `info.planned_trials` is filled in.
  RunSummary run(const Plan& plan, RunInfo info);

 private:
  RunListener& listener_;
  RunnerOptions options_;
  const CheckRegistry& checks_;
};

}  // namespace devparity
