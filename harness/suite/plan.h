#pragma once
/// Trial expansion: case x variant x input x dtype x device, with stable ids.

#include "harness/device/device.h"
#include "harness/suite/case.h"

#include <c10/core/ScalarType.h>
#include <nlohmann/json.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace devparity {

class Transform;
struct TrialResult;

/// One reported row: a group run on one device.
struct Trial {
  std::string id;       ///< case/subject[variant]/dtype/device/input
  DeviceTarget target;  ///< the device of this row
};

/// Everything but the device: one input, one parameter set, one reference.
struct TrialGroup {
  const CaseSpec* spec = nullptr;
  const Transform* subject = nullptr;
  const Transform* reference_subject = nullptr;  ///< the subject itself unless the case names another
  nlohmann::json given;            ///< params for this variant
  nlohmann::json reference_given;  ///< given with the reference's overrides
  std::string variant;             ///< grid label, or empty
  InputRecipe input;
  c10::ScalarType dtype = c10::ScalarType::Float;
  uint64_t seed = 0;               ///< input and sampling seed
  DeviceTarget reference_device;   ///< may be absent on this machine
  std::vector<Trial> trials;       ///< the rows to report, in matrix order

  /// True when the reference device's own row must be compared as well
  /// (another subject or other parameters produce the reference, or the rows
  /// run under autocast and the reference outside it).
  bool compares_reference_row() const { return spec->reference.differs() || spec->autocast.has_value(); }
};

/// Options that shape a plan.
struct PlanOptions {
  std::vector<DeviceTarget> devices;                  ///< the run's device matrix
  std::optional<std::vector<c10::ScalarType>> dtypes; ///< keep only these dtypes
  std::string filter;                                 ///< gtest-style glob filter on ids
  std::optional<uint64_t> seed;                       ///< overrides every case's seed
  /// --shard I/N: keep the groups whose position in the unsharded plan is I
  /// modulo N (whole groups, so each shard computes its own references).
  int shard_index = 0, shard_count = 1;
};

/// The groups of a run, in execution order.
struct Plan {
  std::vector<TrialGroup> groups;
  /// Number of rows the run will report.
  int64_t trial_count() const;
};

/// Expands suites into a plan. Suites must outlive the plan. Throws UsageError
/// when two suites produce the same result id.
Plan make_plan(const std::vector<Suite>& suites, const PlanOptions& options,
               const DeviceInventory& inventory);

/// A result naming `trial` of `group`: its identity, devices, reference and
/// the parameters as the case gives them; no checks yet.
TrialResult result_of(const TrialGroup& group, const Trial& trial);

/// "case/subject[variant]/dtype/device/input".
std::string trial_id(const std::string& case_name, const std::string& subject,
                     const std::string& variant, c10::ScalarType dtype, const std::string& device,
                     const std::string& input);

}  // namespace devparity
