// A seeded autocast fault: precision that a lower precision matmul loses.
// - fault_autocast_cancellation: standardises each channel of an image with a DC offset (a
//   camera's black level, an unnormalised tensor) with the variance as E[x^2] - E[x]^2, the
//   squares summed by a matmul. In float32 the two terms keep the variance; under autocast the
//   matmul runs in float16 or bfloat16, its sums of ~10^4 round by more than the variance
//   itself, and the output is noise or NaN (the one-pass variance's cancellation, which
//   autocast turns from a float32 curiosity into a wrong image).
// The clean twin centres the channel first and sums the squares of the centred values, which
// the lower precision rounds by a few units of its spacing.

#include "harness/subject/register.h"
#include "tests/faults/fault_util.h"

namespace devparity::faults {
namespace {

template <bool kFaulty>
class AutocastCancellationTwin final : public Twin<> {
 public:
  AutocastCancellationTwin()
      : Twin("autocast_cancellation", kFaulty,
             "one-pass variance (E[x^2] - E[x]^2) by a matmul, which autocast lowers") {}

  at::Tensor apply(const at::Tensor& x, const nlohmann::json&) const override {
    const auto f = (x + 100.0).flatten(2);  // N, C, H*W with a DC offset
    const double n = static_cast<double>(f.size(-1));
    const auto mean = f.mean(-1, /*keepdim=*/true);
    const auto centred = f - mean;
    const auto summed = kFaulty ? f : centred;
    const auto squares = at::matmul(summed, summed.transpose(-1, -2)).diagonal(0, -2, -1).unsqueeze(-1) / n;
    const auto variance = kFaulty ? squares - mean * mean : squares;
    return (centred / (variance + 1e-3).sqrt()).view(x.sizes());
  }
};

using FaultAutocastCancellation = AutocastCancellationTwin<true>;
using CleanAutocastCancellation = AutocastCancellationTwin<false>;

}  // namespace
}  // namespace devparity::faults

DEVPARITY_REGISTER_TRANSFORM(devparity::faults::FaultAutocastCancellation)
DEVPARITY_REGISTER_TRANSFORM(devparity::faults::CleanAutocastCancellation)
