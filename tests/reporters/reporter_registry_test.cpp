#include "harness/reporters/reporter_registry.h"

#include "harness/report/document.h"
#include "harness/report/report_file.h"
#include "tests/support/run_suite.h"
#include "tests/support/temp_dir.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <sstream>
#include <stdexcept>

namespace devparity {
namespace {

// What a run's end would assemble for no results.
nlohmann::json empty_report() {
  auto info = testing::test_run_info();
  return assemble_report(info, RunSummary{}, nlohmann::json::array());
}

TEST(ReporterRegistryTest, WriteReportWritesAWholeReportThroughTheNamedReporter) {
  register_builtins();
  testing::TempDir dir;
  ReporterOptions o;
  o.path = dir.file("r.json");
  const auto report = empty_report();
  EXPECT_TRUE(ReporterRegistry::global().write_report("json", o, report));
  EXPECT_EQ(load_report(o.path), report);
  o.path = dir.file("r.xml");
  EXPECT_TRUE(ReporterRegistry::global().write_report("junit", o, report));
  EXPECT_TRUE(std::filesystem::exists(o.path));
}

// Twins: the console reports as a run goes and has no whole report to write;
// a name nobody registered is an error.
TEST(ReporterRegistryTest, WriteReportSkipsAStreamingReporterAndRefusesAnUnknownOne) {
  register_builtins();
  std::ostringstream out;
  ReporterOptions o;
  o.stream = &out;
  EXPECT_FALSE(ReporterRegistry::global().write_report("console", o, empty_report()));
  EXPECT_EQ(out.str(), "");
  EXPECT_THROW(ReporterRegistry::global().write_report("no_such_reporter", o, empty_report()), std::invalid_argument);
}

}  // namespace
}  // namespace devparity
