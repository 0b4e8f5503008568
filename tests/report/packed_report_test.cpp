#include "harness/base/error.h"
#include "harness/report/document.h"
#include "harness/report/packed_report.h"
#include "harness/report/report_file.h"
#include "tests/support/run_suite.h"
#include "tests/support/schema.h"

#include <gtest/gtest.h>

#include <cstdlib>

#include <string>
#include <vector>

namespace devparity {
namespace {

using nlohmann::json;

CheckOutcome check(const std::string& name, Status status, const std::string& message, json stats = json::object()) {
  auto c = CheckOutcome::verdict(name, status, message);
  c.describe = name == "run" ? "the subject runs on the device and returns a tensor" : "output matches the reference";
  c.stats = std::move(stats);
  return c;
}

TrialResult trial(const std::string& case_name, const std::string& variant, const std::string& device, int input,
                  std::vector<CheckOutcome> checks) {
  TrialResult r;
  r.suite = "cases/default.json";
  r.case_name = case_name;
  r.subject = "resize";
  r.variant = variant;
  r.dtype = "float32";
  r.device = device;
  r.resolved_device = device;
  r.reference_device = "cpu";
  r.reference_subject = "resize";
  r.input = "noise-" + std::to_string(input);
  r.id = case_name + "/resize" + (variant.empty() ? "" : "[" + variant + "]") + "/float32/" + device + "/" + r.input;
  r.shape = {1, 3, 8, 8};
  r.seed = 1000 + input;
  r.params = {{"size", {4, 4}}, {"interpolation", variant.empty() ? "bilinear" : variant}};
  r.checks = std::move(checks);
  r.finalize();
  r.duration_ms = r.checks.front().stats.value("duration_ms", 0.0);
  return r;
}

json parity_stats(double max_abs) {
  return {{"max_abs", max_abs}, {"psnr_db", max_abs == 0.0 ? json("Infinity") : json(90.5)},
          {"tolerance", {{"atol", 1e-5}, {"rtol", 1e-5}, {"mismatch_fraction", 0.0}, {"default", true},
                         {"reason", "float32 default"}}}};
}

// A report with what packing meets: repeated checks and values, one-off statistics, failures
// with findings, rows that never ran, a reference row, and results that break each rule.
json sample_report() {
  std::vector<TrialResult> rows;
  for (int input = 0; input < 6; ++input) {
    for (const char* variant : {"", "nearest"}) {
      rows.push_back(trial("up", variant, "cpu", input, {check("run", Status::kPass, "ran", {{"duration_ms", 0.5 + input}})}));
      rows.push_back(trial("up", variant, "vdev:1", input,
                           {check("run", Status::kPass, "ran", {{"duration_ms", 1.25 * input}}),
                            check("parity", Status::kPass, "identical to the reference", parity_stats(0.0))}));
      rows.push_back(trial("up", variant, "cuda:0", input, {check("run", Status::kSkip, "no CUDA device"),
                                                             check("parity", Status::kSkip, "no CUDA device")}));
    }
  }
  auto failing = trial("blur", "", "meta", 9,
                       {check("run", Status::kPass, "ran", {{"duration_ms", 2.0}}),
                        check("parity", Status::kFail, "max |diff| 0.5", parity_stats(0.5))});
  failing.checks[1].findings = json::array({{{"kind", "device_mismatch"}, {"severity", "error"}, {"op", "aten::mul"},
                                              {"count", 1}, {"device", "meta"}, {"message", "cpu tensor met meta"},
                                              {"scopes", json::array()}}});
  failing.checks[1].artifacts = json::array({{{"path", "r-artifacts/x.npy"}}});
  rows.push_back(failing);
  auto renamed = trial("blur", "", "vdev:0", 9, {check("run", Status::kPass, "ran", {{"duration_ms", 3.0}})});
  renamed.message = "said otherwise";      // not what the checks decide
  renamed.duration_ms = 7.5;              // not the run check's
  renamed.suite = "cases/other.json";     // not the default
  renamed.resolved_device = "vdev:3";     // not the device
  renamed.reference_subject = "blur_ref"; // not the subject
  renamed.reference_params = {{"k", 3}};
  renamed.interleaving_seed = 42;
  rows.push_back(renamed);
  auto odd = trial("odd", "", "cpu", 1, {check("run", Status::kPass, "ran", {{"duration_ms", 1.0}})});
  odd.id = "a/b/c";  // an id that does not spell the fields: they stay written
  rows.push_back(odd);
  RunInfo info = testing::test_run_info();
  RunSummary summary;
  auto results = json::array();
  for (const auto& r : rows) {
    summary.add(r);
    results.push_back(r.to_json());
  }
  return assemble_report(info, summary, std::move(results));
}

// What a trial that never ran keeps: everything but what it sampled.
json without_sampled(json r) {
  bool ran = false;
  for (const auto& c : r["checks"]) ran = ran || c["status"] != "skip";
  if (!ran) {
    for (const char* key : {"seed", "params", "shape", "interleaving_seed"}) r.erase(key);
  }
  return r;
}

std::map<std::string, json> by_id(const json& report) {
  std::map<std::string, json> out;
  for_each_result(report, [&](json r, const std::string&) {
    const auto id = r.at("id").get<std::string>();
    out[id] = std::move(r);
  });
  return out;
}

TEST(PackedReportTest, ReadsBackEveryResultInFull) {
  const auto full = sample_report();
  const auto text = report_text(pack_report(full));
  const auto read = parse_report("r.json", text);
  EXPECT_EQ(read["schema_version"], kReportSchemaVersion);
  const auto before = by_id(full), after = by_id(read);
  ASSERT_EQ(before.size(), after.size());
  for (const auto& [id, r] : before) {
    ASSERT_TRUE(after.count(id)) << id;
    EXPECT_EQ(after.at(id), without_sampled(r)) << id;
  }
  EXPECT_EQ(result_count(read), before.size());
  EXPECT_EQ(unpack_report(read)["results"].size(), before.size());
  EXPECT_EQ(testing::report_schema_errors(json::parse(text)), std::vector<std::string>{});
  EXPECT_EQ(testing::report_schema_errors(unpack_report(read)), std::vector<std::string>{});
}

TEST(PackedReportTest, WritesRepeatedValuesOnceAndGroupsTrialsThatNeverRan) {
  const auto packed = pack_report(sample_report());
  const auto text = report_text(packed);
  // In the results (the summary's coverage names a skip reason too).
  const auto results_text = text.substr(text.find("\n  \"results\""));
  auto occurrences = [&](const std::string& needle) {
    size_t n = 0;
    for (auto at = results_text.find(needle); at != std::string::npos; at = results_text.find(needle, at + 1)) ++n;
    return n;
  };
  EXPECT_EQ(occurrences("identical to the reference"), 1u);
  EXPECT_EQ(occurrences("output matches the reference"), 1u);
  EXPECT_EQ(occurrences("the subject runs on the device"), 1u);
  // The 12 CUDA rows share one reason: one group, every id listed.
  ASSERT_EQ(packed["skipped"].size(), 1u);
  EXPECT_EQ(packed["skipped"][0]["ids"].size(), 12u);
  EXPECT_EQ(occurrences("no CUDA device"), 1u);
  // A rule a result breaks keeps its field written; the id that does not split keeps its own.
  const auto& results = packed["results"];
  const auto renamed = std::find_if(results.begin(), results.end(), [](const json& r) { return r["id"] == "blur/resize/float32/vdev:0/noise-9"; });
  ASSERT_NE(renamed, results.end());
  for (const char* key : {"message", "duration_ms", "suite", "resolved_device", "reference_subject", "reference_params"}) {
    EXPECT_TRUE(renamed->contains(key)) << key;
  }
  EXPECT_FALSE(renamed->contains("status"));
  const auto odd = std::find_if(results.begin(), results.end(), [](const json& r) { return r["id"] == "a/b/c"; });
  ASSERT_NE(odd, results.end());
  EXPECT_TRUE(odd->contains("case") && odd->contains("device") && odd->contains("input"));
  // One line per result.
  EXPECT_NE(text.find("\n    {\"checks\""), std::string::npos);
}

TEST(PackedReportTest, GrowsWithTheTrialsThatRanAndNotWithThoseThatDidNot) {
  auto report_of = [](int trials, int skipped) {
    auto results = json::array();
    for (int i = 0; i < trials + skipped; ++i) {
      const bool ran = i < trials;
      auto r = trial("up", "", ran ? "vdev:1" : "cuda:0", i,
                     {check("run", ran ? Status::kPass : Status::kSkip, ran ? "ran" : "no CUDA device",
                            ran ? json{{"duration_ms", 0.25 * i}} : json::object()),
                      check("parity", ran ? Status::kPass : Status::kSkip, ran ? "identical to the reference" : "no CUDA device",
                            ran ? parity_stats(0.0) : json::object())});
      results.push_back(r.to_json());
    }
    return report_text(pack_report(assemble_report(testing::test_run_info(), RunSummary{}, std::move(results))));
  };
  const auto small = report_of(100, 0).size(), large = report_of(1000, 0).size();
  const auto per_trial = static_cast<double>(large - small) / 900.0;
  EXPECT_LT(per_trial, 260.0);
  // A skipped trial costs its id.
  const auto with_skips = report_of(1000, 1000).size();
  EXPECT_LT(static_cast<double>(with_skips - large) / 1000.0, 40.0);
}

TEST(PackedReportTest, ABadReferenceIsAnInputErrorNamingTheField) {
  auto packed = pack_report(sample_report());
  packed["results"][0]["checks"][0] = 100000;
  try {
    parse_report("r.json", report_text(packed));
    FAIL() << "read";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("/results/0/checks/0: a reference to shared value 100000"), std::string::npos)
        << e.what();
    EXPECT_NE(std::string(e.what()).find("r.json:"), std::string::npos) << e.what();
  }
  packed = pack_report(sample_report());
  packed["skipped"][0]["ids"][1] = 5;
  EXPECT_THROW(parse_report("r.json", report_text(packed)), InputError);
  packed = pack_report(sample_report());
  packed["skipped"][0]["ids"][1] = packed["results"][0].value("id", "");  // a repeated id
  EXPECT_THROW(parse_report("r.json", report_text(packed)), InputError);
  packed = pack_report(sample_report());
  packed["schema_version"] = 3;
  EXPECT_THROW(parse_report("r.json", report_text(packed)), InputError);
}

// A packed report whose values are written once and referred to many times.
std::string amplified(int skipped_ids, int ran_results) {
  const std::string big(100 * 1024, 'x');
  auto results = json::array();
  RunSummary summary;
  for (int i = 0; i < skipped_ids + ran_results; ++i) {
    const bool ran = i < ran_results;
    const auto r = trial("up", "", ran ? "vdev:1" : "cuda:0", i,
                         {check("run", ran ? Status::kPass : Status::kSkip, big + (ran ? "" : "-skip"),
                                ran ? json{{"duration_ms", 0.25 * i}} : json::object())});
    summary.add(r);
    results.push_back(r.to_json());
  }
  return report_text(pack_report(assemble_report(testing::test_run_info(), summary, std::move(results))));
}

class MaxUnpacked {
 public:
  explicit MaxUnpacked(const char* value) { ::setenv("DEVPARITY_MAX_UNPACKED_MB", value, 1); }
  ~MaxUnpacked() { ::unsetenv("DEVPARITY_MAX_UNPACKED_MB"); }
};

TEST(PackedReportTest, AReportThatWouldUnpackPastTheBoundIsRefusedNamingIt) {
  // Issue 56: 2 MB referring to a 200 KB message 50,000 times unpacked to 10 GB (std::bad_alloc).
  const MaxUnpacked one("1");
  for (const auto& [skipped, ran] : std::vector<std::pair<int, int>>{{30, 0}, {0, 30}}) {
    const auto text = amplified(skipped, ran);
    EXPECT_LT(text.size(), 300u * 1024) << "the values are written once";
    try {
      parse_report("big.json", text);
      ADD_FAILURE() << skipped << " " << ran << ": read";
    } catch (const InputError& e) {
      const std::string what = e.what();
      EXPECT_NE(what.find("big.json:"), std::string::npos) << what;
      EXPECT_NE(what.find("expands past the 1 MiB devparity unpacks (set DEVPARITY_MAX_UNPACKED_MB to raise it)"),
                std::string::npos)
          << what;
      EXPECT_EQ(what.find("is this a devparity report"), std::string::npos) << what;
    }
  }
  // The twins: the same kind of report within the bound reads in full.
  EXPECT_EQ(result_count(parse_report("small.json", amplified(5, 4))), 9u);
}

TEST(PackedReportTest, ABadUnpackedBoundNamesTheVariable) {
  const MaxUnpacked bad("ten");
  try {
    parse_report("r.json", report_text(pack_report(sample_report())));
    FAIL() << "read";
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("DEVPARITY_MAX_UNPACKED_MB='ten'"), std::string::npos) << e.what();
  }
}

TEST(PackedReportTest, SchemaOneReportsReadAsTheyAre) {
  auto full = sample_report();
  full["schema_version"] = 1;
  const auto read = parse_report("old.json", full.dump(2));
  EXPECT_EQ(by_id(read), by_id(full));
  full["shared"] = json::array();  // a packed field in a schema 1 report
  EXPECT_THROW(parse_report("old.json", full.dump(2)), InputError);
}

}  // namespace
}  // namespace devparity
