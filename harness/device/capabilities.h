#pragma once
/// What devices cannot do, learnt while running: ops found without a kernel
/// on a device type (a missing Meta kernel, say). Each is recorded the first
/// time a subject stops on it and reported once per run, so a report says
/// "meta cannot run aten::conv2d" instead of repeating it per trial.

#include <c10/core/DeviceType.h>
#include <nlohmann/json_fwd.hpp>

#include <map>
#include <mutex>
#include <set>
#include <string>

namespace devparity {

/// The process-wide record of unsupported ops.
class Capabilities {
 public:
  static Capabilities& global();
  /// Records that `op` has no kernel for `type`.
  void record_unsupported(c10::DeviceType type, const std::string& op);
  /// True when `op` was found unsupported on `type` earlier in this process.
  bool known_unsupported(c10::DeviceType type, const std::string& op) const;
  /// {"meta": ["aten::conv2d", ...], ...}
  nlohmann::json to_json() const;

 private:
  mutable std::mutex mutex_;
  std::map<std::string, std::set<std::string>> unsupported_;
};

}  // namespace devparity
