#pragma once
// Runs a suite given as JSON text through the real loader, planner and session.

#include "harness/builtins.h"
#include "harness/device/device.h"
#include "harness/vdev/vdev.h"
#include "harness/reporters/environment.h"
#include "harness/session/session.h"
#include "harness/suite/case.h"
#include "harness/suite/plan.h"
#include "tests/support/event_recorder.h"
#include "tests/support/temp_dir.h"

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace devparity::testing {

/// A RunInfo as the CLI fills it (schema-valid).
inline RunInfo test_run_info() {
  RunInfo info;
  info.tool = describe_tool();
  info.run = {{"started_at", utc_timestamp()}, {"argv", {"devparity_tests"}},
              {"suites", {"suite.json"}}, {"devices", nlohmann::json::array()}, {"seed", nullptr}};
  info.environment = describe_environment(DeviceInventory::probe());
  return info;
}

/// Loads `suite` from a temporary file and runs it through run_session() on
/// `devices` with an inventory of `cuda_count` CUDA devices and no reports;
/// `also` receives the events too; `config` says how the session runs (its
/// devices, filter and listeners are set here).
inline EventRecorder run_suite(const nlohmann::json& suite, const std::string& devices = "cpu,meta",
                               int cuda_count = 0, const std::string& filter = "",
                               RunListener* also = nullptr, RunConfig config = {}) {
  register_builtins();
  TempDir dir;
  const auto path = dir.write("suite.json", suite.dump(2));
  auto inventory = DeviceInventory::probe();
  inventory.cuda_count = cuda_count;
  const std::vector<Suite> suites = {load_suite(path, inventory)};
  config.argv = {"devparity_tests"};
  config.suites = {path};
  config.plan.devices = parse_device_list(devices, inventory);
  config.plan.filter = filter;
  config.console.show = false;
  EventRecorder recorder;
  config.listeners = {&recorder};
  if (also != nullptr) config.listeners.push_back(also);
  run_session(config, suites, inventory);
  return recorder;
}

}  // namespace devparity::testing
