// The runner's listener stages alone, driven by hand-made events: the
// baseline decorator (known, new, fixed) and the tally (run and case totals).
#include "harness/run/baseline_listener.h"
#include "harness/run/result_tally.h"

#include "tests/support/event_recorder.h"

#include <gtest/gtest.h>

namespace devparity {
namespace {

using nlohmann::json;

TrialResult row(const std::string& id, Status status, const std::string& check = "parity") {
  TrialResult r;
  r.id = id;
  r.case_name = "c";
  r.device = "vdev:1";
  r.checks.push_back(CheckOutcome::verdict("run", Status::kPass, "ran"));
  r.checks.push_back(CheckOutcome::verdict(check, status, "verdict"));
  r.finalize();
  return r;
}

json baseline_with(const std::vector<TrialResult>& rows) {
  json results = json::array();
  for (const auto& r : rows) results.push_back(r.to_json());
  return {{"schema_version", 1}, {"results", results}};
}

TEST(BaselineStage, FailuresAreKnownOnlyWithTheSameFailingChecks) {
  const auto baseline = baseline_with({row("a", Status::kFail), row("b", Status::kFail), row("d", Status::kFail)});
  testing::EventRecorder out;
  BaselineListener stage(out, baseline, "old.json");
  stage.on_run_start({});
  stage.on_trial_end(row("a", Status::kFail));               // same check fails again: known
  stage.on_trial_end(row("b", Status::kFail, "placement"));  // another check fails: new
  stage.on_trial_end(row("c", Status::kError));              // not in the baseline: new
  stage.on_trial_end(row("d", Status::kPass));               // fixed
  stage.on_run_end({});
  EXPECT_EQ(out.result("a").baseline, "known");
  EXPECT_EQ(out.result("b").baseline, "new");
  EXPECT_EQ(out.result("c").baseline, "new");
  EXPECT_EQ(out.result("d").baseline, "");
  ASSERT_TRUE(out.summary.baseline.has_value());
  EXPECT_EQ(out.summary.baseline->path, "old.json");
  EXPECT_EQ(out.summary.baseline->known, std::vector<std::string>{"a"});
  EXPECT_EQ(out.summary.baseline->fresh, (std::vector<std::string>{"b", "c"}));
  EXPECT_EQ(out.summary.baseline->fixed, std::vector<std::string>{"d"});
}

class CaseCounts final : public RunListener {
 public:
  std::vector<StatusCounts> ends;
  void on_case_end(const CaseInfo&, const StatusCounts& counts) override { ends.push_back(counts); }
};

TEST(TallyStage, CountsTheRunAndPassesEachCaseItsOwnTotals) {
  CaseCounts out;
  ResultTally tally(out);
  tally.on_case_start({"s", "one", "x", "", 2});
  tally.on_trial_end(row("1", Status::kPass));
  tally.on_trial_end(row("2", Status::kFail));
  tally.on_case_end({}, {});
  tally.on_case_start({"s", "two", "x", "", 1});
  tally.on_trial_end(row("3", Status::kSkip));
  tally.on_case_end({}, {});
  ASSERT_EQ(out.ends.size(), 2u);
  EXPECT_EQ(out.ends[0].total(), 2);
  EXPECT_EQ(out.ends[0].failed, 1);
  EXPECT_EQ(out.ends[1].skipped, 1);
  EXPECT_EQ(tally.summary().results.total(), 3);
  EXPECT_EQ(tally.summary().by_check.at("parity").failed, 1);
  EXPECT_EQ(tally.summary().by_device.at("vdev:1").passed, 1);
  EXPECT_EQ(tally.summary().exit_code(), 1);
  RunSummary final_summary = tally.summary();
  final_summary.duration_s = 2.5;
  tally.on_run_end(final_summary);
  EXPECT_EQ(tally.final_summary().duration_s, 2.5);
}

}  // namespace
}  // namespace devparity
