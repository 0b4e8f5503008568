#pragma once
/// Note [Poisoned devices]
/// After a CUDA error the device's context is unusable for the rest of the
/// process; later trials there say so instead of failing in confusing ways.

#include "harness/device/device.h"
#include "harness/subject/execution.h"

#include <map>
#include <string>

namespace devparity {

class DeviceHealth {
 public:
  /// Why trials cannot run on `target` any more; empty while it is usable.
  std::string poisoned(const DeviceTarget& target) const;
  /// Notes how a trial went on `target`: a device error on CUDA poisons it.
  void record(const DeviceTarget& target, const Execution& execution, const std::string& trial_id);

 private:
  std::map<std::string, std::string> poisoned_;  // resolved device -> the trial that broke it
};

}  // namespace devparity
