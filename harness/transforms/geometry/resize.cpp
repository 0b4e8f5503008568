// The geometry family: resize (the reference resampler) and rescale (Kornia's
// factor-based resize with its Gaussian antialias).
//
// Note [resize semantics]
// Follows LibTorch's interpolate (UpSample.h, UpSampleKernel.cpp), axis by
// axis, W then H, skipping an axis whose size does not change (every mode is
// the identity there):
//  - nearest: src = min(floor(dst * (in / out)), in - 1), in float32 as ATen
//    computes it (the legacy OpenCV rule, not nearest-exact).
//  - bilinear: half-pixel centres, src = scale * (dst + 0.5) - 0.5 clamped at
//    0, or src = scale * dst with align_corners; taps floor(src) and the next
//    pixel (the edge pixel twice at the far border).
//  - bicubic: the same source coordinate without the clamp, four taps around
//    floor(src) clamped to the image, Keys' cubic with a = -0.75.
//  - area: adaptive average pooling, window [floor(o*in/out), ceil((o+1)*in/out)).
//  - antialias (bilinear/bicubic): Pillow's filter, support widened by the
//    downscale factor, window clipped to the image and weights renormalised;
//    bicubic then uses a = -0.5.
// The scale is rounded to the input's float dtype as ATen does; coordinates
// and weights are computed in float64 on the input's device.

#include "harness/base/error.h"
#include "harness/base/json_reader.h"
#include "harness/subject/configured.h"
#include "harness/subject/describe.h"
#include "harness/subject/transform_registry.h"
#include "harness/trace/scope.h"
#include "harness/transforms/builtin_transforms.h"
#include "harness/transforms/kernels/cpu_uint8_resize.h"
#include "harness/transforms/kernels/cuda_float_resize.h"
#include "harness/transforms/kernels/resize_and_blur.h"
#include "harness/transforms/kernels/resize_config.h"
#include "harness/transforms/kernels/resize_engine.h"
#include "harness/transforms/kernels/resize_taps.h"

#include <ATen/ATen.h>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>

namespace devparity {
namespace {

// resize's parameters: interpolate's, plus the uint8 strategy.
struct ResizeParams {
  ResizeConfig size;
  Uint8Strategy uint8;

  static ResizeParams read(ObjectReader& reader) { return {ResizeConfig::read(reader), Uint8Strategy::read(reader)}; }
  void check(c10::IntArrayRef shape) const { size.check(shape); }
  void write(nlohmann::json& out) const {
    size.write(out);
    uint8.write(out);
  }
};

class Resize final : public ConfiguredTransform<ResizeParams> {
 public:
  Resize()
      : ConfiguredTransform(
            Describe("resize", "geometry",
                     "Reference resize with LibTorch interpolate semantics; uint8 in bit-exact fixed point, "
                     "through a float round trip (the CUDA path) or as LibTorch's CPU uint8 kernel")
                .params(ResizeConfig::fields().docs())
                .params(Uint8Strategy::docs())
                .dtypes(kImageDtypes)
                .differentiable()) {}

 private:
  at::Tensor run(const at::Tensor& x, const ResizeParams& p) const override {
    return resize_image(x, p.size, p.uint8.path);
  }
};

// rescale's parameters.
struct RescaleParams : DeclaredFields<RescaleParams> {
  double fy = 1.0, fx = 1.0;
  Interpolation interpolation = Interpolation::kBilinear;
  bool antialias = false;
  bool align_corners = false;

  static void declare(Fields<RescaleParams>& f) {
    f.field({"factor", "number or [fy, fx] in [0.001, 64]", "required", "output size (int(H*fy), int(W*fx))"},
            [](ObjectReader& reader, RescaleParams& p) {
              const auto* factor = reader.get("factor");
              if (factor == nullptr) throw FieldError("", "missing required field 'factor' (a number or [fy, fx])");
              if (factor->is_number()) {
                p.fy = p.fx = read_number(*factor, "/factor", 1e-3, 64.0);
              } else {
                const auto both = reader.numbers("factor", 2, 1e-3, 64.0);
                p.fy = both[0];
                p.fx = both[1];
              }
            },
            [](const RescaleParams& p, nlohmann::json& out) { out["factor"] = {p.fy, p.fx}; });
    mode_field(f, "interpolation", &RescaleParams::interpolation, Interpolation::kBilinear, interpolation_modes(),
               "resampling mode")
        .boolean("antialias", &RescaleParams::antialias, false,
                 "blur with sigma (f-1)/2 and kernel int(max(4 sigma, 3)) (odd) before downscaling")
        .field({"align_corners", "bool", "false", "bilinear/bicubic only"},
               [](ObjectReader& reader, RescaleParams& p) {
                 p.align_corners = reader.boolean("align_corners", false);
                 if (p.align_corners && !interpolates(p.interpolation)) {
                   throw FieldError("/align_corners",
                                    "align_corners can only be set with bilinear or bicubic interpolation");
                 }
               },
               [](const RescaleParams& p, nlohmann::json& out) { out["align_corners"] = p.align_corners; });
  }
  void check(c10::IntArrayRef shape) const {
    const auto size = rescaled_size(shape[2], shape[3], fy, fx);
    if (size.first < 1 || size.second < 1 || size.first > (1 << 16) || size.second > (1 << 16)) {
      throw FieldError("/factor", fmt::format("factor ({}, {}) gives a {}x{} output for a {}x{} "
                                              "input (each side must be in [1, 65536])",
                                              fy, fx, size.first, size.second, shape[2], shape[3]));
    }
  }
};

class Rescale final : public ConfiguredTransform<RescaleParams> {
 public:
  Rescale()
      : ConfiguredTransform(
            Describe(
                "rescale", "geometry",
                "Kornia's rescale: resize by a factor, antialiased by a Gaussian blur before downscaling")
                .dtypes(kImageDtypes)
                .differentiable()) {}

 private:
  at::Tensor run(const at::Tensor& x, const RescaleParams& p) const override {
    return rescale_image(x, p.fy, p.fx, p.interpolation, p.antialias, p.align_corners);
  }
};

}  // namespace

std::pair<int64_t, int64_t> rescaled_size(int64_t height, int64_t width, double fy, double fx) {
  // Python's int() truncates the float64 product.
  return {static_cast<int64_t>(static_cast<double>(height) * fy),
          static_cast<int64_t>(static_cast<double>(width) * fx)};
}

at::Tensor rescale_image(const at::Tensor& x, double fy, double fx,
                         Interpolation interpolation, bool antialias, bool align_corners) {
  DEVPARITY_TRACE_SCOPE("rescale");
  const int64_t h = x.size(2), w = x.size(3);
  const auto size = rescaled_size(h, w, fy, fx);
  if (size.first == h && size.second == w) return x.clone();
  const double f_h = static_cast<double>(h) / static_cast<double>(size.first);
  const double f_w = static_cast<double>(w) / static_cast<double>(size.second);
  at::Tensor y = x;
  if (antialias && std::max(f_h, f_w) > 1.0) {
    const double s_h = std::max((f_h - 1.0) / 2.0, 0.001);
    const double s_w = std::max((f_w - 1.0) / 2.0, 0.001);
    auto k_h = static_cast<int64_t>(std::max(4.0 * s_h, 3.0));
    auto k_w = static_cast<int64_t>(std::max(4.0 * s_w, 3.0));
    if (k_h % 2 == 0) ++k_h;
    if (k_w % 2 == 0) ++k_w;
    y = gaussian_blur(y, k_h, k_w, {{s_h, s_w}}, Border::kReflect);
  }
  ResizeConfig c;
  c.height = size.first;
  c.width = size.second;
  c.interpolation = interpolation;
  c.align_corners = align_corners;
  return resize_image(y, c);
}

at::Tensor resize_image(const at::Tensor& x, const ResizeConfig& c, resample::Uint8Path path) {
  DEVPARITY_TRACE_SCOPE("resize");
  require_nchw(x.sizes(), "resize");
  const bool is_byte = x.scalar_type() == at::kByte;
  if (is_byte && path == resample::Uint8Path::kCpuKernel) {
    if (resample::cpu_kernel_has(c.interpolation)) return resample::cpu_uint8_resize(x, c);
    path = resample::Uint8Path::kFixedPoint;  // nearest and area: integer-exact there as well
  }
  if (is_byte && path == resample::Uint8Path::kFloatRoundTrip && resample::cuda_float_resize_has(c)) {
    return resample::round_to_uint8(resample::cuda_float_resize(x.to(at::kFloat), c));
  }
  const bool fixed = is_byte && path == resample::Uint8Path::kFixedPoint;
  // ATen rounds the scale to the kernel's dtype: float32 for float32 input
  // and for the float round trip; the fixed-point path is all float64.
  const bool single = x.scalar_type() == at::kFloat || (is_byte && !fixed);
  const auto coords = x.options().dtype(at::kDouble);
  const int64_t in_h = x.size(2), in_w = x.size(3);
  resample::TapTable th, tw;
  if (in_h != c.height) th = resample::axis_taps(c, in_h, c.height, single, coords);
  if (in_w != c.width) tw = resample::axis_taps(c, in_w, c.width, single, coords);
  return resample::separable(x, th.weight.defined() ? &th : nullptr,
                             tw.weight.defined() ? &tw : nullptr, path);
}

void register_resize(TransformRegistry& registry) {
  registry.add(std::make_unique<Resize>());
  registry.add(std::make_unique<Rescale>());
}

}  // namespace devparity
