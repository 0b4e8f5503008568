#include "harness/run/device_health.h"

#include "harness/device/device_kinds.h"

#include <fmt/format.h>

namespace devparity {

std::string DeviceHealth::poisoned(const DeviceTarget& target) const {
  if (!target.available()) return "";
  const auto it = poisoned_.find(target.resolved_name());
  if (it == poisoned_.end()) return "";
  return fmt::format("device poisoned: a device error in {} left {}'s context unusable in this "
                     "process (run with --isolate to keep going on it)",
                     it->second, it->first);
}

void DeviceHealth::record(const DeviceTarget& target, const Execution& execution, const std::string& trial_id) {
  if (!execution.ran && execution.error.kind == FailureKind::kDeviceError &&
      target.kind().poisoned_by_device_errors) {
    poisoned_.emplace(target.resolved_name(), trial_id);
  }
}

}  // namespace devparity
