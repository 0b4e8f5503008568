// affine(angle, translate, scale, shear, center) with torchvision v2's
// semantics: the inverse map of affine_map.h, sampled by grid_sampler.h.
// uint8 runs in float32 and is rounded back; fill blends towards a colour
// where the sampled area left the image (zeros padding only).

#include "harness/base/error.h"
#include "harness/subject/configured.h"
#include "harness/transforms/geometry/affine_map.h"
#include "harness/subject/transform_registry.h"
#include "harness/trace/scope.h"
#include "harness/transforms/builtin_transforms.h"

#include <ATen/ATen.h>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

namespace devparity {
namespace {

// torchvision: a number s is the shear (s, 0) (along x only).
std::pair<double, double> read_shear(ObjectReader& r) {
  if (const auto* v = r.get("shear"); v != nullptr && v->is_number()) {
    return {r.number("shear", std::nullopt, -89.0, 89.0), 0.0};
  }
  return r.pair("shear", {0, 0}, -89.0, 89.0);
}

struct AffineConfig : DeclaredFields<AffineConfig> {
  double angle = 0, scale = 1;
  std::pair<double, double> translate{0, 0}, shear{0, 0};
  std::optional<std::pair<double, double>> center;
  WarpOptions warp;
  static void declare(Fields<AffineConfig>& f) {
    f.number("angle", &AffineConfig::angle, 0.0, -1e4, 1e4, "number (degrees)", "clockwise, as torchvision's affine")
        .pair("translate", &AffineConfig::translate, {0, 0}, -1e6, 1e6, "[tx, ty] pixels",
              "shift after the rotation, scale and shear")
        .number("scale", &AffineConfig::scale, 1.0, 1e-6, 1e6, "number > 0", "zoom about the centre")
        .field({"shear", "s (along x) or [sx, sy] degrees in [-89, 89]", "[0, 0]", "shear angles, torchvision's"},
               [](ObjectReader& r, AffineConfig& c) { c.shear = read_shear(r); },
               [](const AffineConfig& c, nlohmann::json& out) { out["shear"] = {c.shear.first, c.shear.second}; });
    add_center_and_warp(f, Interpolation::kNearest);
  }
  void check(c10::IntArrayRef shape) const { warp.check(shape); }
};

class Affine final : public ConfiguredTransform<AffineConfig> {
 public:
  Affine()
      : ConfiguredTransform(
            Describe("affine", "geometry",
                     "rotation, translation, scale and shear about the centre (torchvision)")
                .dtypes(kImageDtypes)
                .differentiable()) {}

 private:
  at::Tensor run(const at::Tensor& x, const AffineConfig& c) const override {
    DEVPARITY_TRACE_SCOPE("affine");
    return affine_warp(x, inverse_affine(centred(c.center, x.sizes()), c.angle, c.translate, c.scale, c.shear), c.warp);
  }
};

}  // namespace

void register_affine(TransformRegistry& registry) {
  registry.add(std::make_unique<Affine>());
}

}  // namespace devparity
