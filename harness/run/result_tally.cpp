#include "harness/run/result_tally.h"

namespace devparity {

void ResultTally::on_case_start(const CaseInfo& info) {
  case_counts_ = {};
  next_.on_case_start(info);
}

void ResultTally::on_trial_end(const TrialResult& result) {
  summary_.add(result);
  case_counts_.add(result.status);
  next_.on_trial_end(result);
}

void ResultTally::on_case_end(const CaseInfo& info, const StatusCounts&) {
  next_.on_case_end(info, case_counts_);
}

void ResultTally::on_run_end(const RunSummary& summary) {
  final_ = summary;
  next_.on_run_end(summary);
}

}  // namespace devparity
