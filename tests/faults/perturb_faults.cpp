// Seeded numeric faults for vdev's perturbed numerics (Note [Perturbed
// numerics] in vdev/perturb.h), each with its clean twin: code whose result
// depends on the CPU's own arithmetic where a GPU's is as legal. Without
// perturbation vdev equals the CPU and both twins pass; with the switch
// named the fault fails parity and the clean twin still passes.
//  - perturb_round_halves (pytorch/pytorch#16498): rounds exact halves with
//    round(), whose tie rule differs between implementations -> round_half_away.
//    Clean: floor(x + 0.5), one rule everywhere.
//  - perturb_tf32_color_matrix: a colour matrix by matmul on float32 under
//    float32's tight tolerance -> tf32. Clean: the product in float64.
//  - perturb_quantized_centering: subtracts the image mean and quantizes finely,
//    so the mean's last bit decides steps -> reduction_order. Clean: the mean
//    accumulated in float64.
//  - perturb_sorted_ties (pytorch/vision#2157, NMS keeping one of equal scores
//    by sort order): the order of equal values from an unstable sort -> tie_order.
//    Clean: a stable sort.
//  - perturb_linspace_grid (pytorch/pytorch#40904): whole grid steps from a
//    floating linspace, floored -> linspace_formula. Clean: integer steps.
//  - perturb_rounded_resize: bicubic resize of 0..255 values rounded to whole
//    levels, compared exactly (uint8 resize through float, ±1 on CUDA) ->
//    cuda_resample. Clean: the resized values unrounded, within float32's tolerance.

#include "harness/subject/register.h"
#include "tests/faults/fault_util.h"

#include <ATen/ATen.h>

namespace devparity::faults {
namespace {

template <bool kFaulty>
class RoundHalves final : public Twin<> {
 public:
  RoundHalves() : Twin("perturb_round_halves", kFaulty, "rounds exact halves with round()") {}
  at::Tensor apply(const at::Tensor& x, const nlohmann::json&) const override {
    const auto halves = at::floor(x * 16.0) + 0.5;  // every value a tie
    return kFaulty ? at::round(halves) : at::floor(halves + 0.5);
  }
};

template <bool kFaulty>
class Tf32ColorMatrix final : public Twin<> {
 public:
  Tf32ColorMatrix() : Twin("perturb_tf32_color_matrix", kFaulty, "mixes channels with a float32 matmul") {}
  at::Tensor apply(const at::Tensor& x, const nlohmann::json&) const override {
    const auto m = at::tensor({0.299, 0.587, 0.114, -0.168736, -0.331264, 0.5, 0.5, -0.418688, -0.081312},
                              x.options()).view({3, 3});
    const auto pixels = x.movedim(1, -1);  // N H W C
    const auto mixed = kFaulty ? at::matmul(pixels, m.t()) : at::matmul(pixels.to(at::kDouble), m.t().to(at::kDouble))
                                                                 .to(x.scalar_type());
    return mixed.movedim(-1, 1).contiguous();
  }
};

template <bool kFaulty>
class QuantizedCentering final : public Twin<> {
 public:
  QuantizedCentering()
      : Twin("perturb_quantized_centering", kFaulty, "quantizes the image minus its mean in fine steps") {}
  at::Tensor apply(const at::Tensor& x, const nlohmann::json&) const override {
    const auto mean = kFaulty ? x.mean({2, 3}, /*keepdim=*/true)
                              : x.to(at::kDouble).mean({2, 3}, /*keepdim=*/true).to(x.scalar_type());
    return at::floor((x - mean) * 1048576.0);
  }
};

template <bool kFaulty>
class SortedTies final : public Twin<> {
 public:
  SortedTies() : Twin("perturb_sorted_ties", kFaulty, "keeps the first of equal scores in an unstable sort's order") {}
  at::Tensor apply(const at::Tensor& x, const nlohmann::json&) const override {
    const auto scores = at::floor(x.flatten(2) * 4.0);  // four levels: ties everywhere
    const auto order = std::get<1>(at::sort(scores, /*stable=*/!kFaulty, /*dim=*/-1, /*descending=*/true));
    return order.narrow(-1, 0, std::min<int64_t>(16, order.size(-1))).to(x.scalar_type());
  }
};

template <bool kFaulty>
class LinspaceGrid final : public Twin<> {
 public:
  LinspaceGrid() : Twin("perturb_linspace_grid", kFaulty, "floors steps of a grid made with a floating linspace") {}
  at::Tensor apply(const at::Tensor& x, const nlohmann::json&) const override {
    constexpr int64_t kSteps = 100;
    const auto steps = kFaulty ? at::floor(at::linspace(0.0, 1.0, kSteps, x.options()) * ((kSteps - 1) * 3.0))
                               : at::arange(kSteps, x.options()) * 3.0;
    return x.mean() * 0.0 + steps;  // the grid, on x's device
  }
};

template <bool kFaulty>
class RoundedResize final : public Twin<> {
 public:
  RoundedResize() : Twin("perturb_rounded_resize", kFaulty, "rounds a float bicubic resize to whole levels") {}
  at::Tensor apply(const at::Tensor& x, const nlohmann::json&) const override {
    const std::vector<int64_t> size = {x.size(2) * 3 + 1, x.size(3) * 3 + 2};
    const auto y = at::upsample_bicubic2d(x * 255.0, size, /*align_corners=*/false);
    return kFaulty ? at::round(y) : y / 255.0;
  }
};

using FaultRoundHalves = RoundHalves<true>;
using CleanRoundHalves = RoundHalves<false>;
using FaultTf32ColorMatrix = Tf32ColorMatrix<true>;
using CleanTf32ColorMatrix = Tf32ColorMatrix<false>;
using FaultQuantizedCentering = QuantizedCentering<true>;
using CleanQuantizedCentering = QuantizedCentering<false>;
using FaultSortedTies = SortedTies<true>;
using CleanSortedTies = SortedTies<false>;
using FaultLinspaceGrid = LinspaceGrid<true>;
using CleanLinspaceGrid = LinspaceGrid<false>;
using FaultRoundedResize = RoundedResize<true>;
using CleanRoundedResize = RoundedResize<false>;

}  // namespace
}  // namespace devparity::faults

DEVPARITY_REGISTER_TRANSFORM(devparity::faults::FaultRoundHalves)
DEVPARITY_REGISTER_TRANSFORM(devparity::faults::CleanRoundHalves)
DEVPARITY_REGISTER_TRANSFORM(devparity::faults::FaultTf32ColorMatrix)
DEVPARITY_REGISTER_TRANSFORM(devparity::faults::CleanTf32ColorMatrix)
DEVPARITY_REGISTER_TRANSFORM(devparity::faults::FaultQuantizedCentering)
DEVPARITY_REGISTER_TRANSFORM(devparity::faults::CleanQuantizedCentering)
DEVPARITY_REGISTER_TRANSFORM(devparity::faults::FaultSortedTies)
DEVPARITY_REGISTER_TRANSFORM(devparity::faults::CleanSortedTies)
DEVPARITY_REGISTER_TRANSFORM(devparity::faults::FaultLinspaceGrid)
DEVPARITY_REGISTER_TRANSFORM(devparity::faults::CleanLinspaceGrid)
DEVPARITY_REGISTER_TRANSFORM(devparity::faults::FaultRoundedResize)
DEVPARITY_REGISTER_TRANSFORM(devparity::faults::CleanRoundedResize)
