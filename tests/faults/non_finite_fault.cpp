// Seeded numeric faults that make NaN, the evidence of which must not read
// as a small error:
// - fault_nan_off_cpu: a min-max stretch whose device path divides by the
//   range without the CPU path's guard (a device kernel written apart from
//   the CPU one), so a flat row is 0/0 = NaN off the CPU only. Parity fails,
//   its message leads with the NaN, max |diff| and PSNR say NaN.
// - fault_nan_everywhere: the same stretch over the whole image without any
//   guard, on every device: a constant image is NaN everywhere, every device
//   agrees, so parity passes, with a non_finite_output warning.
// The clean twins guard the division on every device.

#include "harness/subject/register.h"
#include "tests/faults/fault_util.h"

namespace devparity::faults {
namespace {

// (x - min) / (max - min) over each row; `guard` keeps a flat row at 0.
at::Tensor stretch_rows(const at::Tensor& x, bool guard) {
  const auto low = std::get<0>(x.min(-1, true));
  const auto range = std::get<0>(x.max(-1, true)) - low;
  return (x - low) / (guard ? range.clamp_min(1e-12) : range);
}

template <bool kFaulty>
class NanOffCpuTwin final : public Twin<> {
 public:
  NanOffCpuTwin() : Twin("nan_off_cpu", kFaulty, "divides by a flat row's zero range off the CPU only") {}
  at::Tensor apply(const at::Tensor& x, const nlohmann::json&) const override {
    return stretch_rows(x, !kFaulty ? true : x.device().is_cpu());
  }
};

template <bool kFaulty>
class NanEverywhereTwin final : public Twin<> {
 public:
  NanEverywhereTwin() : Twin("nan_everywhere", kFaulty, "divides by a flat image's zero range on every device") {}
  at::Tensor apply(const at::Tensor& x, const nlohmann::json&) const override {
    const auto flat = x.flatten(1);
    return stretch_rows(flat, !kFaulty).view(x.sizes());
  }
};

using FaultNanOffCpu = NanOffCpuTwin<true>;
using CleanNanOffCpu = NanOffCpuTwin<false>;
using FaultNanEverywhere = NanEverywhereTwin<true>;
using CleanNanEverywhere = NanEverywhereTwin<false>;

}  // namespace
}  // namespace devparity::faults

DEVPARITY_REGISTER_TRANSFORM(devparity::faults::FaultNanOffCpu)
DEVPARITY_REGISTER_TRANSFORM(devparity::faults::CleanNanOffCpu)
DEVPARITY_REGISTER_TRANSFORM(devparity::faults::FaultNanEverywhere)
DEVPARITY_REGISTER_TRANSFORM(devparity::faults::CleanNanEverywhere)
