#pragma once
/// --baseline as a listener decorator: each failing result is marked "known"
/// (the baseline's row with its id failed the same checks) or "new" before
/// the listeners behind it see it, and the run's summary gains the known,
/// new and fixed ids, so only new failures fail the run.

#include "harness/model/run_listener.h"

#include <map>
#include <set>
#include <string>

namespace devparity {

/// A baseline's failing (fail or error) results by id -> the names of their failing checks.
using BaselineFailures = std::map<std::string, std::set<std::string>>;

class BaselineListener final : public RunListener {
 public:
  /// `baseline`: the failures of the report at `path` (failing_checks()).
  BaselineListener(RunListener& next, BaselineFailures baseline, std::string path);

  void on_run_start(const RunInfo& info) override { next_.on_run_start(info); }
  void on_case_start(const CaseInfo& info) override { next_.on_case_start(info); }
  void on_trial_start(const std::string& id) override { next_.on_trial_start(id); }
  void on_trial_end(const TrialResult& result) override;
  void on_case_end(const CaseInfo& info, const StatusCounts& counts) override { next_.on_case_end(info, counts); }
  void on_run_end(const RunSummary& summary) override;

 private:
  RunListener& next_;
  BaselineFailures failures_;
  std::string path_;
  std::map<std::string, Status> statuses_;
  BaselineSummary seen_;
};

}  // namespace devparity
