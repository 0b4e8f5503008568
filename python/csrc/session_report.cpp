// The pytest plugin's --devparity-report: the session's traced tests, one
// result each (built by devparity/_session_report.py), reported through the
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

#include <string>
#include <vector>

namespace {

// `options_json`: report, argv, suites, devices (names), placement,
// started_at, duration_s, and shard ("I/N") when the plugin ran one. `results_json`: the results, in test order.
void session_report(const std::string& results_json, const std::string& options_json) {
  devparity::register_builtins();  // the reporters (a pytest-xdist controller calls nothing else first)
  try {
    const auto o = nlohmann::json::parse(options_json);
    const auto inventory = devparity::DeviceInventory::probe();
    devparity::RunConfig c;
    c.argv = o.at("argv").get<std::vector<std::string>>();
    c.suites = o.at("suites").get<std::vector<std::string>>();
    const auto devices = o.at("devices").get<std::vector<std::string>>();
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
    std::vector<devparity::TrialResult> results;
    for (const auto& r : nlohmann::json::parse(results_json)) results.push_back(devparity::TrialResult::from_json(r));
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
  m.def("session_report(str results, str options) -> ()", &session_report);
  m.def("merge_session_parts(str[] parts, str output, str[] gaps) -> ()", &merge_session_parts);
}
