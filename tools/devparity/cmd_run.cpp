#include "harness/core/case.h"
#include "harness/core/device.h"
#include "harness/core/dtype.h"
#include "harness/core/error.h"
#include "harness/core/runner.h"
#include "harness/core/trial.h"
#include "harness/report/environment.h"
#include "harness/report/reporter_registry.h"
#include "harness/trace/tracer.h"
#include "harness/core/vdev.h"
#include "tools/devparity/commands.h"

#include <fmt/format.h>

#include <cstdlib>
#include <iostream>
#include <unistd.h>

namespace devparity::cli {
namespace {

bool use_color(const std::string& setting) {
  if (setting == "always") return true;
  if (setting == "never") return false;
  return ::isatty(STDOUT_FILENO) && std::getenv("NO_COLOR") == nullptr;
}

nlohmann::json devices_json(const std::vector<DeviceTarget>& devices) {
  auto out = nlohmann::json::array();
  for (const auto& d : devices) {
    nlohmann::json j = {{"name", d.name}, {"present", d.available()}, {"simulated", d.simulated()}};
    if (d.available()) {
      j["resolved"] = d.resolved_name();
    } else {
      j["reason"] = d.absent_reason;
    }
    out.push_back(j);
  }
  return out;
}

}  // namespace

int cmd_run(const Options& options) {
  const auto& o = options.run;
  if (o.placement != "off") Tracer::self_test();
  vdev::install(o.vdev_count);
  const auto inventory = DeviceInventory::probe();
  const auto devices = parse_device_list(o.devices, inventory);

  PlanOptions plan_options;
  plan_options.devices = devices;
  if (!o.dtypes.empty()) plan_options.dtypes = parse_dtype_list(o.dtypes);
  plan_options.filter = o.filter;
  plan_options.seed = o.seed;

  std::vector<std::string> paths = o.suites;
  if (paths.empty()) paths.push_back(default_suite_path());
  std::vector<Suite> suites;
  for (const auto& path : paths) suites.push_back(load_suite(path, inventory));

  const auto plan = make_plan(suites, plan_options, inventory);
  if (plan.trial_count() == 0) {
    throw UsageError(fmt::format("no trials selected (suites: {}; filter: '{}'; dtypes: '{}')",
                                 fmt::join(paths, ", "), o.filter, o.dtypes));
  }

  ListenerList listeners;
  ReporterOptions console;
  console.stream = &std::cout;
  console.quiet = o.quiet;
  console.verbose = o.verbose;
  console.color = use_color(o.color);
  console.interactive = ::isatty(STDOUT_FILENO) != 0;
  // The console is first, so its end-of-run summary comes after the report
  // is written (end events run in reverse).
  listeners.add(ReporterRegistry::global().make("console", console));
  ReporterOptions json;
  json.path = o.report;
  listeners.add(ReporterRegistry::global().make("json", json));

  RunInfo info;
  info.tool = describe_tool();
  std::vector<std::string> dtype_names;
  if (plan_options.dtypes) {
    for (auto t : *plan_options.dtypes) dtype_names.push_back(dtype_name(t));
  }
  info.run = {{"started_at", utc_timestamp()},
              {"argv", options.argv},
              {"seed", o.seed ? nlohmann::json(*o.seed) : nlohmann::json(nullptr)},
              {"suites", paths},
              {"devices", devices_json(devices)},
              {"dtypes", dtype_names},
              {"filter", o.filter},
              {"placement", o.placement},
              {"report", o.report}};
  info.environment = describe_environment(inventory);

  RunnerOptions runner_options;
  runner_options.placement = o.placement;
  Runner runner(listeners, runner_options);
  const auto summary = runner.run(plan, info);
  if (!o.quiet) std::cout << "report: " << o.report << "\n";
  return summary.exit_code();
}

}  // namespace devparity::cli
