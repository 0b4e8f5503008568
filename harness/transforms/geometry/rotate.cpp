// rotate(angle, expand) with torchvision v2's semantics: affine with -angle
// (counter-clockwise), no translation, unit scale, no shear (affine_map.h);
// expand sizes the output to the rotated corners' box
// (_compute_affine_output_size, float32, 1e-4 truncation), centred on it.
// About the image centre, a multiple of 90 degrees is exact as torchvision
// makes it: 0 a copy, 180 and (with expand or a square image) 90 and 270 a
// rot90 of the pixels. uint8 runs in float32 and is rounded back.

#include "harness/subject/configured.h"
#include "harness/transforms/geometry/affine_map.h"
#include "harness/transforms/kernels/resize_and_blur.h"
#include "harness/subject/transform_registry.h"
#include "harness/trace/scope.h"
#include "harness/transforms/builtin_transforms.h"

#include <ATen/ATen.h>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

namespace devparity {
namespace {

// torchvision's _compute_affine_output_size, in float32 as it computes: the
// corners mapped by `m`, their box truncated to 1e-4 (so 1e-15 does not ceil
// to a whole pixel), then ceil/floor. Returns (height, width).
std::pair<int64_t, int64_t> expanded_size(const std::array<double, 6>& m, int64_t h, int64_t w) {
  const float hw = 0.5f * static_cast<float>(w), hh = 0.5f * static_cast<float>(h);
  const float corners[4][2] = {{-hw, -hh}, {-hw, hh}, {hw, hh}, {hw, -hh}};
  float lo[2] = {INFINITY, INFINITY}, hi[2] = {-INFINITY, -INFINITY};
  for (const auto& c : corners) {
    for (int r = 0; r < 2; ++r) {
      const float v = c[0] * static_cast<float>(m[3 * r]) + c[1] * static_cast<float>(m[3 * r + 1]) +
                      static_cast<float>(m[3 * r + 2]);
      lo[r] = std::min(lo[r], v);
      hi[r] = std::max(hi[r], v);
    }
  }
  const float halfs[2] = {hw, hh};
  int64_t size[2];
  for (int r = 0; r < 2; ++r) {
    const float top = std::ceil(std::trunc((hi[r] + halfs[r]) * 10000.0f) * 1e-4f);
    const float bottom = std::floor(std::trunc((lo[r] + halfs[r]) * 10000.0f) * 1e-4f);
    size[r] = static_cast<int64_t>(top - bottom);
  }
  return {size[1], size[0]};
}

struct RotateConfig : DeclaredFields<RotateConfig> {
  double angle = 0;
  bool expand = false;
  std::optional<std::pair<double, double>> center;
  WarpOptions warp;
  static void declare(Fields<RotateConfig>& f) {
    f.number("angle", &RotateConfig::angle, std::nullopt, -1e4, 1e4, "number (degrees)", "counter-clockwise")
        .boolean("expand", &RotateConfig::expand, false, "grow the output to hold the whole rotated image");
    add_center_and_warp(f, Interpolation::kNearest);
  }
  void check(c10::IntArrayRef shape) const { warp.check(shape); }
};

// torchvision's fast paths of rotate (about the image centre only): angle
// % 360 of 0 is a copy, 180 reverses rows and columns, and 90 and 270 (with
// expand, or on a square image) are torch.rot90, pixels moved exactly.
std::optional<at::Tensor> quarter_turn(const at::Tensor& x, const RotateConfig& c) {
  if (c.center) return std::nullopt;
  double turn = std::fmod(c.angle, 360.0);
  if (turn < 0) turn += 360.0;
  if (turn == 0.0) return x.clone();
  if (turn == 180.0) return resample::reversed_along(resample::reversed_along(x, 2), 3);
  if ((turn != 90.0 && turn != 270.0) || !(c.expand || x.size(2) == x.size(3))) return std::nullopt;
  // rot90 k=1: flip the columns, then swap the axes; k=3: flip the rows first.
  return resample::reversed_along(x, turn == 90.0 ? 3 : 2).transpose(2, 3).contiguous();
}

class Rotate final : public ConfiguredTransform<RotateConfig> {
 public:
  Rotate()
      : ConfiguredTransform(
            Describe("rotate", "geometry",
                     "rotation counter-clockwise about the centre, optionally expanded to fit (torchvision)")
                .dtypes(kImageDtypes)
                .differentiable()) {}

 private:
  at::Tensor run(const at::Tensor& x, const RotateConfig& c) const override {
    DEVPARITY_TRACE_SCOPE("rotate");
    if (auto turned = quarter_turn(x, c)) return *turned;
    const auto m = inverse_affine(centred(c.center, x.sizes()), -c.angle, {0, 0}, 1.0, {0, 0});
    if (!c.expand) return affine_warp(x, m, c.warp);
    const auto [oh, ow] = expanded_size(m, x.size(2), x.size(3));
    return affine_warp(x, m, c.warp, oh, ow);
  }
};

}  // namespace

void register_rotate(TransformRegistry& registry) {
  registry.add(std::make_unique<Rotate>());
}

}  // namespace devparity
