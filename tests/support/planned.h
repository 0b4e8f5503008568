#pragma once
// A suite given as JSON, loaded and planned as a run plans it, for tests of
// the layers below the session (a group's run, the checks' dispatch).

#include "harness/builtins.h"
#include "harness/device/device.h"
#include "harness/suite/case.h"
#include "harness/suite/plan.h"
#include "tests/support/temp_dir.h"

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace devparity::testing {

/// The suites own the cases the plan's groups point into: keep them together.
struct Planned {
  std::vector<Suite> suites;
  Plan plan;
};

inline Planned plan_suite(const nlohmann::json& suite, const std::string& devices) {
  register_builtins();
  TempDir dir;
  const auto inventory = DeviceInventory::probe();
  Planned p;
  p.suites = {load_suite(dir.write("suite.json", suite.dump()), inventory)};
  PlanOptions options;
  options.devices = parse_device_list(devices, inventory);
  p.plan = make_plan(p.suites, options, inventory);
  return p;
}

}  // namespace devparity::testing
