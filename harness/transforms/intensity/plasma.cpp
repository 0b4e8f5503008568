// The plasma augmentations of the intensity family, each a seeded field
// registered as state (transforms/random/seeded_field.h).
//
//   plasma_brightness(intensity), plasma_shadow(intensity, quantity): Kornia's
//     plasma augmentations on a diamond-square field P in [0, 1] per sample
//     (below): brightness clamp(x + intensity P, 0, 1); shadow
//     x (1 + intensity [P < quantity]) with intensity in [-1, 0]. The field's
//     random stream is ours, not Kornia's, so outputs match Kornia's in
//     distribution, not draw for draw.
//
// Diamond-square: a (2^k + 1)-square grid covering H x W; the four corners
// U(0, 1); then per level, with amplitude a (1, times roughness each level):
// every square's centre is the mean of its corners + U(-a, a), then every
// edge midpoint the mean of its (3 or 4) neighbours + U(-a, a), draws in row
// order; min-max normalised, the top-left H x W kept.

#include "harness/base/json_reader.h"
#include "harness/subject/describe.h"
#include "harness/subject/transform_registry.h"
#include "harness/transforms/builtin_transforms.h"
#include "harness/transforms/random/seeded_field.h"

#include <ATen/ATen.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

namespace devparity {
namespace {

// One H x W diamond-square field in [0, 1] (see the header comment).
std::vector<double> diamond_square(at::Generator& gen, int64_t h, int64_t w, double roughness) {
  int64_t n = 2;
  while (n + 1 < std::max(h, w)) n *= 2;
  const int64_t size = n + 1;
  std::vector<double> g(static_cast<size_t>(size * size), 0.0);
  auto at_ = [&](int64_t y, int64_t x) -> double& { return g[static_cast<size_t>(y * size + x)]; };
  auto draws = [&](int64_t count) {
    const auto t = at::rand({count}, gen, at::kDouble);
    return std::vector<double>(t.data_ptr<double>(), t.data_ptr<double>() + count);
  };
  const auto corners = draws(4);
  at_(0, 0) = corners[0], at_(0, n) = corners[1], at_(n, 0) = corners[2], at_(n, n) = corners[3];
  double amplitude = 1.0;
  for (int64_t step = n; step >= 2; step /= 2, amplitude *= roughness) {
    const int64_t half = step / 2, cells = n / step;
    auto diamond = draws(cells * cells);
    size_t k = 0;
    for (int64_t y = half; y < size; y += step) {
      for (int64_t x = half; x < size; x += step) {
        const double mean = (at_(y - half, x - half) + at_(y - half, x + half) + at_(y + half, x - half) +
                             at_(y + half, x + half)) / 4.0;
        at_(y, x) = mean + (diamond[k++] * 2.0 - 1.0) * amplitude;
      }
    }
    std::vector<std::pair<int64_t, int64_t>> edges;
    for (int64_t y = 0; y < size; y += half) {
      for (int64_t x = (y / half) % 2 == 0 ? half : 0; x < size; x += step) edges.emplace_back(y, x);
    }
    auto square = draws(static_cast<int64_t>(edges.size()));
    k = 0;
    for (const auto& [y, x] : edges) {
      double sum = 0.0;
      int count = 0;
      for (const auto& [dy, dx] : {std::pair<int64_t, int64_t>{-half, 0}, {half, 0}, {0, -half}, {0, half}}) {
        if (y + dy < 0 || y + dy >= size || x + dx < 0 || x + dx >= size) continue;
        sum += at_(y + dy, x + dx);
        ++count;
      }
      at_(y, x) = sum / count + (square[k++] * 2.0 - 1.0) * amplitude;
    }
  }
  std::vector<double> out;
  for (int64_t y = 0; y < h; ++y) {
    for (int64_t x = 0; x < w; ++x) out.push_back(at_(y, x));
  }
  const auto [lo, hi] = std::minmax_element(out.begin(), out.end());
  const double low = *lo, span = *hi - *lo;
  for (auto& v : out) v = span > 0 ? (v - low) / span : 0.0;
  return out;
}

class Plasma : public SeededFieldTransform {
 protected:
  /// `own` are the subclass's settings, between roughness and the seed.
  Plasma(std::string name, std::string meaning, std::vector<FieldSetting> own)
      : SeededFieldTransform(Describe(std::move(name), "intensity", std::move(meaning))
                                 .dtypes(kFloatDtypes)
                                 .differentiable(),
                             with_roughness(std::move(own))) {}

 private:
  static std::vector<FieldSetting> with_roughness(std::vector<FieldSetting> own) {
    own.insert(own.begin(), {"roughness", 0.5, 0.0, 1.0, "number in [0, 1]",
                             "amplitude ratio between levels: higher is rougher"});
    return own;
  }

 protected:
  at::Tensor draw(at::Generator& gen, std::vector<int64_t> shape, const nlohmann::json& settings) const override {
    auto field = at::empty({shape[0], 1, shape[2], shape[3]}, at::kFloat);
    for (int64_t b = 0; b < shape[0]; ++b) {
      const auto values = diamond_square(gen, shape[2], shape[3], settings.at("roughness").get<double>());
      auto* p = field.data_ptr<float>() + b * shape[2] * shape[3];
      for (size_t i = 0; i < values.size(); ++i) p[i] = static_cast<float>(values[i]);
    }
    return field;
  }
};

class PlasmaBrightness final : public Plasma {
 public:
  PlasmaBrightness()
      : Plasma("plasma_brightness", "adds a diamond-square plasma field, clamped (Kornia's RandomPlasmaBrightness)",
               {{"intensity", 0.2, 0.0, 1.0, "number in [0, 1]", "the field's scale"}}) {}

 private:
  at::Tensor run_with(const at::Tensor& x, const at::Tensor& field, const nlohmann::json& s) const override {
    return (x + field.to(x.scalar_type()) * s.at("intensity").get<double>()).clamp(0.0, 1.0);
  }
};

class PlasmaShadow final : public Plasma {
 public:
  PlasmaShadow()
      : Plasma("plasma_shadow",
               "darkens where a diamond-square plasma field is below a quantity (Kornia's RandomPlasmaShadow)",
               {{"intensity", -0.5, -1.0, 0.0, "number in [-1, 0]", "-1: black shadows, 0: none"},
                {"quantity", 0.5, 0.0, 1.0, "number in [0, 1]", "field level below which the shadow falls"}}) {}

 private:
  at::Tensor run_with(const at::Tensor& x, const at::Tensor& field, const nlohmann::json& s) const override {
    const auto shade = field.lt(s.at("quantity").get<double>()).to(x.scalar_type()) * s.at("intensity").get<double>();
    return x * (shade + 1.0);
  }
};

}  // namespace

void register_plasma(TransformRegistry& registry) {
  registry.add(std::make_unique<PlasmaBrightness>());
  registry.add(std::make_unique<PlasmaShadow>());
}

}  // namespace devparity
