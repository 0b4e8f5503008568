#include "harness/base/error.h"
#include "harness/reporters/environment.h"
#include "harness/report/report_file.h"
#include "harness/reporters/reporter_registry.h"
#include "tests/support/run_suite.h"
#include "tests/support/schema.h"
#include "tests/support/temp_dir.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <functional>
#include <fstream>
#include <set>
#include <sstream>

namespace devparity {
namespace {

using nlohmann::json;

TrialResult result(const std::string& id, Status status) {
  TrialResult r;
  r.id = id;
  r.case_name = "c";
  r.subject = "s";
  r.dtype = "float32";
  r.device = "cpu";
  r.input = id.substr(id.rfind('/') + 1);  // what the id spells (the reader refuses a contradiction)
  CheckOutcome run;
  run.name = "run";
  run.status = status;
  run.message = "m";
  r.checks = {run};
  r.finalize();
  return r;
}

std::vector<json> jsonl(const std::string& path) {
  std::ifstream in(path);
  std::vector<json> out;
  std::string line;
  while (std::getline(in, line)) out.push_back(json::parse(line));
  return out;
}

TEST(JsonReporterTest, StreamsEachResultThenWritesASchemaValidReport) {
  register_builtins();
  testing::TempDir dir;
  const auto path = dir.file("out/sub/report.json");  // folders are created
  ReporterOptions o;
  o.path = path;
  auto reporter = ReporterRegistry::global().make("json", o);
  auto info = testing::test_run_info();
  info.planned_trials = 2;
  reporter->on_run_start(info);
  EXPECT_FALSE(std::filesystem::exists(path));
  const auto partial = path + ".partial";
  ASSERT_TRUE(std::filesystem::exists(partial));
  EXPECT_EQ(jsonl(partial).size(), 1u);  // the header line

  RunSummary summary;
  for (const auto& r : {result("c/s/float32/cpu/a", Status::kPass),
                        result("c/s/float32/cpu/b", Status::kSkip)}) {
    reporter->on_trial_end(r);
    summary.add(r);
    // A crash now would lose nothing already finished.
    const auto lines = jsonl(partial);
    EXPECT_EQ(lines.back()["id"], r.id);
    EXPECT_EQ(lines.back()["type"], "result");
  }
  reporter->on_run_end(summary);
  EXPECT_FALSE(std::filesystem::exists(partial));
  const auto report = testing::read_report_file(path);
  EXPECT_EQ(testing::report_schema_errors(report), std::vector<std::string>{});
  EXPECT_EQ(report["results"].size(), 2u);
  EXPECT_EQ(report["summary"]["skipped"], 1);
  EXPECT_EQ(report["run"]["planned_trials"], 2);
  for (const auto& entry : std::filesystem::directory_iterator(dir.file("out/sub"))) {
    EXPECT_EQ(entry.path().filename(), "report.json") << "no temporary file left behind";
  }
}

TEST(JsonReporterTest, ReportsFromRealRunsAreSchemaValid) {
  // Passing, skipped, unsupported and failing rows, with parity statistics.
  const json suite = {
      {"cases",
       {{{"name", "r"}, {"subject", "resize"}, {"params", {{"size", {5, 7}}}},
         {"grid", {{"interpolation", {"nearest", "bicubic"}}}}, {"dtypes", {"uint8", "float32"}}},
        {{"name", "x"}, {"subject", "resize"}, {"params", {{"size", {5, 7}}}},
         {"reference", {{"subject", "interpolate"}, {"params", {{"size", {5, 6}}}}}},
         {"dtypes", {"float32"}}},
        {{"name", "n"}, {"subject", "interpolate"},
         {"params", {{"size", {5, 7}}, {"interpolation", "area"}}}}}}};
  testing::TempDir dir;
  const auto path = dir.file("report.json");
  register_builtins();
  ReporterOptions o;
  o.path = path;
  auto reporter = ReporterRegistry::global().make("json", o);
  testing::run_suite(suite, "auto", 0, "", reporter.get());
  const auto report = testing::read_report_file(path);
  EXPECT_EQ(testing::report_schema_errors(report), std::vector<std::string>{});
  std::set<std::string> statuses;
  for (const auto& r : report["results"]) statuses.insert(r["status"].get<std::string>());
  EXPECT_EQ(statuses, (std::set<std::string>{"pass", "fail", "skip"}));
}

TEST(JsonReporterTest, UnwritableReportIsAnInputErrorBeforeAnyTrialRuns) {
  register_builtins();
  ReporterOptions o;
  o.path = "/proc/devparity-cannot-write/report.json";
  auto reporter = ReporterRegistry::global().make("json", o);
  EXPECT_THROW(reporter->on_run_start(testing::test_run_info()), InputError);
}

TEST(JsonReporterTest, APartialLogsNumbersOutOfRangeAreInputErrorsNamingTheLine) {
  // Found by ReportReaderFuzz: a seed of 6.08e21 was converted to uint64_t
  // (undefined behaviour) instead of rejected. Seeds, interleaving seeds and
  // shapes are checked integers.
  const std::string header = R"({"type": "run_start", "tool": {}, "run": {}, "environment": {}})";
  const auto result = [](const std::string& extra) {
    return R"({"type": "result", "id": "c/cpu", "case": "c", "subject": "s", "dtype": "float32",)"
           R"( "device": "cpu", "status": "skip", "checks": [], )" + extra + "}";
  };
  for (const std::string bad : {R"("seed": 6083607719607719284502)", R"("seed": -1)", R"("seed": 1.5)",
                                R"("interleaving_seed": 1e300)", R"("shape": [1, 3, 1e30])", R"("shape": [-2])"}) {
    try {
      parse_report("run.json.partial", header + "\n" + result(bad) + "\n");
      ADD_FAILURE() << bad << " was accepted";
    } catch (const InputError& e) {
      EXPECT_NE(std::string(e.what()).find("run.json.partial:2:"), std::string::npos) << e.what();
    }
  }
  // In range, they read back.
  EXPECT_NO_THROW(parse_report("run.json.partial",
                               header + "\n" + result(R"("seed": 18446744073709551615, "shape": [1, 3, 8, 8])") + "\n"));
}

// Each break of a valid report is rejected, and the error names the field broken.
TEST(JsonReporterTest, SchemaRejectsBrokenReportsNamingTheField) {
  const json suite = {{"cases", {{{"name", "f"}, {"subject", "hflip"}, {"dtypes", {"float32"}}}}}};
  testing::TempDir dir;
  register_builtins();
  ReporterOptions o;
  o.path = dir.file("report.json");
  auto reporter = ReporterRegistry::global().make("json", o);
  testing::run_suite(suite, "cpu", 0, "", reporter.get());
  const auto valid = testing::read_report_file(o.path);
  ASSERT_EQ(testing::report_schema_errors(valid), std::vector<std::string>{});
  const std::vector<std::pair<std::string, std::function<void(json&)>>> breaks = {
      {"summary", [](json& r) { r.erase("summary"); }},
      {"status", [](json& r) { r["results"][0]["status"] = "maybe"; }},
      {"checks", [](json& r) { r["results"][0]["checks"] = "parity"; }},
      {"schema_version", [](json& r) { r["schema_version"] = "one"; }},
      {"devices", [](json& r) { r["run"]["devices"] = 3; }},
  };
  for (const auto& [field, brk] : breaks) {
    auto broken = valid;
    brk(broken);
    const auto errors = testing::report_schema_errors(broken);
    ASSERT_FALSE(errors.empty()) << "breaking " << field << " was accepted";
    const bool named = std::any_of(errors.begin(), errors.end(),
                                   [&](const std::string& e) { return e.find(field) != std::string::npos; });
    EXPECT_TRUE(named) << field << " is named in none of: " << ::testing::PrintToString(errors);
  }
}

}  // namespace
}  // namespace devparity
