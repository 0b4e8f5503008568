// Seeded faults for the gradient check, each with its clean twin:
//  - fault_grad_detached: y = x * x.detach(), whose analytic gradient (x) is
//    wrong everywhere; finite differences on the reference row catch it.
//  - fault_grad_device_dependent: the same detach only off the CPU, so the
//    forward agrees everywhere (parity passes) and only the cross-device
//    gradient comparison can tell.
//  - fault_backward_cpu_factory: a custom backward that builds its factor
//    with no device: implicit_device_factory in backward on every device, and
//    a device mismatch on the others.
//  - fault_grad_where_nan: where(x < 10, x, sqrt(x - 10)), finite forward,
//    NaN gradient (0 * d sqrt at a negative: the torch.where gradient trap);
//    the clean twin feeds sqrt a safe value in the branch not taken.

#include "harness/subject/register.h"
#include "harness/trace/scope.h"
#include "tests/faults/fault_util.h"

#include <torch/csrc/autograd/custom_function.h>

namespace devparity::faults {
namespace {

template <bool kFaulty>
class DetachedTwin final : public Twin<> {
 public:
  DetachedTwin() : Twin("grad_detached", kFaulty, "squares with half the graph detached", true) {}
  at::Tensor apply(const at::Tensor& x, const nlohmann::json&) const override {
    return kFaulty ? x * x.detach() : x * x;
  }
};

template <bool kFaulty>
class DeviceDependentTwin final : public Twin<> {
 public:
  DeviceDependentTwin()
      : Twin("grad_device_dependent", kFaulty, "detaches half the graph off the CPU only", true) {}
  at::Tensor apply(const at::Tensor& x, const nlohmann::json&) const override {
    const bool off_cpu = x.device().type() != c10::DeviceType::CPU;
    return kFaulty && off_cpu ? x * x.detach() : x * x;
  }
};

// y = 2 x, with a hand-written backward.
template <bool kFaulty>
struct Double : public torch::autograd::Function<Double<kFaulty>> {
  static at::Tensor forward(torch::autograd::AutogradContext*, const at::Tensor& x) { return x * 2.0; }
  static torch::autograd::variable_list backward(torch::autograd::AutogradContext*,
                                                 torch::autograd::variable_list grads) {
    DEVPARITY_TRACE_SCOPE("double_backward");
    const auto& g = grads[0];
    const auto options = kFaulty ? at::TensorOptions().dtype(g.scalar_type()) : g.options();
    return {g * at::full(g.sizes(), 2.0, options)};
  }
};

template <bool kFaulty>
class BackwardFactoryTwin final : public Twin<> {
 public:
  BackwardFactoryTwin()
      : Twin("backward_cpu_factory", kFaulty, "a custom backward with a device-less factory", true) {}
  at::Tensor apply(const at::Tensor& x, const nlohmann::json&) const override {
    return Double<kFaulty>::apply(x);
  }
};

template <bool kFaulty>
class WhereNanTwin final : public Twin<> {
 public:
  WhereNanTwin() : Twin("grad_where_nan", kFaulty, "sqrt of a negative in the branch where() does not take", true) {}
  at::Tensor apply(const at::Tensor& x, const nlohmann::json&) const override {
    const auto taken = x < 10.0;
    const auto root_of = kFaulty ? x - 10.0 : at::where(taken, at::ones_like(x), x - 10.0);
    return at::where(taken, x, at::sqrt(root_of));
  }
};

using FaultGradDetached = DetachedTwin<true>;
using CleanGradDetached = DetachedTwin<false>;
using FaultGradDeviceDependent = DeviceDependentTwin<true>;
using CleanGradDeviceDependent = DeviceDependentTwin<false>;
using FaultBackwardCpuFactory = BackwardFactoryTwin<true>;
using CleanBackwardCpuFactory = BackwardFactoryTwin<false>;
using FaultGradWhereNan = WhereNanTwin<true>;
using CleanGradWhereNan = WhereNanTwin<false>;

}  // namespace
}  // namespace devparity::faults

DEVPARITY_REGISTER_TRANSFORM(devparity::faults::FaultGradDetached)
DEVPARITY_REGISTER_TRANSFORM(devparity::faults::CleanGradDetached)
DEVPARITY_REGISTER_TRANSFORM(devparity::faults::FaultGradDeviceDependent)
DEVPARITY_REGISTER_TRANSFORM(devparity::faults::CleanGradDeviceDependent)
DEVPARITY_REGISTER_TRANSFORM(devparity::faults::FaultBackwardCpuFactory)
DEVPARITY_REGISTER_TRANSFORM(devparity::faults::CleanBackwardCpuFactory)
DEVPARITY_REGISTER_TRANSFORM(devparity::faults::FaultGradWhereNan)
DEVPARITY_REGISTER_TRANSFORM(devparity::faults::CleanGradWhereNan)
