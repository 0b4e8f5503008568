// The runner's stages alone, driven by hand: the baseline decorator (known,
// new, fixed), the tally (run and case totals), the device health record
// (poisoned CUDA devices) and the in-process watchdog.
#include "harness/report/packed_report.h"
#include "harness/run/baseline_listener.h"
#include "harness/run/device_health.h"
#include "harness/run/result_tally.h"
#include "harness/run/watchdog.h"

#include "tests/support/event_recorder.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <thread>

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

BaselineFailures baseline_with(const std::vector<TrialResult>& rows) {
  json results = json::array();
  for (const auto& r : rows) results.push_back(r.to_json());
  return failing_checks(json{{"schema_version", 1}, {"results", results}});
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


Execution failed_with(FailureKind kind) {
  Execution e;
  e.error.kind = kind;
  e.error.message = "CUDA error: an illegal memory access was encountered";
  return e;
}

TEST(DeviceHealthStage, ADeviceErrorPoisonsThatCudaDeviceOnly) {
  const DeviceTarget cuda1{"cuda:N", c10::Device(c10::DeviceType::CUDA, 1), ""};
  const DeviceTarget cuda0{"cuda:0", c10::Device(c10::DeviceType::CUDA, 0), ""};
  const DeviceTarget vdev1{"vdev:1", c10::Device(c10::DeviceType::PrivateUse1, 1), ""};
  DeviceHealth health;
  health.record(cuda1, failed_with(FailureKind::kException), "t/0");  // an ordinary exception: no harm
  health.record(vdev1, failed_with(FailureKind::kDeviceError), "t/1");  // not CUDA: its context is ours
  EXPECT_EQ(health.poisoned(cuda1), "");
  EXPECT_EQ(health.poisoned(vdev1), "");
  health.record(cuda1, failed_with(FailureKind::kDeviceError), "t/2");
  health.record(cuda1, failed_with(FailureKind::kDeviceError), "t/3");  // the first breaker is named
  EXPECT_EQ(health.poisoned(cuda1),
            "device poisoned: a device error in t/2 left cuda:1's context unusable in this process (run with "
            "--isolate to keep going on it)");
  EXPECT_EQ(health.poisoned(cuda0), "");
  EXPECT_EQ(health.poisoned(DeviceTarget{"cuda:N", std::nullopt, "no GPU"}), "") << "an absent device is skipped, not poisoned";
}

TEST(WatchdogStage, ATrialPastTheLimitIsReportedOnceFinishedTrialsAreNot) {
  std::atomic<int> calls{0};
  std::atomic<size_t> group{99}, trial{99};
  Watchdog dog(0.3, [&](size_t g, size_t t, int signal) {
    if (calls++ == 0) group = g, trial = t;
    EXPECT_EQ(signal, 0);
  });
  dog.started(0, 0);
  bool reported = false;
  dog.finished([&] { reported = true; });  // done at once: never late
  EXPECT_TRUE(reported);
  std::this_thread::sleep_for(std::chrono::milliseconds(500));
  EXPECT_EQ(calls.load(), 0);
  dog.started(4, 2);
  for (int i = 0; i < 50 && calls.load() == 0; ++i) std::this_thread::sleep_for(std::chrono::milliseconds(100));
  EXPECT_GE(calls.load(), 1);
  EXPECT_EQ(group.load(), 4u);
  EXPECT_EQ(trial.load(), 2u);
  dog.finished([] {});
}

TEST(WatchdogStage, NoLimitWatchesNothing) {
  std::atomic<int> calls{0};
  Watchdog dog(0, [&](size_t, size_t, int) { ++calls; });
  dog.started(0, 0);
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  dog.finished([] {});
  EXPECT_EQ(calls.load(), 0);
}

}  // namespace
}  // namespace devparity
