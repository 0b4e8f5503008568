// Seeded placement fault: a transform that builds its result with a
// hard-coded device literal (huggingface/pytorch-image-models#913 defaulted
// device='cuda'; here 'cpu', as kornia/kornia#3066 returned CPU outputs). On
// the CPU nothing shows; on meta the result comes back on the CPU:
// wrong_device_output. The clean twin allocates on the input's device.

#include "harness/subject/register.h"
#include "harness/trace/scope.h"
#include "tests/faults/fault_util.h"

namespace devparity::faults {
namespace {

template <bool kFaulty>
class CpuOutputTwin final : public Twin<> {
 public:
  CpuOutputTwin() : Twin("cpu_output", kFaulty, "returns a mask allocated on a hard-coded CPU") {}
  at::Tensor apply(const at::Tensor& x, const nlohmann::json&) const override {
    DEVPARITY_TRACE_SCOPE("mask");
    const auto options = kFaulty ? x.options().device(at::kCPU) : x.options();
    // A centred box mask of the input's shape.
    auto mask = at::zeros(x.sizes(), options);
    mask.narrow(2, x.size(2) / 4, x.size(2) / 2).narrow(3, x.size(3) / 4, x.size(3) / 2).fill_(1.0);
    return mask;
  }
};

using FaultCpuOutput = CpuOutputTwin<true>;
using CleanCpuOutput = CpuOutputTwin<false>;

}  // namespace
}  // namespace devparity::faults

DEVPARITY_REGISTER_TRANSFORM(devparity::faults::FaultCpuOutput)
DEVPARITY_REGISTER_TRANSFORM(devparity::faults::CleanCpuOutput)
