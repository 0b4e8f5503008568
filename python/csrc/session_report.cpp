// The pytest plugin's --devparity-report: the session's traced tests, one
// result each (built by devparity/_session_report.py), reported through the
// session's reporters and totals (harness/session/session.h), so that the
// plugin's report is written, counted and locked as `devparity run`'s is.
#include "harness/base/error.h"
#include "harness/device/device.h"
#include "harness/model/results.h"
#include "harness/session/session.h"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <nlohmann/json.hpp>
#include <torch/library.h>

#include <string>
#include <vector>

namespace {

// `options_json`: report, argv, suites, devices (names), placement,
// started_at, duration_s. `results_json`: the results, in test order.
void session_report(const std::string& results_json, const std::string& options_json) {
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
    std::vector<devparity::TrialResult> results;
    for (const auto& r : nlohmann::json::parse(results_json)) results.push_back(devparity::TrialResult::from_json(r));
    devparity::report_session(c, results, o.at("duration_s").get<double>(), inventory);
  } catch (const devparity::UsageError& e) {
    TORCH_CHECK_VALUE(false, "devparity: --devparity-report: ", e.what());
  } catch (const devparity::InputError& e) {
    TORCH_CHECK_VALUE(false, "devparity: --devparity-report: ", e.what());
  }
}

}  // namespace

TORCH_LIBRARY_FRAGMENT(devparity, m) {
  m.def("session_report(str results, str options) -> ()", &session_report);
}
