#pragma once
/// The case's checks on one trial: which of them apply, and each one's
/// verdict from the trial view (checks/check.h).

#include "harness/checks/check.h"
#include "harness/run/group_run.h"
#include "harness/run/run_modes.h"

#include <string>
#include <vector>

namespace devparity {

class CheckRegistry;

struct CheckDispatch {
  const CheckRegistry& registry;
  /// --placement: strict overrides every case's placement setting.
  Placement placement = Placement::kWarn;
  ArtifactStore* artifacts = nullptr;

  /// Appends to `row` the verdict of each of its case's checks, in name order:
  /// `mine` is the trial's execution, `group` gives the reference and the replay.
  void run(GroupRun& group, const Trial& trial, const Execution& mine, bool on_reference_device,
           TrialResult& row) const;

 private:
  /// Why a check cannot judge this trial; empty when it can.
  std::string skip_reason(const Check& check, GroupRun& group, const Execution& mine, bool is_reference_row) const;
};

}  // namespace devparity
