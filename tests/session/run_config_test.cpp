// RunConfig's derived values (harness/session/run_config.h): what the front
// ends and the session read off a configuration.
#include "harness/session/run_config.h"

#include "harness/base/error.h"

#include <gtest/gtest.h>

namespace devparity {
namespace {

TEST(RunConfigTest, AReporterPathIsTheFirstOfItsName) {
  RunConfig c;
  c.reporters = {{"--junit", "junit", "a.xml"}, {"--reporter tap", "tap", ""}, {"--reporter junit", "junit", "b.xml"}};
  EXPECT_EQ(c.reporter_path("junit"), "a.xml");
  EXPECT_EQ(c.reporter_path("tap"), "");  // standard output
  EXPECT_EQ(c.reporter_path("html"), "");
}

TEST(RunConfigTest, ArtifactsGoBesideTheReportUnlessNamed) {
  RunConfig c;
  c.report = "reports/out/run.json";
  EXPECT_EQ(c.report_folder(), "reports/out");
  EXPECT_EQ(c.artifacts_folder(), "run-artifacts");
  c.artifacts = "npy";
  EXPECT_EQ(c.artifacts_folder(), "npy");
  c.report = "run.json";
  EXPECT_EQ(c.report_folder(), "");
}

TEST(RunConfigTest, DtypeNamesAreTheKeptDtypesInOrder) {
  RunConfig c;
  EXPECT_TRUE(c.dtype_names().empty());  // each case's own
  c.plan.dtypes = std::vector<c10::ScalarType>{at::kByte, at::kFloat, at::kHalf};
  EXPECT_EQ(c.dtype_names(), (std::vector<std::string>{"uint8", "float32", "float16"}));
}

TEST(RunConfigTest, ColoursAreParsedByNameOrRefusedNamingTheOption) {
  EXPECT_EQ(parse_color("never", "--color"), Color::kNever);
  EXPECT_EQ(parse_color("always", "--color"), Color::kAlways);
  try {
    parse_color("sometimes", "--color");
    ADD_FAILURE() << "an unknown colour was accepted";
  } catch (const UsageError& e) {
    EXPECT_STREQ(e.what(), "--color 'sometimes': expected one of auto, always, never");
  }
}

}  // namespace
}  // namespace devparity
