#include "harness/device/capabilities.h"

#include <c10/core/DeviceType.h>
#include <nlohmann/json.hpp>

namespace devparity {

Capabilities& Capabilities::global() {
  static Capabilities capabilities;
  return capabilities;
}

void Capabilities::record_unsupported(c10::DeviceType type, const std::string& op) {
  std::lock_guard<std::mutex> lock(mutex_);
  unsupported_[c10::DeviceTypeName(type, /*lower_case=*/true)].insert(op);
}

bool Capabilities::known_unsupported(c10::DeviceType type, const std::string& op) const {
  std::lock_guard<std::mutex> lock(mutex_);
  const auto it = unsupported_.find(c10::DeviceTypeName(type, true));
  return it != unsupported_.end() && it->second.count(op) != 0;
}

nlohmann::json Capabilities::to_json() const {
  std::lock_guard<std::mutex> lock(mutex_);
  nlohmann::json out = nlohmann::json::object();
  for (const auto& [type, ops] : unsupported_) out[type] = ops;
  return out;
}

}  // namespace devparity
