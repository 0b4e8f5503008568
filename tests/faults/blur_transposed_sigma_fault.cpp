// Seeded fault for the parity check: a Gaussian blur that applies sigma
// (y, x) transposed, the bug of a kernel built as outer(kx, ky). Its clean
// twin builds outer(ky, kx). Both use LibTorch's reflection_pad2d + conv2d,
// an implementation independent of the reference gaussian_blur2d (and one the
// meta device cannot run in LibTorch 1.13: conv2d has no meta kernel).

#include "harness/base/json_reader.h"
#include "harness/subject/register.h"

#include <ATen/ATen.h>
#include <nlohmann/json.hpp>

namespace devparity::faults {
namespace {

template <bool kTransposed>
class BlurTwin final : public Transform {
 public:
  BlurTwin() {
    info_.name = kTransposed ? "fault_blur_transposed_sigma" : "clean_blur_transposed_sigma";
    info_.family = "faults";
    info_.description = kTransposed ? "Gaussian blur with sigma (y, x) swapped"
                                    : "Gaussian blur by conv2d, axes right";
    info_.params = {{"kernel_size", "[ky, kx]", "required", ""}, {"sigma", "[sy, sx]", "required", ""}};
    info_.dtypes = {at::kFloat, at::kDouble};
  }
  const TransformInfo& info() const override { return info_; }

  nlohmann::json sample(const nlohmann::json& given, c10::IntArrayRef, at::Generator&) const override {
    ObjectReader r(given);
    const auto k = r.integers("kernel_size", 2, 1, 63);
    const auto s = r.numbers("sigma", 2, 1e-3, 1e3);
    r.get("border");  // reflect only; accepted so that cases can share params
    r.finish();
    return {{"kernel_size", k}, {"sigma", s}};
  }

  at::Tensor apply(const at::Tensor& x, const nlohmann::json& p) const override {
    const auto k = p.at("kernel_size").get<std::vector<int64_t>>();
    auto s = p.at("sigma").get<std::vector<double>>();
    if (kTransposed) std::swap(s[0], s[1]);
    const auto opts = x.options();
    const auto ky = gaussian(k[0], s[0], opts), kx = gaussian(k[1], s[1], opts);
    const int64_t c = x.size(1);
    const auto weight = at::outer(ky, kx).reshape({1, 1, k[0], k[1]}).repeat({c, 1, 1, 1});
    const auto padded = at::reflection_pad2d(x, {k[1] / 2, k[1] / 2, k[0] / 2, k[0] / 2});
    return at::conv2d(padded, weight, at::Tensor(), at::IntArrayRef{1, 1}, at::IntArrayRef{0, 0},
                      at::IntArrayRef{1, 1}, c);
  }

 private:
  static at::Tensor gaussian(int64_t size, double sigma, const at::TensorOptions& opts) {
    const auto x = at::arange(size, opts) - static_cast<double>(size / 2);
    const auto w = at::exp(-(x * x) / (2.0 * sigma * sigma));
    return w / w.sum();
  }

  TransformInfo info_;
};

using FaultBlurTransposedSigma = BlurTwin<true>;
using CleanBlurTransposedSigma = BlurTwin<false>;

}  // namespace
}  // namespace devparity::faults

DEVPARITY_REGISTER_TRANSFORM(devparity::faults::FaultBlurTransposedSigma)
DEVPARITY_REGISTER_TRANSFORM(devparity::faults::CleanBlurTransposedSigma)
