#include "harness/run/baseline_listener.h"

namespace devparity {

BaselineListener::BaselineListener(RunListener& next, BaselineFailures baseline, std::string path)
    : next_(next), failures_(std::move(baseline)), path_(std::move(path)) {}

void BaselineListener::on_trial_end(const TrialResult& result) {
  TrialResult r = result;
  statuses_[r.id] = r.status;
  if (r.status == Status::kFail || r.status == Status::kError) {
    const auto it = failures_.find(r.id);
    bool known = it != failures_.end();
    for (const auto& c : r.checks) {
      if (known && c.status == r.status) known = it->second.count(c.name) != 0;
    }
    r.baseline = known ? "known" : "new";
    (known ? seen_.known : seen_.fresh).push_back(r.id);
  }
  next_.on_trial_end(r);
}

void BaselineListener::on_run_end(const RunSummary& summary) {
  RunSummary s = summary;
  s.baseline = BaselineSummary{path_, seen_.known, seen_.fresh, {}};
  for (const auto& [id, checks] : failures_) {
    const auto it = statuses_.find(id);
    if (it != statuses_.end() && it->second == Status::kPass) s.baseline->fixed.push_back(id);
  }
  next_.on_run_end(s);
}

}  // namespace devparity
