#include "harness/trace/provenance.h"

#include "harness/device/device.h"
#include "harness/trace/finding_kinds.h"

#include <fmt/format.h>

namespace devparity::tracing {

std::string describe(const Origin& o) {
  const auto at = o.source.empty() ? std::string() : " at " + o.source;
  switch (o.made) {
    case Origin::Made::kDefaultFactory: return fmt::format("made by {} with no device{}", o.op, at);
    case Origin::Made::kHostFactory: return fmt::format("made by {} on the CPU{}", o.op, at);
    case Origin::Made::kCopiedHome: return "device data copied to the host";
    case Origin::Made::kKeptState:
      return fmt::format("the tensor attribute '{}', which is neither a parameter nor a buffer", o.op);
    case Origin::Made::kUnknown: break;
  }
  return "";
}

std::optional<Finding> origin_finding(const Origin& o, const c10::Device& target, const std::string& what,
                                      const c10::Device& left_on) {
  Finding f;
  f.severity = Severity::kError;
  f.op = o.op;
  f.scopes = o.scopes;
  f.source = o.source;
  f.device = "cpu";
  if (o.made == Origin::Made::kDefaultFactory) {
    f.kind = finding_kind::kImplicitDeviceFactory;
    f.message = fmt::format("{} with no device: the tensor lands on the default device (the CPU), "
                            "whatever the input's device, and {}",
                            o.op, what);
  } else if (o.made == Origin::Made::kHostFactory) {
    f.kind = finding_kind::kForeignDeviceTarget;
    f.message = fmt::format("{} asked for device cpu while the target is {}, and {}", o.op,
                            device_label(target), what);
  } else if (o.made == Origin::Made::kKeptState) {
    f.kind = finding_kind::kUnregisteredTensorState;
    f.op.clear();
    f.device = device_label(left_on);
    f.message = fmt::format("tensor attribute '{}' is neither a parameter nor a buffer: moving the "
                            "module leaves it on {}, and {} (register it with register_buffer)",
                            o.op, left_on.is_cpu() ? std::string("the CPU") : device_label(left_on), what);
  } else {
    return std::nullopt;
  }
  return f;
}

}  // namespace devparity::tracing
