#pragma once
/// The run's totals, kept as a listener in the runner's chain: it counts
/// every result it passes on, so the summary is what the listeners saw.

#include "harness/model/run_listener.h"

namespace devparity {

class ResultTally final : public RunListener {
 public:
  explicit ResultTally(RunListener& next) : next_(next) {}

  void on_run_start(const RunInfo& info) override { next_.on_run_start(info); }
  void on_case_start(const CaseInfo& info) override;
  void on_trial_start(const std::string& id) override { next_.on_trial_start(id); }
  void on_trial_end(const TrialResult& result) override;
  /// Passes on the case's counts as tallied here (`counts` is ignored).
  void on_case_end(const CaseInfo& info, const StatusCounts& counts) override;
  void on_run_end(const RunSummary& summary) override;

  /// The totals so far.
  const RunSummary& summary() const { return summary_; }
  /// The summary the listeners were given at the end of the run.
  const RunSummary& final_summary() const { return final_; }

 private:
  RunListener& next_;
  RunSummary summary_, final_;
  StatusCounts case_counts_;
};

}  // namespace devparity
