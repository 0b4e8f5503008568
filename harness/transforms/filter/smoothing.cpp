// box_blur, median_blur and motion_blur (filter family), Kornia's semantics
// (kornia/filters/blur.py, median.py, motion.py):
//
//   box_blur(k, border):   the mean of the ky x kx window, the image padded
//                          by ((k - 1) // 2, k - 1 - (k - 1) // 2) with the
//                          border mode (default reflect); separable, uint8 in
//                          fixed point (kernels/resize_engine.h)
//   median_blur(k):        the lower median of the window over a zero-padded
//                          image (torch.median's choice), odd k
//   motion_blur(k, angle, direction, border):
//                          d = (clamp(direction, -1, 1) + 1) / 2; a k x k
//                          kernel whose middle row is d + (1 - 2 d) i / (k - 1),
//                          rotated counter-clockwise by angle about its centre
//                          with nearest sampling (align_corners: source =
//                          R^-1 (p - c) + c, rounded half to even, zeros
//                          outside), normalised to sum 1; then correlated with
//                          the image padded by (k - 1) / 2 with the border mode
//                          (default constant)
//
// The motion kernel is a handful of numbers computed on the host from the
// parameters and applied as scalar weights of shifted slices: the image never
// leaves its device and no kernel tensor has to follow it.

#include "harness/base/error.h"
#include "harness/base/json_reader.h"
#include "harness/subject/configured.h"
#include "harness/subject/describe.h"
#include "harness/subject/fields.h"
#include "harness/subject/transform_registry.h"
#include "harness/trace/scope.h"
#include "harness/transforms/builtin_transforms.h"
#include "harness/transforms/kernels/image_math.h"
#include "harness/transforms/kernels/resize_engine.h"

#include <ATen/ATen.h>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>

namespace devparity {
namespace {

const std::vector<Border> kBorders = {Border::kReflect, Border::kReplicate, Border::kConstant, Border::kCircular};

std::pair<int64_t, int64_t> read_kernel(ObjectReader& r, bool odd) {
  const auto* v = r.get("kernel_size");
  std::vector<int64_t> k;
  if (v != nullptr && v->is_number()) {
    const auto n = r.integer("kernel_size", std::nullopt, 1, 255);
    k = {n, n};
  } else {
    k = r.integers("kernel_size", 2, 1, 255);
  }
  for (size_t i = 0; i < 2 && odd; ++i) {
    if (k[i] % 2 == 0) throw FieldError(r.pointer("kernel_size"), fmt::format("kernel size must be odd, got {}", k[i]));
  }
  return {k[0], k[1]};
}

// kernel_size: k or [ky, kx] (odd when `odd`), into the config's ky and kx.
template <typename Config>
Fields<Config>& kernel_field(Fields<Config>& f, bool odd) {
  return f.field({"kernel_size", odd ? "k or [ky, kx] odd integers in [1, 255]" : "k or [ky, kx] integers in [1, 255]",
                  "required", "window height, width (k: square)"},
                 [=](ObjectReader& r, Config& c) { std::tie(c.ky, c.kx) = read_kernel(r, odd); },
                 [](const Config& c, nlohmann::json& out) { out["kernel_size"] = {c.ky, c.kx}; });
}

// ---------------------------------------------------------------- box

struct BoxConfig : DeclaredFields<BoxConfig> {
  int64_t ky = 3, kx = 3;
  Border border = Border::kReflect;
  static void declare(Fields<BoxConfig>& f) {
    kernel_field(f, false);
    mode_field(f, "border", &BoxConfig::border, Border::kReflect, kBorders, "padding");
  }
};

resample::TapTable box_taps(int64_t size, int64_t kernel, Border border, const at::TensorOptions& coords) {
  auto t = resample::centred_window(size, kernel, border, coords.dtype(at::kLong));
  t.weight = at::full({1, 1, kernel}, 1.0 / static_cast<double>(kernel), coords);
  return t;
}

class BoxBlur final : public ConfiguredTransform<BoxConfig> {
 public:
  BoxBlur()
      : ConfiguredTransform(
            Describe("box_blur", "filter", "mean over a ky x kx window (Kornia); uint8 in fixed point")
                .dtypes(kImageDtypes)
                .differentiable()) {}

 private:
  at::Tensor run(const at::Tensor& x, const BoxConfig& c) const override {
    DEVPARITY_TRACE_SCOPE("box_blur");
    const auto coords = x.options().dtype(x.scalar_type() == at::kFloat ? at::kFloat : at::kDouble);
    resample::TapTable th, tw;
    if (c.ky > 1) th = box_taps(x.size(2), c.ky, c.border, coords);
    if (c.kx > 1) tw = box_taps(x.size(3), c.kx, c.border, coords);
    return resample::separable(x, c.ky > 1 ? &th : nullptr, c.kx > 1 ? &tw : nullptr, resample::Uint8Path::kFixedPoint);
  }
};

// ---------------------------------------------------------------- median

struct MedianConfig : DeclaredFields<MedianConfig> {
  int64_t ky = 3, kx = 3;
  static void declare(Fields<MedianConfig>& f) {
    kernel_field(f, true);
  }
};

class MedianBlur final : public ConfiguredTransform<MedianConfig> {
 public:
  MedianBlur()
      : ConfiguredTransform(
            Describe("median_blur", "filter", "median of the window over a zero-padded image (Kornia)")
                .dtypes(kImageDtypes)
                .differentiable()) {}

 private:
  at::Tensor run(const at::Tensor& x, const MedianConfig& c) const override {
    DEVPARITY_TRACE_SCOPE("median_blur");
    const int64_t ry = c.ky / 2, rx = c.kx / 2;
    const auto padded = image::pad(x, ry, ry, rx, rx, Border::kConstant, 0.0);
    const auto windows = padded.unfold(2, c.ky, 1).unfold(3, c.kx, 1).reshape(
        {x.size(0), x.size(1), x.size(2), x.size(3), c.ky * c.kx});
    // torch.median's lower median; sort is what meta runs (median is not).
    // Stable: the gradient goes to one of equal values, the same one on every
    // device (CUDA's unstable sort orders ties otherwise than the CPU's).
    return std::get<0>(windows.sort(/*stable=*/true, -1, /*descending=*/false)).select(-1, (c.ky * c.kx - 1) / 2);
  }
};

// ---------------------------------------------------------------- motion

struct MotionConfig : DeclaredFields<MotionConfig> {
  int64_t k = 5;
  double angle = 0, direction = 0;
  Border border = Border::kConstant;
  static void declare(Fields<MotionConfig>& f) {
    f.field({"kernel_size", "odd integer in [3, 255]", "required", "the line's length and the square kernel's side"},
            [](ObjectReader& r, MotionConfig& c) {
              c.k = r.integer("kernel_size", std::nullopt, 3, 255);
              if (c.k % 2 == 0) {
                throw FieldError(r.pointer("kernel_size"), fmt::format("kernel size must be odd, got {}", c.k));
              }
            },
            [](const MotionConfig& c, nlohmann::json& out) { out["kernel_size"] = c.k; })
        .number("angle", &MotionConfig::angle, std::nullopt, -1e4, 1e4, "number (degrees)",
                "counter-clockwise from horizontal")
        .number("direction", &MotionConfig::direction, 0.0, -1e6, 1e6, "number in [-1, 1]",
                "-1: weight at the start, 0 uniform, 1 at the end");
    mode_field(f, "border", &MotionConfig::border, Border::kConstant, kBorders, "padding");
  }

  // Row-major k x k weights (Kornia's get_motion_kernel2d), in float64.
  std::vector<double> kernel() const {
    const double d = (std::clamp(direction, -1.0, 1.0) + 1.0) / 2.0;
    std::vector<double> line(static_cast<size_t>(k));
    for (int64_t i = 0; i < k; ++i) line[static_cast<size_t>(i)] = d + ((1.0 - 2.0 * d) / static_cast<double>(k - 1)) * i;
    const double theta = angle * M_PI / 180.0, ca = std::cos(theta), sa = std::sin(theta), centre = (k - 1) / 2.0;
    std::vector<double> out(static_cast<size_t>(k * k), 0.0);
    double sum = 0.0;
    for (int64_t y = 0; y < k; ++y) {
      for (int64_t x = 0; x < k; ++x) {
        const double sx = ca * (x - centre) - sa * (y - centre) + centre;
        const double sy = sa * (x - centre) + ca * (y - centre) + centre;
        const auto ix = static_cast<int64_t>(std::nearbyint(sx)), iy = static_cast<int64_t>(std::nearbyint(sy));
        if (iy == k / 2 && ix >= 0 && ix < k) out[static_cast<size_t>(y * k + x)] = line[static_cast<size_t>(ix)];
        sum += out[static_cast<size_t>(y * k + x)];
      }
    }
    for (auto& w : out) w /= sum;
    return out;
  }
};

class MotionBlur final : public ConfiguredTransform<MotionConfig> {
 public:
  MotionBlur()
      : ConfiguredTransform(
            Describe("motion_blur", "filter",
                     "a line kernel rotated by an angle, weighted along it by direction (Kornia)")
                .dtypes(kFloatDtypes)
                .differentiable()) {}

 private:
  at::Tensor run(const at::Tensor& x, const MotionConfig& c) const override {
    DEVPARITY_TRACE_SCOPE("motion_blur");
    const auto weights = c.kernel();
    const int64_t r = c.k / 2;
    std::vector<std::pair<int64_t, int64_t>> offsets;
    std::vector<double> taps;
    for (int64_t y = 0; y < c.k; ++y) {
      for (int64_t xx = 0; xx < c.k; ++xx) {
        const double w = weights[static_cast<size_t>(y * c.k + xx)];
        if (w == 0.0) continue;
        offsets.emplace_back(y - r, xx - r);
        taps.push_back(w);
      }
    }
    // The full radius even where the kernel's outer rows are zero, so the
    // output keeps the input's size.
    return image::stencil(image::pad(x, r, r, r, r, c.border), offsets, taps, r, r);
  }
};

}  // namespace

void register_smoothing(TransformRegistry& registry) {
  registry.add(std::make_unique<BoxBlur>());
  registry.add(std::make_unique<MedianBlur>());
  registry.add(std::make_unique<MotionBlur>());
}

}  // namespace devparity
