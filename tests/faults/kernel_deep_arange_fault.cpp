// Seeded placement fault: a Gaussian kernel whose arange has no device,
// reached through jpeg > subsample > blur > gaussian_kernel (kornia/kornia#2837:
// the differentiable JPEG failed on GPU because of it). The kernel is applied
// as a tensor, as a convolution applies it, so CUDA refuses the mix (single
// taps read as 0-dim CPU scalars would be legal). The finding carries that
// scope chain. The clean twin takes the device from the input.

#include "harness/subject/register.h"
#include "harness/trace/scope.h"
#include "tests/faults/fault_util.h"

namespace devparity::faults {
namespace {

template <bool kFaulty>
at::Tensor gaussian_kernel(const at::Tensor& like, int64_t size, double sigma) {
  DEVPARITY_TRACE_SCOPE("gaussian_kernel");
  const auto options = kFaulty ? at::TensorOptions().dtype(like.scalar_type()) : like.options();
  const auto x = at::arange(size, options) - static_cast<double>(size / 2);
  const auto w = at::exp(-(x * x) / (2.0 * sigma * sigma));
  return w / w.sum();
}

template <bool kFaulty>
at::Tensor blur_w(const at::Tensor& x) {
  DEVPARITY_TRACE_SCOPE("blur");
  const auto k = gaussian_kernel<kFaulty>(x, 3, 0.8);
  const auto padded = at::cat({x.narrow(3, 0, 1), x, x.narrow(3, x.size(3) - 1, 1)}, 3);
  const auto taps = at::stack({padded.narrow(3, 0, x.size(3)), padded.narrow(3, 1, x.size(3)),
                               padded.narrow(3, 2, x.size(3))},
                              -1);
  return (taps * k).sum(-1);
}

template <bool kFaulty>
at::Tensor subsample(const at::Tensor& x) {
  DEVPARITY_TRACE_SCOPE("subsample");
  return blur_w<kFaulty>(x);
}

template <bool kFaulty>
class KernelTwin final : public Twin<> {
 public:
  KernelTwin()
      : Twin("kernel_deep_arange", kFaulty, "Gaussian kernel with a device-less arange, three calls deep") {}
  at::Tensor apply(const at::Tensor& x, const nlohmann::json&) const override {
    DEVPARITY_TRACE_SCOPE("jpeg");
    return subsample<kFaulty>(x);
  }
};

using FaultKernelDeepArange = KernelTwin<true>;
using CleanKernelDeepArange = KernelTwin<false>;

}  // namespace
}  // namespace devparity::faults

DEVPARITY_REGISTER_TRANSFORM(devparity::faults::FaultKernelDeepArange)
DEVPARITY_REGISTER_TRANSFORM(devparity::faults::CleanKernelDeepArange)
