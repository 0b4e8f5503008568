// CI gates and release reviews through the executable: JUnit XML (validated
// with xmllint against tests/junit/junit.xsd), .npy artifacts, --baseline,
// diff, shards and merge, and the HTML report in headless Chromium.

#include "tests/support/cli_fixture.h"
#include "tests/support/schema.h"
#include "tests/support/tools.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cstdlib>
#include <regex>
#include <string>
#include <filesystem>
#include <map>

namespace devparity {
namespace {

using nlohmann::json;
using testing::CliResult;
using testing::describe;
using testing::run_cli;
using testing::shell_quote;

// One case that fails on the CPU (nearest against a bilinear reference), one
// that passes, on cpu and an absent CUDA device (skipped, with the reason).
json seeded_failure_suite() {
  return {{"cases",
           {{{"name", "seeded_failure"}, {"subject", "resize"},
             {"params", {{"size", {9, 9}}, {"interpolation", "nearest"}}},
             {"reference", {{"params", {{"interpolation", "bilinear"}}}}},
             {"dtypes", {"float32"}}},
            {{"name", "clean"}, {"subject", "resize"},
             {"params", {{"size", {9, 9}}, {"interpolation", "bilinear"}}},
             {"dtypes", {"float32"}}}}}};
}


class GateCli : public testing::CliFixture {};

// The JUnit text itself: no tool needed.
TEST_F(GateCli, JunitCarriesFailuresSkipsAndEnvironment) {
  dir_.write("suite.json", seeded_failure_suite().dump());
  const auto r = cli("run --suite suite.json --devices cpu,cuda:0 --report r.json --junit out/j.xml");
  ASSERT_EQ(r.exit_code, 1) << describe(r);
  const auto xml = testing::read_text(dir_.file("out/j.xml"));
  EXPECT_NE(xml.find("<testsuite name=\"seeded_failure\" tests=\"2\" failures=\"1\" errors=\"0\" skipped=\"1\""),
            std::string::npos) << xml;
  EXPECT_NE(xml.find("<testcase name=\"resize/float32/cpu/noise-1x3x17x11\" classname=\"seeded_failure\""),
            std::string::npos) << xml;
  EXPECT_NE(xml.find("parity: seeded_failure/resize/float32/cpu/noise-1x3x17x11: 243 of 243 elements"),
            std::string::npos) << xml;
  EXPECT_NE(xml.find("max |diff| "), std::string::npos) << xml;
  EXPECT_NE(xml.find("<skipped message=\""), std::string::npos) << xml;
  EXPECT_NE(xml.find("<property name=\"environment.torch_version\""), std::string::npos) << xml;
  EXPECT_NE(xml.find("<testsuite name=\"clean\" tests=\"2\" failures=\"0\""), std::string::npos) << xml;
  // The failure names its problem (grouped by cause) before its evidence.
  EXPECT_NE(xml.find("type=\"gradient\">problem 1 of 1 (1 problem in 1 trial): 1 trial on cpu -- gradient: "),
            std::string::npos) << xml;
  // The JSON report says where the JUnit went.
  const auto report = testing::read_report_file(dir_.file("r.json"));
  EXPECT_EQ(report["run"]["junit"], "out/j.xml");
}

// The same file against the JUnit schema CI servers read (xmllint).
TEST_F(GateCli, JunitValidatesAgainstTheSchema) {
  DEVPARITY_NEEDS(testing::have_tool("xmllint"),
                  "xmllint is not installed (Debian: libxml2-utils; tools/setup.sh installs it)");
  dir_.write("suite.json", seeded_failure_suite().dump());
  const auto r = cli("run --suite suite.json --devices cpu,cuda:0 --report r.json --junit out/j.xml");
  ASSERT_EQ(r.exit_code, 1) << describe(r);
  const auto lint = run_cli("--noout --schema " + shell_quote(testing::source_path("tests/junit/junit.xsd")) +
                                " out/j.xml",
                            dir_.path(), "xmllint");
  EXPECT_EQ(lint.exit_code, 0) << describe(lint) << "\n" << testing::read_text(dir_.file("out/j.xml"));
}

// --reporter NAME=FILE goes through the reporter registry: the same JUnit as
// the --junit shorthand (but for its timestamps); names it does not hold,
// and file reporters without a file, are usage errors naming the flag.
TEST_F(GateCli, ReporterFlagChoosesFromTheRegistry) {
  dir_.write("suite.json", seeded_failure_suite().dump());
  const auto a = cli("run --suite suite.json --devices cpu --report a.json --junit a.xml");
  const auto b = cli("run --suite suite.json --devices cpu --report b.json --reporter junit=b.xml --reporter html=b.html");
  ASSERT_EQ(a.exit_code, 1) << describe(a);
  ASSERT_EQ(b.exit_code, 1) << describe(b);
  auto untimed = [](std::string xml) {
    static const std::regex volatile_attributes(R"re(\b(time|timestamp)="[^"]*"|value="\[&quot;[^"]*")re");
    return std::regex_replace(xml, volatile_attributes, "");
  };
  EXPECT_EQ(untimed(testing::read_text(dir_.file("a.xml"))), untimed(testing::read_text(dir_.file("b.xml"))));
  EXPECT_NE(testing::read_text(dir_.file("b.html")).find("<html"), std::string::npos);

  const auto unknown = cli("run --suite suite.json --devices cpu --report c.json --reporter tap=c.tap");
  EXPECT_EQ(unknown.exit_code, 2) << describe(unknown);
  EXPECT_NE(unknown.err.find("--reporter 'tap': no such reporter (registered: console, html, json, junit)"),
            std::string::npos) << describe(unknown);
  const auto no_file = cli("run --suite suite.json --devices cpu --report c.json --reporter junit");
  EXPECT_EQ(no_file.exit_code, 2) << describe(no_file);
  EXPECT_NE(no_file.err.find("--reporter junit: the junit reporter needs a path"), std::string::npos)
      << describe(no_file);
  // Refused before the report is claimed: no empty c.json.partial left behind.
  EXPECT_FALSE(std::filesystem::exists(dir_.file("c.json.partial")));
}

// The artifacts of failing trials and the budget that bounds them: no tool needed.
TEST_F(GateCli, FailingParityTrialsLeaveNpyArtifactsWithinTheBudget) {
  dir_.write("suite.json", seeded_failure_suite().dump());
  const auto r = cli("run --suite suite.json --devices cpu --report reports/r.json");
  ASSERT_EQ(r.exit_code, 1) << describe(r);
  const auto report = testing::read_report_file(dir_.file("reports/r.json"));
  EXPECT_EQ(testing::report_schema_errors(report), std::vector<std::string>{});
  std::vector<std::string> paths;
  for (const auto& result : report["results"]) {
    for (const auto& check : result["checks"]) {
      if (check["name"] != "parity") continue;
      if (result["status"] == "pass") {
        EXPECT_TRUE(check["artifacts"].empty()) << result["id"];
      }
      for (const auto& a : check["artifacts"]) paths.push_back(a["path"].get<std::string>());
    }
  }
  ASSERT_EQ(paths.size(), 3u);
  EXPECT_EQ(paths[0], "r-artifacts/seeded_failure__resize__float32__cpu__noise-1x3x17x11.reference.npy");
  for (const auto& p : paths) EXPECT_TRUE(std::filesystem::exists(dir_.file("reports/" + p))) << p;
  // A budget too small for one trial writes none and says so.
  const auto small = cli("run --suite suite.json --devices cpu --report s.json --artifacts-budget 0.0001");
  ASSERT_EQ(small.exit_code, 1);
  int said = 0, failed = 0;
  const auto small_report = testing::read_report_file(dir_.file("s.json"));
  for (const auto& result : small_report["results"]) {
    for (const auto& c : result["checks"]) {
      if (c["name"] == "parity" && c["status"] == "fail") {
        ++failed;
        EXPECT_TRUE(c["artifacts"].empty());
        said += c["stats"].contains("artifacts_skipped") ? 1 : 0;
      }
    }
  }
  EXPECT_EQ(failed, 1);
  EXPECT_EQ(said, failed);
  EXPECT_FALSE(std::filesystem::exists(dir_.file("s-artifacts")));
}

// The same artifacts read by numpy: |diff| is |output - reference|, element by element.
TEST_F(GateCli, NpyArtifactsLoadInNumpy) {
  DEVPARITY_NEEDS(testing::python_has("numpy"), "python3-numpy is not installed (tools/setup.sh installs it)");
  dir_.write("suite.json", seeded_failure_suite().dump());
  ASSERT_EQ(cli("run --suite suite.json --devices cpu --report reports/r.json").exit_code, 1);
  const std::string check =
      "import numpy as n; d = 'reports/r-artifacts/seeded_failure__resize__float32__cpu__noise-1x3x17x11'; "
      "r = n.load(d + '.reference.npy'); o = n.load(d + '.output.npy'); a = n.load(d + '.abs_diff.npy'); "
      "assert r.shape == (1, 3, 9, 9) and r.dtype == n.float32, (r.shape, r.dtype); "
      "assert n.allclose(a, n.abs(o.astype(n.float64) - r), atol=1e-6); assert a.max() > 0";
  EXPECT_EQ(std::system(("cd " + shell_quote(dir_.path()) + " && /usr/bin/python3 -c " + shell_quote(check)).c_str()), 0);
}

TEST_F(GateCli, JunitPathThatCannotBeWrittenIsAnInputError) {
  dir_.write("suite.json", seeded_failure_suite().dump());
  dir_.write("blocker", "a file where a folder should be");
  const auto r = cli("run --suite suite.json --devices cpu --report r.json --junit blocker/j.xml");
  EXPECT_EQ(r.exit_code, 2) << describe(r);
  EXPECT_NE(r.err.find("blocker"), std::string::npos) << r.err;
}


class GateFlow : public testing::CliFixture {
 protected:
  // A clean suite, and the same with a seeded regression in one case (the
  // resize's reference switched to bilinear: nearest no longer matches it).
  void write_suites() {
    json clean = {{"cases",
                   {{{"name", "up"}, {"subject", "resize"},
                     {"params", {{"size", {9, 9}}, {"interpolation", "nearest"}}},
                     {"dtypes", {"float32"}}},
                    {{"name", "blur"}, {"subject", "gaussian_blur2d"},
                     {"params", {{"kernel_size", {3, 3}}, {"sigma", {1.0, 1.0}}}},
                     {"grid", {{"border", {"reflect", "constant"}}}},
                     {"dtypes", {"float32", "uint8"}}}}}};
    dir_.write("clean.json", clean.dump());
    auto regressed = clean;
    regressed["cases"][0]["reference"] = {{"params", {{"interpolation", "bilinear"}}}};
    dir_.write("regressed.json", regressed.dump());
  }
};

TEST_F(GateFlow, DiffNamesTheRegressedTrialAndExitsOne) {
  write_suites();
  ASSERT_EQ(cli("run --suite clean.json --devices cpu,vdev:1 --report old.json -q").exit_code, 0);
  ASSERT_EQ(cli("run --suite regressed.json --devices cpu,vdev:1 --report new.json -q").exit_code, 1);
  const auto same = cli("diff old.json old.json");
  EXPECT_EQ(same.exit_code, 0) << describe(same);
  EXPECT_NE(same.out.find("no regression"), std::string::npos) << same.out;
  const auto text = cli("diff old.json new.json");
  EXPECT_EQ(text.exit_code, 1) << describe(text);
  EXPECT_NE(text.out.find("new failures (2)"), std::string::npos) << text.out;
  EXPECT_NE(text.out.find("up/resize/float32/cpu/noise-1x3x17x11  pass -> fail [gradient,parity]"), std::string::npos)
      << text.out;
  const auto md = cli("diff old.json new.json --format md");
  EXPECT_EQ(md.exit_code, 1);
  EXPECT_NE(md.out.find("| `up/resize/float32/vdev:1/noise-1x3x17x11` | pass | fail | gradient,parity |"), std::string::npos)
      << md.out;
  const auto js = cli("diff old.json new.json --format json");
  const auto d = json::parse(js.out);
  EXPECT_EQ(d["regressed"], true);
  EXPECT_EQ(d["new_failures"].size(), 2u);
  EXPECT_EQ(d["paired"], d["old_results"]);
  // And back: the regression is fixed.
  const auto back = cli("diff new.json old.json --format json");
  EXPECT_EQ(back.exit_code, 0) << describe(back);
  EXPECT_EQ(json::parse(back.out)["fixed"].size(), 2u);
  // Not a report: exit 2, naming the file.
  dir_.write("junk.json", "{\"hello\": 1}");
  const auto bad = cli("diff old.json junk.json");
  EXPECT_EQ(bad.exit_code, 2) << describe(bad);
  EXPECT_NE(bad.err.find("junk.json:1:1: /schema_version"), std::string::npos) << bad.err;
}

TEST_F(GateFlow, UnpackWritesEveryResultInFullForScriptsAndOlderReaders) {
  write_suites();
  ASSERT_EQ(cli("run --suite clean.json --devices cpu,vdev:1,cuda:0 --report r.json -q").exit_code, 0);
  const auto written = json::parse(testing::read_text(dir_.file("r.json")));
  ASSERT_TRUE(written.contains("shared") && written.contains("skipped")) << "the file is packed";
  const auto full = report("r.json");  // read back by devparity
  const auto unpacked = cli("unpack r.json full.json");
  ASSERT_EQ(unpacked.exit_code, 0) << describe(unpacked);
  const auto file = json::parse(testing::read_text(dir_.file("full.json")));
  EXPECT_EQ(file, full);
  EXPECT_EQ(testing::report_schema_errors(file), std::vector<std::string>{});
  for (const auto& r : file["results"]) {
    for (const char* key : {"id", "case", "subject", "device", "dtype", "status", "message", "suite"}) {
      EXPECT_TRUE(r.contains(key)) << r["id"] << " " << key;
    }
  }
  // To standard output; for a reader of schema 1, which the same diff reads against the packed file.
  const auto out = cli("unpack r.json - --schema-version 1");
  ASSERT_EQ(out.exit_code, 0) << describe(out);
  const auto old = json::parse(out.out);
  EXPECT_EQ(old["schema_version"], 1);
  EXPECT_EQ(old["results"], full["results"]);
  dir_.write("old.json", out.out);
  const auto same = cli("diff old.json r.json --format json");
  EXPECT_EQ(same.exit_code, 0) << describe(same);
  EXPECT_EQ(json::parse(same.out)["paired"], full["results"].size());
  const auto bad = cli("unpack r.json - --schema-version 3");
  EXPECT_EQ(bad.exit_code, 2) << describe(bad);
  const auto missing = cli("unpack nothing.json -");
  EXPECT_EQ(missing.exit_code, 2) << describe(missing);
  EXPECT_NE(missing.err.find("nothing.json"), std::string::npos) << missing.err;
}

TEST_F(GateFlow, DiffReportsStatisticsThatMoved) {
  write_suites();
  ASSERT_EQ(cli("run --suite regressed.json --devices cpu --report a.json -q").exit_code, 1);
  auto b = report("a.json");
  for (auto& r : b["results"]) {
    for (auto& c : r["checks"]) {
      if (c["name"] == "parity" && c["stats"].contains("max_abs")) {
        c["stats"]["max_abs"] = c["stats"]["max_abs"].get<double>() * 2 + 1;
      }
    }
  }
  dir_.write("b.json", b.dump());
  const auto r = cli("diff a.json b.json");
  EXPECT_EQ(r.exit_code, 1) << describe(r);
  EXPECT_NE(r.out.find("parity.max_abs: "), std::string::npos) << r.out;
  // Past the threshold only: a 100-fold growth allowance lets it through.
  EXPECT_EQ(cli("diff a.json b.json --max-abs-growth 100").exit_code, 0);
  // A statistic that became NaN has moved, whatever the allowance, and is written as NaN.
  auto c = report("a.json");
  for (auto& result : c["results"]) {
    for (auto& check : result["checks"]) {
      if (check["name"] == "parity" && check["stats"].contains("max_abs")) {
        check["stats"]["max_abs"] = "NaN";
        check["stats"]["psnr_db"] = "NaN";
      }
    }
  }
  dir_.write("c.json", c.dump());
  const auto nan = cli("diff a.json c.json --max-abs-growth 100 --format json");
  EXPECT_EQ(nan.exit_code, 1) << describe(nan);
  EXPECT_NE(nan.out.find("\"stat\": \"max_abs\""), std::string::npos) << nan.out;
  EXPECT_NE(nan.out.find("\"to\": \"NaN\""), std::string::npos) << nan.out;
  EXPECT_NE(cli("diff a.json c.json").out.find("parity.psnr_db: "), std::string::npos);
  // A report that holds one result id twice cannot be paired: exit 2 naming both places.
  auto twice = report("a.json");
  twice["results"].push_back(twice["results"][0]);
  dir_.write("twice.json", twice.dump());
  const auto dup = cli("diff a.json twice.json");
  EXPECT_EQ(dup.exit_code, 2) << describe(dup);
  EXPECT_NE(dup.err.find("is given twice (first at /results/0)"), std::string::npos) << dup.err;
}

TEST_F(GateFlow, BaselineGatesOnlyNewFailures) {
  write_suites();
  ASSERT_EQ(cli("run --suite regressed.json --devices cpu --report base.json -q").exit_code, 1);
  // The same failures again: known, the gate passes.
  const auto again = cli("run --suite regressed.json --devices cpu --report again.json --baseline base.json");
  EXPECT_EQ(again.exit_code, 0) << describe(again);
  EXPECT_NE(again.out.find("baseline base.json: 1 known failure(s) (not gating), 0 new, 0 fixed"), std::string::npos)
      << again.out;
  auto r = report("again.json");
  EXPECT_EQ(r["summary"]["baseline"]["known_failures"], json({"up/resize/float32/cpu/noise-1x3x17x11"}));
  for (const auto& result : r["results"]) {
    if (result["status"] == "fail") {
      EXPECT_EQ(result["baseline"], "known");
    }
  }
  // Against a clean baseline the same failure is new.
  ASSERT_EQ(cli("run --suite clean.json --devices cpu --report clean_base.json -q").exit_code, 0);
  const auto fresh = cli("run --suite regressed.json --devices cpu --report fresh.json --baseline clean_base.json");
  EXPECT_EQ(fresh.exit_code, 1) << describe(fresh);
  EXPECT_NE(fresh.out.find("  NEW    up/resize/float32/cpu/noise-1x3x17x11"), std::string::npos) << fresh.out;
  EXPECT_EQ(report("fresh.json")["summary"]["baseline"]["new_failures"].size(), 1u);
  // A fix is listed.
  const auto fixed = cli("run --suite clean.json --devices cpu --report fixed.json --baseline base.json");
  EXPECT_EQ(fixed.exit_code, 0) << describe(fixed);
  EXPECT_NE(fixed.out.find("  FIXED  up/resize/float32/cpu/noise-1x3x17x11"), std::string::npos) << fixed.out;
  // A missing or broken baseline stops before anything runs.
  const auto missing = cli("run --suite clean.json --devices cpu --report m.json --baseline nope.json");
  EXPECT_EQ(missing.exit_code, 2) << describe(missing);
  EXPECT_NE(missing.err.find("nope.json"), std::string::npos) << missing.err;
}

TEST_F(GateFlow, ShardsMergeIntoTheUnshardedRun) {
  write_suites();
  ASSERT_EQ(cli("run --suite regressed.json --devices cpu,meta,vdev:1 --report all.json -q").exit_code, 1);
  ASSERT_EQ(cli("run --suite regressed.json --devices cpu,meta,vdev:1 --shard 0/2 --report s0.json -q").exit_code, 1);
  const auto s1 = cli("run --suite regressed.json --devices cpu,meta,vdev:1 --shard 1/2 --report s1.json -q");
  ASSERT_LE(s1.exit_code, 1) << describe(s1);
  const auto m = cli("merge merged.json s0.json s1.json --junit merged.xml");
  EXPECT_EQ(m.exit_code, 1) << describe(m);  // the merged run has the seeded failure
  std::map<std::string, std::string> whole, merged;
  const auto all = report("all.json");
  for (const auto& r : all["results"]) whole[r["id"]] = r["status"];
  const auto mr = report("merged.json");
  for (const auto& r : mr["results"]) merged[r["id"]] = r["status"];
  EXPECT_EQ(merged, whole);
  EXPECT_GT(report("s0.json")["results"].size(), 0u);
  EXPECT_GT(report("s1.json")["results"].size(), 0u);
  EXPECT_EQ(mr["summary"]["total"], whole.size());
  EXPECT_EQ(mr["run"]["merged_from"].size(), 2u);
  EXPECT_EQ(mr["run"]["merged_from"][1]["shard"], "1/2");
  EXPECT_TRUE(std::filesystem::exists(dir_.file("merged.xml")));
  // Overlapping shards and other versions are refused.
  auto overlap = cli("merge bad.json s0.json s0.json");
  EXPECT_EQ(overlap.exit_code, 2) << describe(overlap);
  EXPECT_NE(overlap.err.find("is in both s0.json and s0.json"), std::string::npos) << overlap.err;
  auto other = report("s1.json");
  other["tool"]["version"] = "0.0.1";
  dir_.write("other.json", other.dump());
  auto version = cli("merge bad.json s0.json other.json");
  EXPECT_EQ(version.exit_code, 2) << describe(version);
  EXPECT_NE(version.err.find("devparity 0.0.1"), std::string::npos) << version.err;
  EXPECT_FALSE(std::filesystem::exists(dir_.file("bad.json")));
  // Outputs as for run: distinct, never an input.
  const auto clash = cli("merge m.json s0.json s1.json --junit m.json");
  EXPECT_EQ(clash.exit_code, 2) << describe(clash);
  EXPECT_NE(clash.err.find("the output and --junit both name m.json"), std::string::npos) << clash.err;
  const auto onto = cli("merge s1.json s0.json s1.json");
  EXPECT_EQ(onto.exit_code, 2) << describe(onto);
  EXPECT_NE(onto.err.find("the output s1.json is also an input (s1.json)"), std::string::npos) << onto.err;
  const auto html_onto = cli("html s1.json ./s1.json");
  EXPECT_EQ(html_onto.exit_code, 2) << describe(html_onto);
  EXPECT_NE(html_onto.err.find("is also an input"), std::string::npos) << html_onto.err;
  // A missing shard is named, and merged only when asked, marked incomplete.
  const auto one = cli("merge one.json s1.json");
  EXPECT_EQ(one.exit_code, 2) << describe(one);
  EXPECT_NE(one.err.find("shard 0/2 is missing"), std::string::npos) << one.err;
  EXPECT_FALSE(std::filesystem::exists(dir_.file("one.json")));
  const auto allowed = cli("merge one.json s1.json --allow-partial --junit one.xml");
  EXPECT_LE(allowed.exit_code, 1) << describe(allowed);
  const auto incomplete = report("one.json")["summary"]["interrupted"];
  EXPECT_EQ(incomplete["signal"], "incomplete");
  EXPECT_EQ(incomplete["gaps"], nlohmann::json::array({"shard 0/2 is missing"}));
  EXPECT_NE(testing::read_text(dir_.file("one.xml")).find("type=\"interrupted\""), std::string::npos);
  auto three = report("s0.json");
  three["run"]["shard"] = "0/3";
  dir_.write("three.json", three.dump());
  const auto split = cli("merge bad.json three.json s1.json --allow-partial");
  EXPECT_EQ(split.exit_code, 2) << describe(split);
  EXPECT_NE(split.err.find("three.json is a shard of 3 and s1.json of 2"), std::string::npos) << split.err;
  for (const char* shard : {"2/2", "1", "a/b", "-1/2"}) {
    const auto r = cli(std::string("run --suite clean.json --devices cpu --shard ") + shard);
    EXPECT_EQ(r.exit_code, 2) << shard << "\n" << describe(r);
  }
}


// Headless Chromium on a page: the DOM after scripts ran (stdout), and a
// screenshot when `screenshot` is given.
CliResult chromium(const std::string& page, const std::string& dir, const std::string& screenshot = "") {
  const std::string common = "120 chromium --headless --no-sandbox --disable-gpu --user-data-dir=" +
                             shell_quote(dir + "/chromium-profile") + " --virtual-time-budget=5000 ";
  if (!screenshot.empty()) {
    (void)run_cli(common + "--window-size=1280,1600 --screenshot=" + shell_quote(screenshot) + " " +
                      shell_quote("file://" + page),
                  dir, "timeout");
  }
  return run_cli(common + "--dump-dom " + shell_quote("file://" + page), dir, "timeout");
}

int count(const std::string& text, const std::string& what) {
  int n = 0;
  for (auto at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

class HtmlReport : public testing::CliFixture {
 protected:
  void SetUp() override {
    dir_.write("suite.json",
               json({{"cases",
                      {{{"name", "seeded_failure"}, {"subject", "resize"},
                        {"params", {{"size", {24, 32}}, {"interpolation", "nearest"}}},
                        {"reference", {{"params", {{"interpolation", "bilinear"}}}}},
                        {"inputs", {{{"pattern", "ramp"}, {"shape", {1, 3, 17, 11}}}}},
                        {"dtypes", {"uint8"}}},
                       {{"name", "clean"}, {"subject", "gaussian_blur2d"},
                        {"params", {{"kernel_size", {3, 3}}, {"sigma", {1.0, 1.0}}}},
                        {"dtypes", {"float32"}}}}}})
                   .dump());
  }
  // The run's page, out/r.html.
  std::string failing_page() {
    const auto r = run_cli("run --suite suite.json --devices cpu,vdev:1 --report out/r.json --html out/r.html",
                           dir_.path());
    EXPECT_EQ(r.exit_code, 1) << describe(r);
    return testing::read_text(dir_.file("out/r.html"));
  }
  // evil.html: the page of a report whose strings try to run script (a case
  // name, an id, a message and a finding).
  std::string evil_page() {
    EXPECT_EQ(run_cli("run --suite suite.json --devices cpu --report r.json -q", dir_.path()).exit_code, 1);
    auto report = testing::read_report_file(dir_.file("r.json"));
    for (auto& result : report["results"]) {
      result["case"] = kScript;
      result["id"] = kScript + "/" + result["id"].get<std::string>();
      result["message"] = kMark + kImg;
      result["params"]["evil"] = kImg;
      for (auto& check : result["checks"]) {
        check["message"] = kMark;
        check["findings"].push_back({{"kind", kScript}, {"severity", "error"}, {"op", kImg}, {"scopes", {kMark}},
                                     {"message", kMark}, {"device", kImg}, {"count", 1}});
      }
    }
    report["tool"]["git"] = kMark;
    report["run"]["argv"] = {kMark, kImg};
    dir_.write("evil.json", report.dump());
    const auto r = run_cli("html evil.json evil.html", dir_.path());
    EXPECT_EQ(r.exit_code, 0) << describe(r);
    return testing::read_text(dir_.file("evil.html"));
  }
  const std::string kScript = "<script>alert(1)</script>";
  const std::string kMark = "<script>document.documentElement.setAttribute('data-xss','1')</script>";
  const std::string kImg = "<img src=x onerror=\"document.documentElement.setAttribute('data-xss','2')\">";
};

// The page's text: self-contained, with the three images of each failure inline.
TEST_F(HtmlReport, FailingTrialsCarryTheirImagesInline) {
  const auto page = failing_page();
  EXPECT_EQ(page.find("http://"), std::string::npos);
  EXPECT_EQ(page.find("https://"), std::string::npos);
  EXPECT_EQ(count(page, "src=\"data:image/png;base64,"), 6) << "reference, output and |diff| for two failures";
  EXPECT_NE(page.find("alt=\"|diff| heatmap\""), std::string::npos);
  // At the top: the device x case matrix (worst status, failing/trials) and the problems by cause.
  EXPECT_LT(page.find("id=\"matrix\""), page.find("id=\"results\""));
  EXPECT_NE(page.find("<td class=\"m fail\" title=\"seeded_failure on vdev:1: fail, 1 of 1 trials failing\">1/1</td>"),
            std::string::npos) << page;
  EXPECT_NE(page.find("<td class=\"m pass\" title=\"clean on cpu: pass, 0 of 1 trials failing\">1</td>"),
            std::string::npos);
  EXPECT_NE(page.find("<h2 id=\"problems\">Problems: 2 problems in 2 trials</h2>"), std::string::npos);
  EXPECT_NE(page.find("<a href=\"#detail-1\">seeded_failure/resize/uint8/vdev:1/ramp-1x3x17x11</a>"),
            std::string::npos);
}

TEST_F(HtmlReport, TheFailingTrialShowsItsHeatmapInChromium) {
  DEVPARITY_NEEDS(testing::have_tool("chromium"), "chromium is not installed (Debian: chromium; tools/setup.sh installs it)");
  failing_page();
  const auto artifact = std::string(DEVPARITY_TEST_ARTIFACTS) + "/html_report.png";
  std::filesystem::create_directories(DEVPARITY_TEST_ARTIFACTS);
  std::filesystem::remove(artifact);
  const auto dom = chromium(dir_.file("out/r.html"), dir_.path(), artifact);
  ASSERT_EQ(dom.exit_code, 0) << describe(dom);
  EXPECT_NE(dom.out.find("data-status=\"fail\" data-device=\"vdev:1\" data-dtype=\"uint8\" data-checks=\"parity\" "
                         "data-id=\"seeded_failure/resize/uint8/vdev:1/ramp-1x3x17x11\""),
            std::string::npos) << dom.out;
  // Every image decoded (the page's script marks those that did), the
  // heatmaps included.
  EXPECT_EQ(count(dom.out, "data-loaded=\"1\""), 6) << dom.out;
  EXPECT_TRUE(std::filesystem::exists(artifact)) << "screenshot " << artifact;
  EXPECT_GT(std::filesystem::file_size(artifact), 10000u);
}

// NaN against a number is drawn (magenta, counted in the caption), never
// black as "no difference"; the message and numbers say NaN.
TEST_F(HtmlReport, NanMismatchesAreDrawnAndCountedInTheHeatmap) {
  dir_.write("nan.json", json({{"cases",
                                {{{"name", "nan"}, {"subject", "fault_nan_off_cpu"},
                                  {"inputs", {{{"pattern", "constant"}, {"value", 0.5}, {"shape", {1, 3, 9, 7}}}}},
                                  {"dtypes", {"float32"}}}}}})
                             .dump());
  const auto r = run_cli("run --suite nan.json --devices cpu,vdev:1 --report out/nan.json --html out/nan.html",
                         dir_.path(), DEVPARITY_FAULTS_BINARY);
  EXPECT_EQ(r.exit_code, 1) << describe(r);
  const auto page = testing::read_text(dir_.file("out/nan.html"));
  EXPECT_NE(page.find("magenta: NaN or Inf against a number, 63 pixel(s)"), std::string::npos) << page;
  EXPECT_NE(page.find("189 NaN and 0 Inf where the other holds a number"), std::string::npos);
  const auto report = testing::read_report_file(dir_.file("out/nan.json"));
  for (const auto& result : report["results"]) {
    if (result["device"] != "vdev:1") continue;
    EXPECT_EQ(result["checks"][2]["name"], "parity");
    EXPECT_EQ(result["checks"][2]["stats"]["max_abs"], "NaN");
  }
}

// The escaping itself, in the page's text: no browser needed.
TEST_F(HtmlReport, TextFromCasesSubjectsAndExceptionsIsEscaped) {
  const auto page = evil_page();
  EXPECT_EQ(page.find(kScript), std::string::npos);
  EXPECT_EQ(page.find(kMark), std::string::npos);
  EXPECT_EQ(page.find("<img src=x"), std::string::npos);
  EXPECT_NE(page.find("&lt;script&gt;alert(1)&lt;/script&gt;"), std::string::npos);
  EXPECT_NE(page.find("&lt;img src=x onerror="), std::string::npos);
}

// And in a browser: the injected code does not run, while its seeded-fault
// twin (the same strings pasted unescaped) does, and the detector sees it.
TEST_F(HtmlReport, InjectedScriptDoesNotRunInChromium) {
  DEVPARITY_NEEDS(testing::have_tool("chromium"), "chromium is not installed (Debian: chromium; tools/setup.sh installs it)");
  evil_page();
  const auto dom = chromium(dir_.file("evil.html"), dir_.path());
  ASSERT_EQ(dom.exit_code, 0) << describe(dom);
  // The attribute the injected code would set (its text, shown escaped,
  // says data-xss too, but never data-xss=").
  EXPECT_EQ(dom.out.find("data-xss=\""), std::string::npos) << "injected script ran";
  EXPECT_NE(dom.out.find("<html lang=\"en\"><head>"), std::string::npos) << dom.out.substr(0, 300);
  EXPECT_NE(dom.out.find("&lt;script&gt;alert(1)&lt;/script&gt;"), std::string::npos) << "shown as text";
  dir_.write("unescaped.html", "<!DOCTYPE html><html><body><p>" + kMark + "</p><p>" + kImg + "</p></body></html>");
  const auto twin = chromium(dir_.file("unescaped.html"), dir_.path());
  ASSERT_EQ(twin.exit_code, 0) << describe(twin);
  EXPECT_NE(twin.out.find("data-xss=\""), std::string::npos) << twin.out;
}

}  // namespace
}  // namespace devparity
