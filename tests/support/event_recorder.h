#pragma once
// A listener that records every event, for event-order and result tests.

#include "harness/model/run_listener.h"

#include <string>
#include <string_view>
#include <vector>

namespace devparity::testing {

class EventRecorder final : public RunListener {
 public:
  /// "run_start", "case_start:<case>", "trial_start:<id>", "trial_end:<id>",
  /// "case_end:<case>", "run_end", in arrival order.
  std::vector<std::string> events;
  std::vector<TrialResult> results;
  RunInfo info;
  RunSummary summary;

  void on_run_start(const RunInfo& i) override {
    info = i;
    events.push_back("run_start");
  }
  void on_case_start(const CaseInfo& c) override { events.push_back("case_start:" + c.name); }
  void on_trial_start(const std::string& id) override { events.push_back("trial_start:" + id); }
  void on_trial_end(const TrialResult& r) override {
    results.push_back(r);
    events.push_back("trial_end:" + r.id);
  }
  void on_case_end(const CaseInfo& c, const StatusCounts&) override {
    events.push_back("case_end:" + c.name);
  }
  void on_run_end(const RunSummary& s) override {
    summary = s;
    events.push_back("run_end");
  }

  /// The result with this id; throws when absent.
  const TrialResult& result(const std::string& id) const {
    for (const auto& r : results) {
      if (r.id == id) return r;
    }
    throw std::out_of_range("no result " + id);
  }

  /// The named check of a result; throws when absent.
  static const CheckOutcome& check(const TrialResult& r, std::string_view name) {
    for (const auto& c : r.checks) {
      if (c.name == name) return c;
    }
    throw std::out_of_range("no check " + std::string(name) + " in " + r.id);
  }
};

}  // namespace devparity::testing
