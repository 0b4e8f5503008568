// Seeded placement fault: an illumination transform that builds its gradient
// image with no device (kornia/kornia#3028, "Expected all tensors to be on
// the same device ... cuda:0 and cpu"). Reported as implicit_device_factory
// on every device, the CPU included; on meta the add fails as well. The clean
// twin builds the gradient on the input's device.

#include "harness/subject/register.h"
#include "harness/trace/scope.h"
#include "tests/faults/fault_util.h"

namespace devparity::faults {
namespace {

template <bool kFaulty>
class IlluminationTwin final : public Twin<> {
 public:
  IlluminationTwin()
      : Twin("illumination_cpu_gradient", kFaulty, "illumination gradient built on the default device") {}
  at::Tensor apply(const at::Tensor& x, const nlohmann::json&) const override {
    DEVPARITY_TRACE_SCOPE("illumination");
    const auto options = kFaulty ? at::TensorOptions().dtype(x.scalar_type()) : x.options();
    const auto gradient = at::linspace(0.0, 0.1, x.size(3), options);  // brighter to the right
    return (x + gradient).clamp(0.0, 1.0);
  }
};

using FaultIlluminationCpuGradient = IlluminationTwin<true>;
using CleanIlluminationCpuGradient = IlluminationTwin<false>;

}  // namespace
}  // namespace devparity::faults

DEVPARITY_REGISTER_TRANSFORM(devparity::faults::FaultIlluminationCpuGradient)
DEVPARITY_REGISTER_TRANSFORM(devparity::faults::CleanIlluminationCpuGradient)
