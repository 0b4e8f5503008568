// The pytest plugin's --devparity-report: the session's traced tests, one
// result each (built here from what the plugin saw of each test), reported through the
// session's reporters and totals (harness/session/session.h), so that the
// plugin's report is written, counted and locked as `devparity run`'s is.
#include "harness/base/atomic_file.h"
#include "harness/base/error.h"
#include "harness/builtins.h"
#include "harness/device/device.h"
#include "harness/model/results.h"
#include "harness/report/merge.h"
#include "harness/report/packed_report.h"
#include "harness/session/session.h"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <nlohmann/json.hpp>
#include <torch/library.h>

#include <set>
#include <string>
#include <vector>

namespace {

// One traced test as a result (reports/schema): its node id, on the device it
// was judged against, with one "placement" check holding its findings, so
// that `devparity diff`, `merge` and `html` read it. `test`: what the plugin
// saw of it: id, device (devparity's name), status, ops, findings (the
// tracer's), duration_ms, mode, and random_sweep and skipped_because when set.
devparity::TrialResult traced_test_result(const nlohmann::json& test) {
  const auto& findings = test.at("findings");
  int64_t errors = 0, warnings = 0, notes = 0;
  for (const auto& f : findings) {
    const auto severity = f.value("severity", "");
    errors += severity == "error";
    warnings += severity == "warning";
    notes += severity == "note";
  }
  const auto ops = test.at("ops").get<int64_t>();
  auto message = fmt::format("{} error(s), {} warning(s) in {} traced op(s)", errors, warnings, ops);
  if (!findings.empty()) {
    message += fmt::format("; first: [{}] {}", findings[0].value("kind", ""), findings[0].value("message", ""));
  }
  const auto skipped_because = test.value("skipped_because", nlohmann::json());
  if (skipped_because.is_string()) message = fmt::format("skipped: {} ({})", skipped_because.get<std::string>(), message);
  const auto status = devparity::parse_status(test.at("status").get<std::string>());
  if (!status) throw devparity::InputError("a traced test's status is " + test.at("status").dump());
  devparity::CheckOutcome check = devparity::CheckOutcome::verdict("placement", *status, message);
  check.describe = "no placement errors while the test ran (pytest --devparity-trace)";
  check.stats = {{"errors", errors}, {"warnings", warnings}, {"notes", notes}, {"ops_traced", ops},
                 {"mode", test.at("mode")}};
  // The seeds its reruns ran under (Note [Random gates]).
  const auto sweep = test.value("random_sweep", nlohmann::json());
  if (!sweep.is_null() && !sweep.empty()) check.stats["random_sweep_seeds"] = sweep;
  check.findings = findings;
  devparity::TrialResult r;
  r.id = test.at("id").get<std::string>();
  const auto split = r.id.find("::");
  r.suite = r.id.substr(0, split);
  r.subject = split == std::string::npos ? "" : r.id.substr(split + 2);
  // The schema's case is an identifier: each character of the test's path that is not an ASCII letter,
  // digit or underscore becomes one '_' (a UTF-8 character's continuation bytes add none).
  for (const char ch : r.suite) {
    const auto byte = static_cast<unsigned char>(ch);
    if ((byte & 0xC0) == 0x80) continue;
    const bool word = (byte >= 'a' && byte <= 'z') || (byte >= 'A' && byte <= 'Z') || (byte >= '0' && byte <= '9') ||
                      byte == '_';
    r.case_name += word ? ch : '_';
  }
  if (r.case_name.empty()) r.case_name = "tests";
  r.device = r.resolved_device = r.reference_device = test.at("device").get<std::string>();
  r.reference_subject = r.subject;
  r.status = *status;
  r.message = message;
  r.duration_ms = test.at("duration_ms").get<double>();
  r.checks = {std::move(check)};
  return r;
}

// `options_json`: report, argv, placement, started_at, duration_s, and shard
// ("I/N") when the plugin ran one. `tests_json`: what the plugin saw of each
// traced test (traced_test_result()), in test order.
void session_report(const std::string& tests_json, const std::string& options_json) {
  devparity::register_builtins();  // the reporters (a pytest-xdist controller calls nothing else first)
  try {
    const auto o = nlohmann::json::parse(options_json);
    const auto inventory = devparity::DeviceInventory::probe();
    devparity::RunConfig c;
    std::vector<devparity::TrialResult> results;
    std::set<std::string> suites, names;
    for (const auto& test : nlohmann::json::parse(tests_json)) {
      results.push_back(traced_test_result(test));
      suites.insert(results.back().suite);
      names.insert(results.back().device);
    }
    c.argv = o.at("argv").get<std::vector<std::string>>();
    c.suites.assign(suites.begin(), suites.end());
    const std::vector<std::string> devices(names.begin(), names.end());
    try {
      if (!devices.empty()) c.plan.devices = devparity::parse_device_list(fmt::format("{}", fmt::join(devices, ",")), inventory);
    } catch (const devparity::UsageError&) {
      // A device devparity does not run (mps, xpu): recorded as the plugin saw it.
      auto& listed = c.run_fields["devices"] = nlohmann::json::array();
      for (const auto& d : devices) listed.push_back({{"name", d}, {"present", true}, {"resolved", d}});
    }
    c.placement = devparity::parse_placement(o.at("placement").get<std::string>(), "--devparity-placement");
    c.report = o.at("report").get<std::string>();
    c.report_option = "--devparity-report";
    c.console.show = false;
    c.run_fields["started_at"] = o.at("started_at");
    if (o.contains("shard")) c.run_fields["shard"] = o.at("shard");
    devparity::report_session(c, results, o.at("duration_s").get<double>(), inventory);
  } catch (const devparity::UsageError& e) {
    TORCH_CHECK_VALUE(false, "devparity: --devparity-report: ", e.what());
  } catch (const devparity::InputError& e) {
    TORCH_CHECK_VALUE(false, "devparity: --devparity-report: ", e.what());
  }
}

// A pytest-xdist run: each worker wrote its part with session_report(); the
// controller joins them with `devparity merge`'s own merge. `gaps` are what
// keeps the parts from being the whole session (a worker that died, a test it
// was running): the merged report is then marked incomplete, as merge marks a
// missing shard.
void merge_session_parts(const std::vector<std::string>& parts, const std::string& output,
                         const std::vector<std::string>& gaps) {
  devparity::register_builtins();
  try {
    std::vector<devparity::MergeInput> inputs;
    for (const auto& path : parts) inputs.push_back(devparity::read_merge_input(path));
    auto merged = devparity::merge_inputs(std::move(inputs));
    merged["run"]["report"] = output;
    if (!gaps.empty()) {
      auto& interrupted = merged["summary"]["interrupted"];
      if (!interrupted.is_object()) interrupted = {{"signal", "incomplete"}};
      auto all = interrupted.value("gaps", std::vector<std::string>{});
      all.insert(all.end(), gaps.begin(), gaps.end());
      interrupted["gaps"] = all;
      interrupted["message"] = fmt::format("pytest-xdist workers' parts are not the whole session: {}",
                                           fmt::join(all, "; "));
    }
    devparity::ensure_parent_directory(output);
    devparity::write_file_atomic(output, devparity::report_text(devparity::pack_report(std::move(merged))));
  } catch (const devparity::InputError& e) {
    TORCH_CHECK_VALUE(false, "devparity: --devparity-report: ", e.what());
  }
}

}  // namespace

TORCH_LIBRARY_FRAGMENT(devparity, m) {
  m.def("session_report(str tests, str options) -> ()", &session_report);
  m.def("merge_session_parts(str[] parts, str output, str[] gaps) -> ()", &merge_session_parts);
}
