#include "harness/model/results.h"

#include <gtest/gtest.h>

namespace devparity {
namespace {

CheckOutcome outcome(const std::string& name, Status status, const std::string& message) {
  return CheckOutcome::verdict(name, status, message);
}

TEST(ModelTest, FinalizeRanksFailOverErrorOverPassOverSkip) {
  TrialResult r;
  r.checks = {outcome("run", Status::kPass, "ran"), outcome("parity", Status::kPass, "identical")};
  r.finalize();
  EXPECT_EQ(r.status, Status::kPass);
  EXPECT_EQ(r.message, "parity: identical");

  r.checks.push_back(outcome("gradient", Status::kError, "threw"));
  r.finalize();
  EXPECT_EQ(r.status, Status::kError);
  r.checks.push_back(outcome("jpeg", Status::kFail, "corrupt"));
  r.finalize();
  EXPECT_EQ(r.status, Status::kFail);
  EXPECT_EQ(r.message, "jpeg: corrupt");
}

TEST(ModelTest, APassingRunAloneCountsOnlyWithoutOtherChecks) {
  TrialResult reference;
  reference.checks = {outcome("run", Status::kPass, "ran")};
  reference.finalize();
  EXPECT_EQ(reference.status, Status::kPass);

  TrialResult uncompared;
  uncompared.checks = {outcome("run", Status::kPass, "ran"),
                       outcome("parity", Status::kSkip, "no reference output")};
  uncompared.finalize();
  EXPECT_EQ(uncompared.status, Status::kSkip);
  EXPECT_EQ(uncompared.message, "parity: no reference output");
}

TEST(ModelTest, JsonRoundTrip) {
  TrialResult r;
  r.id = "c/s/float32/cpu/noise-1x3x17x11";
  r.case_name = "c";
  r.subject = "s";
  r.dtype = "float32";
  r.device = "cpu";
  r.shape = {1, 3, 17, 11};
  r.seed = 123;
  r.params = {{"size", {3, 4}}};
  auto c = outcome("parity", Status::kFail, "bad");
  c.stats = {{"max_abs", 0.5}};
  c.findings.push_back({{"kind", "x"}});
  r.checks = {outcome("run", Status::kPass, "ran"), c};
  r.finalize();
  const auto back = TrialResult::from_json(r.to_json());
  EXPECT_EQ(back.to_json(), r.to_json());
  EXPECT_EQ(back.status, Status::kFail);
}

// Read from the results (so an isolated worker's trials count): each op once per device type.
TEST(ModelTest, SummaryGathersUnsupportedOpsFromTheResults) {
  RunSummary s;
  for (const char* device : {"meta", "meta"}) {
    TrialResult r;
    r.device = device;
    auto run = outcome("run", Status::kSkip, "unsupported on meta");
    run.stats = {{"error_kind", "unsupported"}, {"op", "aten::conv2d"}, {"device_type", "meta"}};
    auto gradient = outcome("gradient", Status::kSkip, "backward on meta failed");
    gradient.stats = {{"error_kind", "unsupported"}, {"op", "aten::convolution_backward"}, {"device_type", "meta"}};
    auto other = outcome("parity", Status::kFail, "");
    other.stats = {{"error_kind", "exception"}, {"op", "aten::add"}, {"device_type", "meta"}};
    r.checks = {run, gradient, other};
    r.finalize();
    s.add(TrialResult::from_json(r.to_json()));
  }
  EXPECT_EQ(s.to_json()["unsupported_ops"],
            nlohmann::json({{"meta", {"aten::conv2d", "aten::convolution_backward"}}}));
}

TEST(ModelTest, SummaryCountsAndExitCode) {
  RunSummary s;
  TrialResult pass, skip, fail;
  pass.device = skip.device = "cpu";
  fail.device = "meta";
  pass.checks = {outcome("run", Status::kPass, "")};
  skip.checks = {outcome("run", Status::kSkip, "absent")};
  fail.checks = {outcome("run", Status::kPass, ""), outcome("parity", Status::kFail, "")};
  for (auto* r : {&pass, &skip, &fail}) {
    r->finalize();
    s.add(*r);
  }
  EXPECT_EQ(s.results.total(), 3);
  EXPECT_EQ(s.results.failed, 1);
  EXPECT_EQ(s.by_device.at("cpu").passed, 1);
  EXPECT_EQ(s.by_device.at("cpu").skipped, 1);
  EXPECT_EQ(s.by_check.at("run").passed, 2);
  EXPECT_EQ(s.by_check.at("parity").failed, 1);
  EXPECT_EQ(s.exit_code(), 1);
  const auto j = s.to_json();
  EXPECT_EQ(j["failed"], 1);
  EXPECT_EQ(j["by_check"]["parity"]["failed"], 1);
  RunSummary clean;
  clean.add(pass);
  clean.add(skip);
  EXPECT_EQ(clean.exit_code(), 0);
}

// Issue 56: a run whose rows all skipped printed PASSED; the summary says where each case ran.
TEST(ModelTest, CoverageSaysWhereEachCaseDidNotRun) {
  auto row = [](const std::string& c, const std::string& device, Status status) {
    TrialResult r;
    r.case_name = c;
    r.device = device;
    r.checks = {outcome("run", status, status == Status::kSkip ? "no CUDA device" : "")};
    r.finalize();
    return r;
  };
  RunSummary s;
  s.add(row("flip", "cpu", Status::kPass));
  s.add(row("flip", "cuda:0", Status::kSkip));
  s.add(row("half", "cpu", Status::kSkip));
  s.add(row("half", "cuda:0", Status::kSkip));
  s.add(row("flip", "cuda:0", Status::kSkip));
  const auto gaps = s.coverage.gaps();
  ASSERT_EQ(gaps.size(), 3u);
  EXPECT_EQ(gaps[0].case_name, "flip");
  EXPECT_EQ(gaps[0].device, "cuda:0");
  EXPECT_EQ(gaps[0].reason, "run: no CUDA device");
  EXPECT_EQ(s.coverage.ran_nowhere(), std::vector<std::string>{"half"});
  EXPECT_EQ(s.exit_code(), 0) << "said, not failed, unless required";
  s.require_all = true;
  EXPECT_EQ(s.exit_code(), 1);
  EXPECT_EQ(s.to_json()["coverage"]["required"], true);
  // The twin: one trial that ran is enough for its case on its device.
  RunSummary ran;
  ran.require_all = true;
  ran.add(row("flip", "cpu", Status::kSkip));
  ran.add(row("flip", "cpu", Status::kPass));
  EXPECT_TRUE(ran.coverage.gaps().empty());
  EXPECT_EQ(ran.exit_code(), 0);
}

TEST(ModelTest, StatusNames) {
  for (auto s : {Status::kPass, Status::kFail, Status::kError, Status::kSkip}) {
    EXPECT_EQ(parse_status(status_name(s)), s);
  }
  EXPECT_FALSE(parse_status("passed").has_value());
}

}  // namespace
}  // namespace devparity
