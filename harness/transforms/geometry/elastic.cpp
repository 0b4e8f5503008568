// elastic_transform(alpha, sigma): torchvision's ElasticTransform draws:
// dx = 2 U - 1 on an H x W field, blurred (reflect) with kernel int(8 sigma + 1)
// made odd, times alpha_x / H; dy likewise with alpha_y / W; source = (j +
// dx W / 2, i + dy H / 2). The field is registered state made on the CPU from
// a drawn seed, so it follows the subject to the device.

#include "harness/subject/configured.h"
#include "harness/subject/fields.h"
#include "harness/subject/state.h"
#include "harness/subject/stateful_image.h"
#include "harness/transforms/geometry/warp_options.h"
#include "harness/transforms/kernels/grid_sampler.h"
#include "harness/transforms/kernels/resize_and_blur.h"
#include "harness/transforms/random/draws.h"
#include "harness/transforms/random/random_transform.h"
#include "harness/subject/transform_registry.h"
#include "harness/trace/scope.h"
#include "harness/transforms/builtin_transforms.h"

#include <ATen/ATen.h>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

namespace devparity {
namespace {

int64_t elastic_kernel(double sigma) {
  auto k = static_cast<int64_t>(8 * sigma + 1);
  return k % 2 == 0 ? k + 1 : k;
}

// What the field is made with, declared once; the seed is drawn apart.
struct ElasticSettings : DeclaredFields<ElasticSettings> {
  std::pair<double, double> alpha{50, 50}, sigma{5, 5};
  WarpOptions warp;
  static void declare(Fields<ElasticSettings>& f) {
    f.pair("alpha", &ElasticSettings::alpha, {50, 50}, 0, 1e6, "number or [ax, ay] >= 0",
           "displacement strength in pixels")
        .pair("sigma", &ElasticSettings::sigma, {5, 5}, 0, 1e3, "number or [sx, sy] >= 0", "smoothness of the field")
        .part(&ElasticSettings::warp, Interpolation::kBilinear);
  }
  void check(c10::IntArrayRef shape) const { warp.check(shape); }
};

class Elastic final : public RandomTransform<ElasticSettings, StatefulImageTransform> {
 public:
  Elastic()
      : RandomTransform(
            Describe(
                "elastic_transform", "geometry",
                "torchvision's ElasticTransform: a smoothed random displacement field (registered state); "
                "uint8 results are rounded and saturated to 0..255, where torchvision 0.21 rounds bicubic "
                "overshoot without clamping, so it wraps (279 becomes 23)")
                .params({random_draws::kFieldSeed.doc()})
                .derived("size", "[H, W] integers", "the input's height and width",
                         "the size the displacement field is drawn for")
                .dtypes(kImageDtypes)
                .differentiable()) {}

  std::unique_ptr<TransformState> make_state(const nlohmann::json& p) const override {
    const auto size = p.at("size").get<std::vector<int64_t>>();
    const auto alpha = p.at("alpha").get<std::vector<double>>();
    const auto sigma = p.at("sigma").get<std::vector<double>>();
    auto gen = at::make_generator<at::CPUGeneratorImpl>(p.at("seed").get<uint64_t>());
    // torchvision's draw order: dx, blurred, scaled; then dy.
    auto field = [&](int axis, double scale) {
      auto d = at::rand({1, 1, size[0], size[1]}, gen, at::kFloat) * 2 - 1;
      if (sigma[static_cast<size_t>(axis)] > 0.0) {
        const auto k = elastic_kernel(sigma[static_cast<size_t>(axis)]);
        d = gaussian_blur(d, k, k, {{sigma[1], sigma[0]}}, Border::kReflect);
      }
      return d * alpha[static_cast<size_t>(axis)] / scale;
    };
    const auto dx = field(0, static_cast<double>(size[0]));
    const auto dy = field(1, static_cast<double>(size[1]));
    auto state = std::make_unique<TransformState>();
    state->register_tensor("displacement", at::cat({dx, dy}, 1));
    return state;
  }

  at::Tensor run(const at::Tensor& x, const nlohmann::json& p, TransformState& state) const override {
    ObjectReader r(p);
    const auto o = ElasticSettings::read(r).warp;
    const auto size = r.integers("size", 2, 1, int64_t{1} << 31);
    TORCH_CHECK(size[0] == x.size(2) && size[1] == x.size(3), "elastic_transform: a field for ", size[0], "x",
                size[1], ", input ", x.sizes());
    const int64_t h = x.size(2), w = x.size(3);
    const auto dtype = sampler::compute_dtype(x);
    const auto field = state.tensor("displacement").to(dtype);
    const auto [cols, rows] = warp_positions(x, dtype, h, w, 0.0, 0.0);
    const auto sx = cols + field.select(1, 0) * (w / 2.0);
    const auto sy = rows + field.select(1, 1) * (h / 2.0);
    return warp_with(x, sx, sy, o);
  }

 private:
  void draw(const ElasticSettings&, ObjectReader& given, c10::IntArrayRef shape, at::Generator& gen,
            nlohmann::json& out) const override {
    out[random_draws::kFieldSeed.name] = random_draws::kFieldSeed.read(given, gen);
    out["size"] = {shape[2], shape[3]};
  }
};

}  // namespace

void register_elastic(TransformRegistry& registry) {
  registry.add(std::make_unique<Elastic>());
}

}  // namespace devparity
