#pragma once
// Runs a suite given as JSON text through the real loader, planner and runner.

#include "harness/builtins.h"
#include "harness/device/device.h"
#include "harness/device/vdev.h"
#include "harness/report/environment.h"
#include "harness/run/runner.h"
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

/// Forwards every event to several listeners, in order.
class Tee final : public RunListener {
 public:
  explicit Tee(std::vector<RunListener*> to) : to_(std::move(to)) {}
  void on_run_start(const RunInfo& i) override { for (auto* l : to_) l->on_run_start(i); }
  void on_case_start(const CaseInfo& c) override { for (auto* l : to_) l->on_case_start(c); }
  void on_trial_start(const std::string& id) override { for (auto* l : to_) l->on_trial_start(id); }
  void on_trial_end(const TrialResult& r) override { for (auto* l : to_) l->on_trial_end(r); }
  void on_case_end(const CaseInfo& c, const StatusCounts& n) override {
    for (auto* l : to_) l->on_case_end(c, n);
  }
  void on_run_end(const RunSummary& s) override { for (auto* l : to_) l->on_run_end(s); }

 private:
  std::vector<RunListener*> to_;
};

/// Loads `suite` from a temporary file and runs it on `devices` with an
/// inventory of `cuda_count` CUDA devices; `also` receives the events too;
/// `runner` says how the runner runs.
inline EventRecorder run_suite(const nlohmann::json& suite, const std::string& devices = "cpu,meta",
                               int cuda_count = 0, const std::string& filter = "",
                               RunListener* also = nullptr, const RunnerOptions& runner = {}) {
  register_builtins();
  TempDir dir;
  const auto path = dir.write("suite.json", suite.dump(2));
  DeviceInventory inventory;
  inventory.cuda_count = cuda_count;
  inventory.vdev_count = vdev::device_count();
  // The plan points into the suites: keep them alive while it runs.
  const std::vector<Suite> suites = {load_suite(path, inventory)};
  PlanOptions options;
  options.devices = parse_device_list(devices, inventory);
  options.filter = filter;
  const auto plan = make_plan(suites, options, inventory);
  EventRecorder recorder;
  std::vector<RunListener*> listeners = {&recorder};
  if (also != nullptr) listeners.push_back(also);
  Tee tee(listeners);
  Runner(tee, runner).run(plan, test_run_info());
  return recorder;
}

}  // namespace devparity::testing
