// Seeded cuda:N-class fault: a transform that moves its offset ramp to "the
// device type of the input", without the index (tensor.to(torch.device('cuda'))).
// to() lands on the current device, vdev:0, while the input is on vdev:1:
// device_without_index on aten::to, then the add fails naming both devices.
// The clean twin builds the ramp on the input's device directly.

#include "harness/subject/register.h"
#include "harness/trace/scope.h"
#include "tests/faults/fault_util.h"

namespace devparity::faults {
namespace {

template <bool kFaulty>
class OffsetTwin final : public Twin<> {
 public:
  OffsetTwin() : Twin("offset_device_type", kFaulty, "moves its ramp to the device type only") {}
  at::Tensor apply(const at::Tensor& x, const nlohmann::json&) const override {
    DEVPARITY_TRACE_SCOPE("offset");
    auto ramp = at::linspace(0.0, 0.05, x.size(3), x.options());
    if (kFaulty) ramp = ramp.to(at::Device(x.device().type()));
    return (x + ramp).clamp(0.0, 1.0);
  }
};

using FaultOffsetDeviceType = OffsetTwin<true>;
using CleanOffsetDeviceType = OffsetTwin<false>;

}  // namespace
}  // namespace devparity::faults

DEVPARITY_REGISTER_TRANSFORM(devparity::faults::FaultOffsetDeviceType)
DEVPARITY_REGISTER_TRANSFORM(devparity::faults::CleanOffsetDeviceType)
