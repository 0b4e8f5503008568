#include "harness/run/accelerator_split.h"

#include "harness/device/device_kinds.h"
#include "harness/suite/plan.h"

#include <fmt/format.h>

#include <set>

namespace devparity {
namespace {

// Kinds of the trials `plan` runs (present devices), in this process or not.
std::set<const DeviceKind*> kinds_run(const Plan& plan, bool split) {
  std::set<const DeviceKind*> kinds;
  for (const auto& group : plan.groups) {
    for (const auto& trial : group.trials) {
      if (trial.target.available() && !(split && leaves_for_worker(trial))) kinds.insert(&trial.target.kind());
    }
  }
  return kinds;
}

}  // namespace

bool leaves_for_worker(const Trial& trial) {
  if (!trial.target.available()) return false;
  const auto& kind = trial.target.kind();
  return kind.accelerator && kind.install != nullptr;
}

namespace {

// The accelerator kind devparity installed in this process already, if any.
const DeviceKind* installed_accelerator() {
  for (const auto& kind : device_kinds()) {
    if (kind.accelerator && kind.installed != nullptr && kind.installed()) return &kind;
  }
  return nullptr;
}

std::string held_back_reason(const Trial& trial, bool leaves) {
  return leaves ? fmt::format("not run in this process: it runs the CUDA rows, and {} would make the simulated "
                              "device its accelerator, whose streams LibTorch 2.x then gives CUDA's backward (Note "
                              "[One accelerator per process]); audit {} in a process of its own",
                              trial.target.name, trial.target.name)
                : fmt::format("not run in this process: devparity's simulated device is installed here, and LibTorch "
                              "2.x takes it for the process's accelerator, whose streams it then gives CUDA's backward "
                              "(Note [One accelerator per process]); audit {} in a process without devparity.install()",
                              trial.target.name);
}

// Marks absent, with the reason, the accelerator trials whose kind is not `kept`.
void hold_back(Plan& plan, const DeviceKind* kept) {
  for (auto& group : plan.groups) {
    for (auto& trial : group.trials) {
      if (!trial.target.available() || !trial.target.kind().accelerator || &trial.target.kind() == kept) continue;
      trial.target.absent_reason = held_back_reason(trial, leaves_for_worker(trial));
      trial.target.device.reset();
    }
  }
}

}  // namespace

Split decide_split(Plan& plan, bool forced, bool workers) {
  return decide_split(plan, forced, workers, installed_accelerator());
}

// A process hosts the accelerator it installed, and no other.
Split decide_split(Plan& plan, bool forced, bool workers, const DeviceKind* installed) {
  std::set<const DeviceKind*> accelerators;
  for (const auto* kind : kinds_run(plan, false)) {
    if (kind->accelerator) accelerators.insert(kind);
  }
  if (installed != nullptr) accelerators.insert(installed);
  const bool leave_anyway = forced && workers && installed == nullptr && !split_items(plan).empty();
  if (accelerators.size() < 2 && !leave_anyway) return Split::kNone;
  if (workers && installed == nullptr) return Split::kWorker;
  const DeviceKind* kept = installed;
  for (const auto* kind : accelerators) {
    if (kept == nullptr && kind->install == nullptr) kept = kind;  // the one that needs nothing of devparity's
  }
  hold_back(plan, kept);
  return Split::kHeldBack;
}

std::vector<std::string> leaving_families(const Plan& plan) {
  std::set<std::string> families;
  for (const auto& group : plan.groups) {
    for (const auto& trial : group.trials) {
      if (leaves_for_worker(trial)) families.insert(trial.target.kind().family);
    }
  }
  return {families.begin(), families.end()};
}

void install_kinds(const Plan& plan, const DeviceInventory& inventory, bool split) {
  for (const auto* kind : kinds_run(plan, split)) {
    if (kind->install != nullptr) kind->install(inventory);
  }
}

std::vector<WorkerItem> split_items(const Plan& plan) {
  std::vector<WorkerItem> items;
  for (size_t g = 0; g < plan.groups.size(); ++g) {
    const auto& trials = plan.groups[g].trials;
    for (size_t t = 0; t < trials.size(); ++t) {
      if (leaves_for_worker(trials[t])) items.push_back({g, static_cast<int>(t)});
    }
  }
  return items;
}

SplitWorker::SplitWorker(const Plan& plan, IsolationOptions options) : executor_(std::move(options)) {
  thread_ = std::thread([this, &plan] {
    executor_.run(plan, split_items(plan), [this](TrialResult& r) { receive(r); }, kSplitSpec);
    std::lock_guard<std::mutex> lock(mutex_);
    finished_ = true;
    arrived_.notify_all();
  });
}

SplitWorker::~SplitWorker() {
  IsolatedExecutor::kill_current();  // a run that ended early (a signal, an error) stops its worker
  if (thread_.joinable()) thread_.join();
}

void SplitWorker::receive(TrialResult& result) {
  std::lock_guard<std::mutex> lock(mutex_);
  results_.emplace(result.id, std::move(result));
  arrived_.notify_all();
}

std::optional<TrialResult> SplitWorker::take(const Trial& trial) {
  std::unique_lock<std::mutex> lock(mutex_);
  arrived_.wait(lock, [&] { return finished_ || results_.count(trial.id) != 0; });
  const auto it = results_.find(trial.id);
  if (it == results_.end()) return std::nullopt;  // interrupted: the worker was stopped before it
  auto result = std::move(it->second);
  results_.erase(it);
  return result;
}

}  // namespace devparity
