#include "harness/run/check_dispatch.h"

#include "harness/base/error.h"
#include "harness/checks/registry.h"
#include "harness/device/device_kinds.h"

#include <fmt/format.h>

namespace devparity {

std::string CheckDispatch::skip_reason(const Check& check, GroupRun& group, const Execution& mine,
                                       bool is_reference_row) const {
  if (!check.compares_outputs()) return "";
  if (!mine.ran) return "no output to check: the subject did not run";
  if (is_reference_row) return "";
  const auto& ref_target = group.group().reference_device;
  const Execution* ref = group.reference();
  if (ref == nullptr) {
    return ref_target.available()
               ? "no reference output"
               : fmt::format("reference device {} is absent: {}", ref_target.name, ref_target.absent_reason);
  }
  if (!ref->ran) {
    return fmt::format("no reference output: {} on {} did not run ({})",
                       group.group().reference_subject->info().name, ref_target.resolved_name(),
                       ref->error.message);
  }
  return "";
}

void CheckDispatch::run(GroupRun& group, const Trial& trial, const Execution& mine, bool on_reference_device,
                        TrialResult& row) const {
  const auto& g = group.group();
  // The reference row needs no comparison with itself.
  const bool is_reference_row = on_reference_device && !g.compares_reference_row();
  // A simulated device that runs the CPU's kernels (vdev): against the same
  // computation on the CPU its output is exact, unless it ran other
  // arithmetic (Note [Perturbed numerics]) or the reference did (in float32 where
  // the CPU lacks a half precision kernel, Note [Half precision reference]): then
  // the case's tolerance, as a GPU's. Under autocast the reference is not its computation
  // (compares_reference_row()).
  const Execution* ref = group.reference();
  const bool expect_exact = !g.compares_reference_row() && trial.target.kind().simulated &&
                            trial.target.kind().runs_cpu_kernels && !mine.other_arithmetic() &&
                            (ref == nullptr || ref->round_trip.empty()) &&
                            g.reference_device.device->type() == c10::DeviceType::CPU;
  const auto replay = group.replay();
  const at::Tensor reference = ref != nullptr && ref->ran ? ref->output : at::Tensor();
  for (const auto& [name, case_setting] : g.spec->checks) {
    const Check* check = registry.find(name);
    if (check == nullptr) {
      row.checks.push_back(CheckOutcome::verdict(name, Status::kError, "no check called '" + name + "' is registered"));
      continue;
    }
    if (check->compares_outputs() && is_reference_row && !check->runs_on_reference_row()) continue;
    if (const auto why_not = skip_reason(*check, group, mine, is_reference_row); !why_not.empty()) {
      row.checks.push_back(CheckOutcome::verdict(name, Status::kSkip, why_not));
      continue;
    }
    CheckContext view(row, trial.target, mine, case_setting);
    view.dtype = g.dtype;
    view.reference = reference;
    view.replay = &replay;
    view.expect_exact = expect_exact;
    view.is_reference_row = is_reference_row;
    view.strict = placement == Placement::kStrict;
    view.artifacts = artifacts;
    view.reference_unrounded = ref != nullptr && ref->ran ? &ref->unrounded : nullptr;
    view.autocast = g.spec->autocast;
    try {
      auto c = check->run(view);
      c.name = name;
      row.checks.push_back(std::move(c));
    } catch (const std::exception& e) {
      row.checks.push_back(CheckOutcome::verdict(name, Status::kError, "the check failed: " + torch_message(e)));
    }
  }
}

}  // namespace devparity
