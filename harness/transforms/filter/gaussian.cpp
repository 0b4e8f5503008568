// gaussian_blur2d and unsharp_mask (filter family), Kornia's semantics.
//
// unsharp_mask: x + (x - gaussian_blur2d(x)), unclamped (Kornia's
// unsharp_mask; floats only there, so here).
//
// Kernel per axis: x = k - kernel_size // 2, w = exp(-x^2 / (2 sigma^2)),
// normalised to sum 1 (kernel sizes are odd). The image is padded by
// (kernel_size - 1) / 2 on each side with the border mode and correlated, W
// first, then H, as Kornia's separable path does. Padding is a gather of
// computed source positions followed by shifted slices, so the meta device,
// which has no conv2d in LibTorch 1.13, runs it too.

#include "harness/base/error.h"
#include "harness/base/json_reader.h"
#include "harness/subject/configured.h"
#include "harness/subject/describe.h"
#include "harness/subject/fields.h"
#include "harness/subject/transform_registry.h"
#include "harness/trace/scope.h"
#include "harness/transforms/builtin_transforms.h"
#include "harness/transforms/kernels/resize_and_blur.h"
#include "harness/transforms/kernels/resize_engine.h"

#include <ATen/ATen.h>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <utility>
#include <vector>

namespace devparity {
namespace {

using resample::TapTable;

const std::vector<Border> kBorders = {Border::kReflect, Border::kReplicate, Border::kConstant, Border::kCircular};

// (sy, sx) of a sigma field at `p`.
std::pair<double, double> read_sigma_pair(const nlohmann::json& v, const std::string& p) {
  if (!v.is_array() || v.size() != 2) throw FieldError(p, fmt::format("expected [sy, sx], got {}", describe_json(v)));
  return {read_number(v[0], p + "/0", 1e-6, 1e6), read_number(v[1], p + "/1", 1e-6, 1e6)};
}

struct BlurConfig : DeclaredFields<BlurConfig> {
  int64_t ky = 0, kx = 0;
  std::vector<std::pair<double, double>> sigma;  // (sy, sx) per sample, or one pair for all
  Border border = Border::kReflect;

  static void declare(Fields<BlurConfig>& f) {
    f.field({"kernel_size", "[ky, kx] odd integers in [1, 255]", "required", "kernel height, width"},
            [](ObjectReader& reader, BlurConfig& c) {
              const auto k = reader.integers("kernel_size", 2, 1, 255);
              for (size_t i = 0; i < 2; ++i) {
                if (k[i] % 2 == 0) {
                  throw FieldError(reader.pointer("kernel_size") + "/" + std::to_string(i),
                                   fmt::format("kernel size must be odd, got {}", k[i]));
                }
              }
              c.ky = k[0];
              c.kx = k[1];
            },
            [](const BlurConfig& c, nlohmann::json& out) { out["kernel_size"] = {c.ky, c.kx}; })
        .field({"sigma", "[sy, sx] or [[sy, sx], ...] per sample", "required",
                "standard deviations (> 0) along H and W; a list gives one pair per sample"},
               [](ObjectReader& reader, BlurConfig& c) {
                 const auto& sigma = reader.require("sigma", "[sy, sx] or a list of per-sample [sy, sx]");
                 const std::string ptr = reader.pointer("sigma");
                 if (sigma.is_array() && !sigma.empty() && sigma[0].is_array()) {
                   for (size_t i = 0; i < sigma.size(); ++i) {
                     c.sigma.push_back(read_sigma_pair(sigma[i], ptr + "/" + std::to_string(i)));
                   }
                 } else {
                   c.sigma.push_back(read_sigma_pair(sigma, ptr));
                 }
               },
               [](const BlurConfig& c, nlohmann::json& out) {
                 if (c.sigma.size() == 1) {
                   out["sigma"] = {c.sigma[0].first, c.sigma[0].second};
                   return;
                 }
                 auto list = nlohmann::json::array();
                 for (const auto& s : c.sigma) list.push_back({s.first, s.second});
                 out["sigma"] = list;
               });
    mode_field(f, "border", &BlurConfig::border, Border::kReflect, kBorders,
               "padding: mirror without repeating the edge, edge value, zeros, wrap around");
  }

  void check(c10::IntArrayRef shape) const {
    if (sigma.size() != 1 && static_cast<int64_t>(sigma.size()) != shape[0]) {
      throw FieldError("/sigma", fmt::format("{} per-sample sigmas for a batch of {} (give one "
                                             "[sy, sx] pair, or one per sample)",
                                             sigma.size(), shape[0]));
    }
  }
};

// One row of weights per sigma, each built from scalars on the device, so no
// host tensor is copied to the device.
at::Tensor gaussian_weights(int64_t size, const std::vector<double>& sigmas,
                            const at::TensorOptions& coords) {
  DEVPARITY_TRACE_SCOPE("gaussian_kernel");
  const auto x = at::arange(size, coords) - static_cast<double>(size / 2);
  const auto neg_x2 = (x * x).neg();
  const bool single = coords.dtype() == at::kFloat;
  std::vector<at::Tensor> rows;
  for (double s : sigmas) {
    // 2 * sigma^2 rounded as Kornia computes it in the kernel's dtype.
    const float sf = static_cast<float>(s);
    const double denominator = single ? static_cast<double>(2.0f * (sf * sf)) : 2.0 * s * s;
    const auto w = at::exp(neg_x2 / denominator);
    rows.push_back(w / w.sum());
  }
  return at::stack(rows, 0);  // (Bw, size)
}

TapTable axis_taps(int64_t size, int64_t kernel, const std::vector<double>& sigmas,
                   Border border, const at::TensorOptions& coords) {
  auto t = resample::centred_window(size, kernel, border, coords.dtype(at::kLong));
  t.weight = gaussian_weights(kernel, sigmas, coords).unsqueeze(1);  // (Bw, 1, K)
  return t;
}

class GaussianBlur2d final : public ConfiguredTransform<BlurConfig> {
 public:
  GaussianBlur2d()
      : ConfiguredTransform(
            Describe("gaussian_blur2d", "filter",
                     "Separable Gaussian blur (Kornia semantics); uint8 in fixed point")
                .dtypes(kImageDtypes)
                .differentiable()) {}

 private:
  at::Tensor run(const at::Tensor& x, const BlurConfig& c) const override {
    return gaussian_blur(x, c.ky, c.kx, c.sigma, c.border);
  }
};

}  // namespace

at::Tensor gaussian_blur(const at::Tensor& x, int64_t ky, int64_t kx,
                         const std::vector<std::pair<double, double>>& sigma,
                         Border border) {
  DEVPARITY_TRACE_SCOPE("gaussian_blur2d");
  // Kornia builds the kernel in the input's dtype; the fixed-point path
  // quantises float64 weights.
  const bool float32 = x.scalar_type() == at::kFloat;
  const auto coords = x.options().dtype(float32 ? at::kFloat : at::kDouble);
  std::vector<double> sy, sx;
  for (const auto& s : sigma) {
    sy.push_back(s.first);
    sx.push_back(s.second);
  }
  TapTable th, tw;
  if (ky > 1) th = axis_taps(x.size(2), ky, sy, border, coords);
  if (kx > 1) tw = axis_taps(x.size(3), kx, sx, border, coords);
  return resample::separable(x, ky > 1 ? &th : nullptr, kx > 1 ? &tw : nullptr,
                             resample::Uint8Path::kFixedPoint);
}

namespace {

class UnsharpMask final : public ConfiguredTransform<BlurConfig> {
 public:
  // gaussian_blur2d's parameters (BlurConfig's), which it takes too.
  UnsharpMask()
      : ConfiguredTransform(Describe("unsharp_mask", "filter", "x + (x - gaussian_blur2d(x)), unclamped (Kornia)")
                                .dtypes(kFloatDtypes)
                                .differentiable()) {}

 private:
  at::Tensor run(const at::Tensor& x, const BlurConfig& c) const override {
    DEVPARITY_TRACE_SCOPE("unsharp_mask");
    return x + (x - gaussian_blur(x, c.ky, c.kx, c.sigma, c.border));
  }
};

}  // namespace

void register_gaussian(TransformRegistry& registry) {
  registry.add(std::make_unique<GaussianBlur2d>());
  registry.add(std::make_unique<UnsharpMask>());
}

}  // namespace devparity
