// run_session() and report_session(): what every front end gets from one
// configuration (Note [Session]).
#include "harness/session/session.h"

#include "harness/base/error.h"
#include "harness/report/report_file.h"
#include "tests/support/run_suite.h"
#include "tests/support/schema.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <sstream>

namespace devparity {
namespace {

using nlohmann::json;

const json kSuite = {{"cases",
                      {{{"name", "flip"},
                        {"subject", "hflip"},
                        {"inputs", {{{"pattern", "noise"}, {"shape", {1, 3, 6, 5}}}}},
                        {"dtypes", {"float32"}}}}}};

class SessionTest : public ::testing::Test {
 protected:
  void SetUp() override {
    register_builtins();
    inventory_ = DeviceInventory::probe();
    suites_ = {load_suite(dir_.write("suite.json", kSuite.dump()), inventory_)};
    config_.argv = {"session_test"};
    config_.suites = {"suite.json"};
    config_.plan.devices = parse_device_list("cpu,meta", inventory_);
    config_.console.show = false;
    config_.report = dir_.file("out/report.json");
  }

  testing::TempDir dir_;
  DeviceInventory inventory_;
  std::vector<Suite> suites_;
  RunConfig config_;
};

TEST_F(SessionTest, TheReportRecordsTheConfiguration) {
  config_.placement = Placement::kStrict;
  config_.plan.seed = 7;
  config_.plan.shard_count = 1;
  config_.reporters = {{"--junit", "junit", dir_.file("out/junit.xml")}};
  config_.run_fields = {{"front_end", "session_test"}, {"filter", "overridden last"}};
  const auto summary = run_session(config_, suites_, inventory_);
  EXPECT_EQ(summary.results.total(), 2);
  const auto report = load_report(config_.report);
  EXPECT_EQ(testing::report_schema_errors(report), std::vector<std::string>{});
  const auto& run = report.at("run");
  EXPECT_EQ(run.at("placement"), "strict");
  EXPECT_EQ(run.at("seed"), 7);
  EXPECT_EQ(run.at("junit"), dir_.file("out/junit.xml"));
  EXPECT_TRUE(run.at("html").is_null());
  EXPECT_TRUE(run.at("isolate").is_null());
  EXPECT_FALSE(run.contains("shard"));  // 1 part is the whole run
  EXPECT_EQ(run.at("front_end"), "session_test");
  EXPECT_EQ(run.at("filter"), "overridden last");
  EXPECT_TRUE(std::filesystem::exists(dir_.file("out/junit.xml")));
  EXPECT_FALSE(std::filesystem::exists(config_.report + ".partial"));
}

TEST_F(SessionTest, AShardIsRecordedAsIOverN) {
  config_.plan.shard_index = 0;
  config_.plan.shard_count = 3;
  const auto first = run_session(config_, suites_, inventory_);
  EXPECT_EQ(first.results.total(), 2);  // the suite's one group: hflip on cpu and meta
  EXPECT_EQ(load_report(config_.report).at("run").at("shard"), "0/3");
}

// Note [Shards]: one group over three parts leaves two empty; each still
// writes its report, so that merge finds every part.
TEST_F(SessionTest, AnEmptyShardWritesAnEmptyReport) {
  config_.plan.shard_index = 1;
  config_.plan.shard_count = 3;
  std::ostringstream console;
  config_.console.show = true;
  config_.console.stream = &console;
  config_.console.progress_s = 0;
  const auto empty = run_session(config_, suites_, inventory_);
  EXPECT_NE(console.str().find("EMPTY PART: shard 1/3 holds no trial"), std::string::npos) << console.str();
  EXPECT_EQ(console.str().find("NOTHING RAN"), std::string::npos) << console.str();
  EXPECT_EQ(empty.results.total(), 0);
  const auto report = load_report(config_.report);
  EXPECT_EQ(report.at("run").at("shard"), "1/3");
  EXPECT_EQ(report.at("summary").at("total"), 0);
  EXPECT_TRUE(report.at("results").empty());
  // Twin: the part that holds the group says what it ran.
  config_.plan.shard_index = 0;
  console.str("");
  run_session(config_, suites_, inventory_);
  EXPECT_NE(console.str().find("PASSED: 2 passed"), std::string::npos) << console.str();
  // A plan with no trial in any part is still an error.
  config_.plan.filter = "nothing-matches";
  EXPECT_THROW(run_session(config_, suites_, inventory_), UsageError);
}

// A report rebuilt after a run that never ended (an isolated audit's worker
// that died) goes through the reporters a session builds: the JSON report
// (packed, its .partial log gone), JUnit and HTML, as at a run's end.
TEST_F(SessionTest, AFinishedReportIsWrittenThroughTheConfiguredReporters) {
  config_.reporters = {{"--junit", "junit", dir_.file("out/junit.xml")},
                       {"--html", "html", dir_.file("out/page.html")},
                       {"--reporter console", "console", ""}};  // standard output: no file to write
  run_session(config_, suites_, inventory_);
  auto report = load_report(config_.report);
  report["summary"]["interrupted"] = {{"signal", "worker"}, {"message", "the worker died"}};
  for (const char* f : {"out/junit.xml", "out/page.html"}) std::filesystem::remove(dir_.file(f));
  { std::ofstream(config_.report + ".partial") << "{}\n"; }
  write_report_files(config_, report);
  EXPECT_EQ(load_report(config_.report), report);
  EXPECT_FALSE(std::filesystem::exists(config_.report + ".partial"));
  std::ifstream junit(dir_.file("out/junit.xml")), page(dir_.file("out/page.html"));
  EXPECT_NE(std::string(std::istreambuf_iterator<char>(junit), {}).find("type=\"interrupted\""), std::string::npos);
  EXPECT_NE(std::string(std::istreambuf_iterator<char>(page), {}).find(">INTERRUPTED</span>"), std::string::npos);
  // Twin: a reporter nobody registered is refused, not skipped.
  config_.reporters = {{"--reporter nope", "nope", dir_.file("out/nope.txt")}};
  EXPECT_THROW(write_report_files(config_, report), std::invalid_argument);
}

TEST_F(SessionTest, ABadConfigurationWritesNothing) {
  auto unknown = config_;
  unknown.reporters = {{"--reporter nope", "nope", ""}};
  EXPECT_THROW(run_session(unknown, suites_, inventory_), UsageError);
  auto interleaved = config_;
  interleaved.vdev_async = false;
  interleaved.interleavings = 4;
  try {
    run_session(interleaved, suites_, inventory_);
    ADD_FAILURE() << "interleavings without the asynchronous vdev ran";
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("only the asynchronous vdev"), std::string::npos) << e.what();
  }
  auto eager = config_;
  eager.vdev_async = false;
  eager.pinned_release = vdev::async::PinnedRelease::kEager;
  try {
    run_session(eager, suites_, inventory_);
    ADD_FAILURE() << "eager pinned release without the asynchronous vdev ran";
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("only the asynchronous vdev"), std::string::npos) << e.what();
  }
  auto colliding = config_;
  colliding.reporters = {{"--html", "html", config_.report}};
  EXPECT_THROW(run_session(colliding, suites_, inventory_), UsageError);
  auto no_baseline = config_;
  no_baseline.baseline = dir_.file("missing.json");
  EXPECT_THROW(run_session(no_baseline, suites_, inventory_), InputError);
  auto nothing = config_;
  nothing.plan.filter = "no-such-case*";
  try {
    run_session(nothing, suites_, inventory_);
    ADD_FAILURE() << "a run with no trial ran";
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("no trials selected (suites: suite.json; filter: 'no-such-case*'"),
              std::string::npos)
        << e.what();
  }
  EXPECT_FALSE(std::filesystem::exists(dir_.file("out/report.json")));
  EXPECT_FALSE(std::filesystem::exists(dir_.file("out/report.json.partial")));
}

TEST_F(SessionTest, TheConsoleFollowsTheConfiguration) {
  std::ostringstream out;
  config_.console = {true, false, true, Color::kNever, &out};
  config_.report.clear();  // no JSON report: nothing written, nothing locked
  run_session(config_, suites_, inventory_);
  EXPECT_NE(out.str().find("flip/hflip/float32/cpu"), std::string::npos) << out.str();  // verbose: a line per trial
  EXPECT_EQ(out.str().find("\x1b["), std::string::npos) << "colour asked off";
  EXPECT_FALSE(std::filesystem::exists(dir_.file("out")));
}

TrialResult made_elsewhere(const std::string& id, const std::string& file, Status status) {
  TrialResult r;
  r.id = id;
  r.suite = file;
  r.case_name = file.substr(0, file.find('.')) + "_py";
  r.subject = id.substr(id.find("::") + 2);
  r.device = r.resolved_device = r.reference_device = "vdev:1";
  r.checks.push_back(CheckOutcome::verdict("placement", status, "1 error(s)"));
  r.finalize();
  return r;
}

TEST_F(SessionTest, ResultsMadeElsewhereAreReportedAsARun) {
  config_.placement = Placement::kStrict;
  config_.plan.devices = parse_device_list("vdev:1", inventory_);
  config_.reporters = {{"--junit", "junit", dir_.file("out/junit.xml")}};
  const std::vector<TrialResult> results = {made_elsewhere("a.py::t1", "a.py", Status::kPass),
                                            made_elsewhere("a.py::t2", "a.py", Status::kFail),
                                            made_elsewhere("b.py::t3", "b.py", Status::kSkip)};
  testing::EventRecorder recorder;
  config_.listeners = {&recorder};
  const auto summary = report_session(config_, results, 12.5, inventory_);
  EXPECT_EQ(summary.results.failed, 1);
  EXPECT_EQ(summary.exit_code(), 1);
  EXPECT_EQ(recorder.events.front(), "run_start");
  EXPECT_NE(std::find(recorder.events.begin(), recorder.events.end(), "case_start:b_py"), recorder.events.end());
  const auto report = load_report(config_.report);
  EXPECT_EQ(testing::report_schema_errors(report), std::vector<std::string>{});
  EXPECT_EQ(report.at("run").at("placement"), "strict");
  EXPECT_EQ(report.at("run").at("planned_trials"), 3);
  EXPECT_EQ(report.at("run").at("duration_s"), 12.5);
  EXPECT_EQ(report.at("summary").at("by_device").at("vdev:1").at("failed"), 1);
  EXPECT_EQ(report.at("summary").at("by_check").at("placement").at("skipped"), 1);
  EXPECT_EQ(report.at("results").size(), 3u);
  EXPECT_TRUE(std::filesystem::exists(dir_.file("out/junit.xml")));
  // A result the schema refuses is refused before anything is written.
  auto bad = results;
  bad[1].case_name = "a.py";
  std::filesystem::remove_all(dir_.file("out"));
  EXPECT_THROW(report_session(config_, bad, 1.0, inventory_), InputError);
  EXPECT_FALSE(std::filesystem::exists(dir_.file("out")));
}

}  // namespace
}  // namespace devparity
