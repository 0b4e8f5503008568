#include "harness/reporters/reporter_registry.h"
#include "tests/support/lambda_transform.h"
#include "tests/support/run_suite.h"

#include <gtest/gtest.h>

#include <chrono>
#include <sstream>
#include <thread>

namespace devparity {
namespace {

using nlohmann::json;

std::string console_output(ReporterOptions o, const std::string& devices = "cpu,meta,cuda:0") {
  register_builtins();
  testing::register_lambda("t_console_off", [](const at::Tensor& x, const json&) { return x + 1; });
  std::ostringstream out;
  o.stream = &out;
  auto console = ReporterRegistry::global().make("console", o);
  const json suite = {{"cases",
                       {{{"name", "good"}, {"subject", "resize"}, {"params", {{"size", {4, 4}}}},
                         {"dtypes", {"float32"}}},
                        {{"name", "bad"}, {"subject", "t_console_off"},
                         {"reference", {{"subject", "resize"}, {"params", {{"size", {17, 11}}}}}},
                         {"dtypes", {"float32"}}}}}};
  testing::run_suite(suite, devices, 0, "", console.get());
  return out.str();
}

TEST(ConsoleReporterTest, SummaryTableFailuresAndVerdict) {
  const auto text = console_output({});
  EXPECT_NE(text.find("device"), std::string::npos);
  EXPECT_NE(text.find("case good (resize): 2 passed, 0 failed, 0 errors, 1 skipped"),
            std::string::npos) << text;
  EXPECT_NE(text.find("FAIL  bad/t_console_off/float32/cpu/noise-1x3x17x11"), std::string::npos)
      << text;
  EXPECT_NE(text.find("skipped, by reason:"), std::string::npos) << text;
  EXPECT_NE(text.find("FAILED: 3 passed, 1 failed, 0 errors, 2 skipped of 6 trials"),
            std::string::npos) << text;
  EXPECT_EQ(text.find("\033["), std::string::npos) << "no colour unless asked";
}

// One cause on several devices of a class: its message once as it happens
// and once in the summary, the other trials pointing back to it and folded
// under it. Without a finding, the CPU and the virtual devices are two causes.
TEST(ConsoleReporterTest, FailuresAreGroupedByCause) {
  const auto text = console_output({}, "cpu,vdev:0,vdev:1");
  EXPECT_NE(text.find("FAIL  bad/t_console_off/float32/vdev:1/noise-1x3x17x11  (problem 2 again)"), std::string::npos)
      << text;
  EXPECT_NE(text.find("failures: 2 problems in 3 trials\n  FAIL  [1] 1 trial on cpu -- parity: "), std::string::npos)
      << text;
  EXPECT_NE(text.find("  FAIL  [2] 2 trials on vdev:0, vdev:1 -- parity: "), std::string::npos) << text;
  EXPECT_NE(text.find("\n          bad/t_console_off/float32/vdev:1/noise-1x3x17x11\n"), std::string::npos) << text;
  EXPECT_EQ(text.find("vdev:1/noise-1x3x17x11: 561 of 561"), std::string::npos) << "the message is not repeated";
}

TEST(ConsoleReporterTest, ColourOnlyWhenAsked) {
  ReporterOptions o;
  o.color = true;
  EXPECT_NE(console_output(o).find("\033[31m"), std::string::npos);
}

TEST(ConsoleReporterTest, QuietAndVerbose) {
  ReporterOptions quiet;
  quiet.quiet = true;
  const auto q = console_output(quiet);
  EXPECT_EQ(q.find("case good"), std::string::npos) << q;
  EXPECT_EQ(q.find("PASS "), std::string::npos) << q;
  EXPECT_NE(q.find("FAIL  bad/"), std::string::npos) << q;
  EXPECT_NE(q.find("FAILED:"), std::string::npos) << q;
  ReporterOptions verbose;
  verbose.verbose = true;
  const auto v = console_output(verbose);
  EXPECT_NE(v.find("PASS  good/resize/float32/cpu/"), std::string::npos) << v;
  EXPECT_NE(v.find("SKIP  good/resize/float32/cuda:0/"), std::string::npos) << v;
}

TEST(ConsoleReporterTest, InteractiveProgressLineIsClearedBeforeOtherOutput) {
  ReporterOptions o;
  o.interactive = true;
  const auto text = console_output(o);
  EXPECT_NE(text.find("\r\033[K[1/6] good/"), std::string::npos) << text;
}

}  // namespace
}  // namespace devparity

namespace devparity {
namespace {

// Note [Progress without a terminal]: the console's own thread prints a line while trials run.
std::string progress_output(ReporterOptions o, int64_t planned) {
  register_builtins();
  std::ostringstream out;
  o.stream = &out;
  o.progress_s = 0.05;
  auto console = ReporterRegistry::global().make("console", o);
  auto info = testing::test_run_info();
  info.planned_trials = planned;
  console->on_run_start(info);
  CaseInfo c;
  c.name = "big";
  c.planned_trials = planned;
  console->on_case_start(c);
  RunSummary summary;
  for (int i = 0; i < 3; ++i) {
    console->on_trial_start("big/t/float32/cpu/noise-" + std::to_string(i));
    TrialResult r;
    r.id = "big/t/float32/cpu/noise-" + std::to_string(i);
    r.status = Status::kPass;
    console->on_trial_end(r);
    summary.add(r);
  }
  console->on_trial_start("big/t/float32/cpu/stuck");
  std::this_thread::sleep_for(std::chrono::milliseconds(300));  // a trial that takes its time
  console->on_run_end(summary);
  return out.str();
}

TEST(ConsoleReporterTest, OffATerminalAProgressLineComesWhileTrialsRun) {
  const auto text = progress_output({}, 250000);
  EXPECT_NE(text.find("warning: 250000 trials planned; at ~1 ms a trial"), std::string::npos) << text;
  EXPECT_NE(text.find("--max-trials N refuses a larger plan"), std::string::npos) << text;
  const auto line = text.find("progress: 3/250000 trials (0.0%) in ");
  ASSERT_NE(line, std::string::npos) << text;
  const auto end = text.find('\n', line);
  const auto progress = text.substr(line, end - line);
  EXPECT_NE(progress.find(" left; case big 3/250000; running big/t/float32/cpu/stuck for "), std::string::npos)
      << progress;
  // Nothing after the verdict: the thread stopped with the run.
  ASSERT_NE(text.find("PASSED"), std::string::npos) << text;
  EXPECT_LT(text.rfind("progress: "), text.find("PASSED"));
}

TEST(ConsoleReporterTest, NoProgressLinesOnATerminalOrWhenQuiet) {
  ReporterOptions quiet;
  quiet.quiet = true;
  EXPECT_EQ(progress_output(quiet, 10).find("progress: "), std::string::npos);
  ReporterOptions terminal;
  terminal.interactive = true;
  EXPECT_EQ(progress_output(terminal, 10).find("progress: "), std::string::npos);
  const auto small = progress_output({}, 10);
  EXPECT_NE(small.find("progress: "), std::string::npos);
  EXPECT_EQ(small.find("warning: "), std::string::npos) << "a small plan is not announced";
}

}  // namespace
}  // namespace devparity
