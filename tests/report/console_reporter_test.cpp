#include "harness/report/reporter_registry.h"
#include "tests/support/lambda_transform.h"
#include "tests/support/run_suite.h"

#include <gtest/gtest.h>

#include <sstream>

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
