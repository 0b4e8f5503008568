// Golden-file tests of every output a person reads (googletest's output
// tests, Catch2's approval baselines): one fixed run of hand-made results -
// a pass, a parity failure with its statistics, a placement failure with a
// finding, an error, skips with reasons - goes through the console, JSON,
// JUnit and HTML writers, and two such reports through diff (text, markdown,
// JSON) and merge. Each output must equal its file in tests/golden/ byte for
// byte. After an intended change, regenerate them with
//   DEVPARITY_UPDATE_GOLDENS=1 build/release/tests/devparity_tests --gtest_filter='GoldenOutputs.*'
// and read the change in `git diff tests/golden` before committing it.
#include "harness/builtins.h"
#include "harness/report/diff.h"
#include "harness/report/html.h"
#include "harness/report/junit.h"
#include "harness/report/merge.h"
#include "harness/report/packed_report.h"
#include "harness/report/report_file.h"
#include "harness/reporters/reporter_registry.h"
#include "harness/trace/finding.h"
#include "tests/support/temp_dir.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <regex>
#include <sstream>

namespace devparity {
namespace {

using nlohmann::json;

// The version and commit change with every release: outputs name them as these.
constexpr const char* kVersion = "9.9.9-golden";

CheckOutcome check(const std::string& name, Status status, const std::string& message, json stats = json::object()) {
  auto c = CheckOutcome::verdict(name, status, message);
  c.describe = name == "parity" ? "output matches the reference within atol 1e-05, rtol 1e-05"
                                : name == "placement" ? "no placement errors (warnings are reported)"
                                                      : "the subject runs on the device and returns a tensor";
  c.stats = std::move(stats);
  return c;
}

TrialResult trial(const std::string& case_name, const std::string& device, std::vector<CheckOutcome> checks,
                  double ms) {
  TrialResult r;
  r.case_name = case_name;
  r.subject = case_name == "blur" ? "gaussian_blur2d" : "resize";
  r.suite = "cases/golden.json";
  r.dtype = "float32";
  r.device = device;
  r.resolved_device = device == "cuda:0" ? "" : device;
  r.reference_device = "cpu";
  r.reference_subject = r.subject;
  r.input = "noise-1x3x8x8";
  r.shape = {1, 3, 8, 8};
  r.seed = 11;
  r.params = {{"size", {4, 4}}};
  r.id = case_name + "/" + r.subject + "/float32/" + device + "/noise-1x3x8x8";
  r.duration_ms = ms;
  r.checks = std::move(checks);
  r.finalize();
  return r;
}

Finding stray_arange() {
  Finding f;
  f.kind = "device_mismatch";
  f.op = "aten::mul.Tensor";
  f.scopes = {"gaussian_blur2d", "gaussian_kernel"};
  f.message = "a cpu tensor met vdev:1 data in aten::mul.Tensor";
  f.device = "cpu";
  f.shape = {5};
  f.dtype = "float32";
  f.made_at = "filters.py:12";
  return f;
}

// One run's results; `later` is the next release's: the blur fixed, resize
// on vdev:1 newly failing, its PSNR down.
std::vector<TrialResult> results(bool later) {
  const json close = {{"max_abs", 0.0}, {"psnr_db", json(nullptr)}, {"mismatched", 0}, {"elements", 48}};
  const json apart = {{"max_abs", later ? 0.25 : 2e-7}, {"psnr_db", later ? 31.5 : 140.2}, {"mismatched", later ? 3 : 0},
                      {"elements", 48}};
  auto placement = check("placement", later ? Status::kPass : Status::kFail,
                         later ? "no findings in 12 traced op(s)" : "1 error in 12 traced op(s): device_mismatch");
  if (!later) placement.findings.push_back(stray_arange().to_json());
  std::vector<TrialResult> out;
  out.push_back(trial("resize", "cpu", {check("run", Status::kPass, "ran on cpu in 1.000 ms (reference output for this group)")}, 1.0));
  out.push_back(trial("resize", "vdev:1",
                      {check("run", Status::kPass, "ran on vdev:1 in 2.000 ms"),
                       check("parity", later ? Status::kFail : Status::kPass,
                             later ? "3 of 48 elements differ beyond atol 1e-05, rtol 1e-05; max |diff| 0.25"
                                   : "48 of 48 elements within atol 1e-05, rtol 1e-05; max |diff| 2e-07",
                             apart)},
                      2.0));
  out.push_back(trial("resize", "cuda:0", {check("run", Status::kSkip, "no CUDA device visible on this machine")}, 0));
  out.push_back(trial("blur", "vdev:1",
                      {check("run", Status::kPass, "ran on vdev:1 in 3.000 ms"),
                       check("parity", Status::kPass, "48 of 48 elements within atol 1e-05, rtol 1e-05", close),
                       std::move(placement)},
                      3.0));
  out.push_back(trial("blur", "meta",
                      {check("run", Status::kError, "RuntimeError: expected scalar type Float but found Double",
                             {{"error_kind", "exception"}})},
                      0.5));
  return out;
}

// The JSON report of one run, written by the JSON reporter; the console's
// text goes to `console` when given. Shard 1 of 2 is the resize case, 2 the blur.
json run_report(const testing::TempDir& dir, const std::string& name, bool later, std::ostream* console = nullptr,
                int shard = 0) {
  register_builtins();
  ListenerList listeners;
  ReporterOptions jo;
  jo.path = dir.file(name);
  jo.base_dir = dir.path();
  listeners.add(ReporterRegistry::global().make("json", jo));
  if (console != nullptr) {
    ReporterOptions co;
    co.stream = console;
    listeners.add(ReporterRegistry::global().make("console", co));
  }
  RunInfo info;
  info.tool = {{"name", "devparity"}, {"version", kVersion}, {"git", "0123456789ab"}};
  info.run = {{"started_at", "2026-01-02T03:04:05Z"}, {"argv", {"devparity", "run", "--suite", "cases/golden.json"}},
              {"seed", nullptr}, {"suites", {"cases/golden.json"}}, {"placement", "warn"}, {"filter", ""},
              {"devices",
               {{{"name", "cpu"}, {"present", true}, {"resolved", "cpu"}, {"simulated", false}},
                {{"name", "cuda:0"}, {"present", false}, {"reason", "no CUDA device visible on this machine"},
                 {"simulated", false}},
                {{"name", "vdev:1"}, {"present", true}, {"resolved", "vdev:1"}, {"simulated", true}},
                {{"name", "meta"}, {"present", true}, {"resolved", "meta"}, {"simulated", true}}}},
              {"dtypes", json::array()}, {"planned_trials", 5}, {"timeout_s", 300.0},
              {"report", name}, {"junit", nullptr}, {"html", nullptr}, {"baseline", nullptr}, {"isolate", nullptr}};
  info.environment = {{"torch_version", "0.0.0"}, {"cuda_compiled", false}, {"cuda_available", false},
                      {"devices", {{{"name", "cpu"}, {"kind", "cpu"}, {"model", "a CPU"}, {"present", true},
                                    {"simulated", false}}}}};
  auto rows = results(later);
  if (shard != 0) {
    info.run["shard"] = std::to_string(shard) + "/2";
    rows.erase(std::remove_if(rows.begin(), rows.end(),
                              [&](const TrialResult& r) { return (r.case_name == "resize") != (shard == 1); }),
               rows.end());
  }
  info.planned_trials = static_cast<int64_t>(rows.size());
  info.run["planned_trials"] = info.planned_trials;
  listeners.on_run_start(info);
  RunSummary summary;
  CaseInfo current;
  StatusCounts counts;
  auto end_case = [&] {
    if (!current.name.empty()) listeners.on_case_end(current, counts);
    counts = {};
  };
  for (const auto& r : rows) {
    if (r.case_name != current.name) {
      end_case();
      current = {"cases/golden.json", r.case_name, r.subject, "", r.case_name == "resize" ? 3 : 2};
      listeners.on_case_start(current);
    }
    listeners.on_trial_start(r.id);
    listeners.on_trial_end(r);
    counts.add(r.status);
    summary.add(r);
  }
  end_case();
  summary.duration_s = 1.25;
  listeners.on_run_end(summary);
  return load_report(jo.path);
}

std::string golden_path(const std::string& name) { return std::string(DEVPARITY_SOURCE_DIR) + "/tests/golden/" + name; }

// `actual` against tests/golden/`name` (or written there when updating).
void expect_golden(const std::string& name, const std::string& actual) {
  const auto path = golden_path(name);
  if (const char* update = std::getenv("DEVPARITY_UPDATE_GOLDENS"); update != nullptr && std::string(update) == "1") {
    std::ofstream(path, std::ios::binary) << actual;
    return;
  }
  const auto expected = testing::read_text(path);
  if (expected == actual) return;
  // The first line that differs, to read without a diff tool.
  std::istringstream e(expected), a(actual);
  std::string el, al;
  int line = 1;
  while (std::getline(e, el) && std::getline(a, al) && el == al) ++line;
  ADD_FAILURE() << "tests/golden/" << name << " differs from the output at line " << line << ":\n  golden: " << el
                << "\n  output: " << al << "\n(" << expected.size() << " vs " << actual.size()
                << " bytes; after an intended change run with DEVPARITY_UPDATE_GOLDENS=1 and read git diff)";
}

TEST(GoldenOutputs, ConsoleJsonJunitAndHtml) {
  testing::TempDir dir;
  std::ostringstream console;
  auto report = run_report(dir, "report.json", false, &console);
  expect_golden("console.txt", console.str());
  expect_golden("report.json", testing::read_text(dir.file("report.json")));  // as written: packed
  expect_golden("junit.xml", junit_xml(report));
  // The script nonce is drawn per page (the Content-Security-Policy's point).
  expect_golden("report.html",
                std::regex_replace(html_report(report, {dir.path(), 200}), std::regex("nonce(-|=\")[0-9a-f]+"), "nonce$1N"));
}

TEST(GoldenOutputs, DiffInEveryFormatAndMerge) {
  testing::TempDir dir;
  const auto before = run_report(dir, "before.json", false);
  const auto after = run_report(dir, "after.json", true);
  auto diff = diff_reports(before, after);
  diff.old_path = "before.json";
  diff.new_path = "after.json";
  expect_golden("diff.txt", diff.to_text());
  expect_golden("diff.md", diff.to_markdown());
  expect_golden("diff.json", diff.to_json().dump(1) + "\n");
  const auto first = run_report(dir, "shard1.json", false, nullptr, 1);
  const auto second = run_report(dir, "shard2.json", false, nullptr, 2);
  expect_golden("merge.json", report_text(pack_report(merge_reports({{"shard1.json", first}, {"shard2.json", second}}))));
}

}  // namespace
}  // namespace devparity
