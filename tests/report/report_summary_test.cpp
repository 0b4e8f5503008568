#include "harness/report/report_summary.h"

#include <gtest/gtest.h>

namespace devparity {
namespace {

TrialResult row(const std::string& case_name, const std::string& device, Status status) {
  TrialResult r;
  r.id = case_name + "/t/float32/" + device + "/x";
  r.case_name = case_name;
  r.device = device;
  r.checks = {CheckOutcome::verdict("parity", status, "why")};
  r.finalize();
  if (status == Status::kSkip) r.message = "absent";
  return r;
}

nlohmann::json report_of(const RunSummary& s) { return {{"summary", s.to_json()}}; }

// What a run's summary writes, read back as it was.
TEST(ReportSummaryTest, ReadsBackWhatARunSummaryWrites) {
  RunSummary s;
  s.duration_s = 2.5;
  s.require_all = true;
  s.baseline = BaselineSummary{"old.json", {}, {}, {"gone"}};
  for (const auto& r : {row("flip", "cpu", Status::kPass), row("flip", "cuda:0", Status::kSkip),
                        row("rot", "cpu", Status::kFail)}) {
    auto known = r;
    known.baseline = r.status == Status::kFail ? "known" : "";
    s.add(known);
  }
  const auto read = ReportSummary::of(report_of(s));
  EXPECT_EQ(read.results.to_json(), s.results.to_json());
  ASSERT_EQ(read.by_device.size(), 2u);
  EXPECT_EQ(read.by_device.at("cuda:0").skipped, 1);
  EXPECT_EQ(read.duration_s, 2.5);
  ASSERT_TRUE(read.baseline.has_value());
  EXPECT_EQ(read.baseline->to_json(), s.baseline->to_json());
  ASSERT_EQ(read.not_run.size(), 1u);
  EXPECT_EQ(read.not_run[0].device, "cuda:0");
  EXPECT_EQ(read.not_run[0].reason, "absent");
  EXPECT_TRUE(read.require_all);
  EXPECT_TRUE(read.coverage_unmet());
  EXPECT_FALSE(read.passed()) << "a case did not run everywhere under --require-all";
}

// passed() is the verdict RunSummary::exit_code() gives, each way.
TEST(ReportSummaryTest, PassedIsTheRunsVerdict) {
  RunSummary clean;
  clean.add(row("flip", "cpu", Status::kPass));
  EXPECT_TRUE(ReportSummary::of(report_of(clean)).passed());
  RunSummary failing = clean;
  failing.add(row("rot", "cpu", Status::kError));
  EXPECT_FALSE(ReportSummary::of(report_of(failing)).passed());
  // Against a baseline only new failures count.
  failing.baseline = BaselineSummary{"old.json", {"rot/t/float32/cpu/x"}, {}, {}};
  EXPECT_TRUE(ReportSummary::of(report_of(failing)).passed());
  failing.baseline->fresh.push_back("other");
  EXPECT_FALSE(ReportSummary::of(report_of(failing)).passed());
}

// A report of another version may lack any field: empty, never a throw.
TEST(ReportSummaryTest, AMissingFieldIsEmpty) {
  for (const auto& report : {nlohmann::json::object(), nlohmann::json{{"summary", nlohmann::json::object()}},
                             nlohmann::json{{"summary", {{"coverage", 3}, {"by_device", "x"}}}}}) {
    const auto read = ReportSummary::of(report);
    EXPECT_EQ(read.results.total(), 0);
    EXPECT_TRUE(read.by_device.empty());
    EXPECT_FALSE(read.baseline.has_value());
    EXPECT_TRUE(read.not_run.empty());
    EXPECT_TRUE(read.passed());
  }
}

}  // namespace
}  // namespace devparity
