// Additive and impulse noise. The random field is drawn on the CPU from a
// seed in the parameters and registered as state, so it follows the subject
// to every device: a device's own generator would draw other numbers on each
// device (and on meta, none), and parity would compare noise with noise.
//
//   gaussian_noise(mean, sigma, clip): torchvision v2's gaussian_noise:
//     x + (mean + n sigma), n ~ N(0, 1) per element, clamped to [0, 1] when
//     clip (floats only, as torchvision)
//   salt_and_pepper(amount, salt_vs_pepper): one u ~ U(0, 1) per pixel,
//     shared by the channels (Kornia's RandomSaltAndPepperNoise):
//     u < amount (1 - svp) is pepper (0), u < amount is salt (the bound)
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
#include "harness/subject/configured.h"
#include "harness/subject/generator_seed.h"
#include "harness/subject/state.h"
#include "harness/subject/transform_registry.h"
#include "harness/trace/scope.h"
#include "harness/transforms/builtin_transforms.h"
#include "harness/transforms/kernels/image_math.h"
#include "harness/transforms/random/draws.h"

#include <ATen/ATen.h>
#include <ATen/CPUGeneratorImpl.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <functional>

namespace devparity {
namespace {

// A transform whose state is one seeded field of the input's size.
class SeededFieldTransform : public Described<StatefulTransform> {
 public:
  nlohmann::json sample(const nlohmann::json& given, c10::IntArrayRef shape, at::Generator& gen) const override {
    require_nchw(shape, info_.name);
    ObjectReader r(given);
    nlohmann::json out = read_settings(r);
    out["seed"] = r.has("seed") ? static_cast<uint64_t>(r.integer("seed", std::nullopt, 0, int64_t{1} << 53))
                                : draw_seed(gen);
    r.finish();
    out["shape"] = shape.vec();
    return out;
  }

  std::unique_ptr<TransformState> make_state(const nlohmann::json& p) const override {
    auto shape = p.at("shape").get<std::vector<int64_t>>();
    auto gen = at::make_generator<at::CPUGeneratorImpl>(p.at("seed").get<uint64_t>());
    ObjectReader r(p);
    const auto settings = read_settings(r);
    auto state = std::make_unique<TransformState>();
    state->register_tensor("field", draw(gen, shape, settings));
    return state;
  }

  using StatefulTransform::apply;
  at::Tensor apply(const at::Tensor& x, const nlohmann::json& p, TransformState& state) const override {
    TraceScope scope(info_.name.c_str());
    ObjectReader r(p);
    const auto settings = read_settings(r);
    const auto& field = state.tensor("field");
    TORCH_CHECK(field.size(0) == x.size(0) && field.size(2) == x.size(2) && field.size(3) == x.size(3),
                info_.name, ": a field for ", field.sizes(), ", input ", x.sizes());
    return run(x, field, settings);
  }

 protected:
  virtual nlohmann::json read_settings(ObjectReader& r) const = 0;
  virtual at::Tensor draw(at::Generator& gen, std::vector<int64_t> shape, const nlohmann::json& settings) const = 0;
  virtual at::Tensor run(const at::Tensor& x, const at::Tensor& field, const nlohmann::json& settings) const = 0;

  void document_seed() {
    info_.params.push_back({"seed", "integer >= 0", "drawn", "seed of the field (reports give it, to replay)"});
    info_.random = true;
  }

};

class GaussianNoise final : public SeededFieldTransform {
 public:
  GaussianNoise() {
    info_.name = "gaussian_noise";
    info_.family = "noise";
    info_.description = "x + mean + sigma N(0, 1), clamped (torchvision); the noise is seeded registered state";
    info_.params = {{"mean", "number", "0", ""}, {"sigma", "number >= 0", "0.1", ""},
                    {"clip", "bool", "true", "clamp to [0, 1]"}};
    document_seed();
    info_.dtypes = {at::kFloat, at::kDouble};
    info_.differentiable = true;
  }

 private:
  nlohmann::json read_settings(ObjectReader& r) const override {
    return {{"mean", r.number("mean", 0.0, -1e6, 1e6)}, {"sigma", r.number("sigma", 0.1, 0.0, 1e6)},
            {"clip", r.boolean("clip", true)}};
  }
  at::Tensor draw(at::Generator& gen, std::vector<int64_t> shape, const nlohmann::json&) const override {
    return at::randn(shape, gen, at::kFloat);
  }
  at::Tensor run(const at::Tensor& x, const at::Tensor& field, const nlohmann::json& s) const override {
    TORCH_CHECK(field.size(1) == x.size(1), "gaussian_noise: a field for ", field.sizes(), ", input ", x.sizes());
    const auto out = x + (field.to(x.scalar_type()) * s.at("sigma").get<double>() + s.at("mean").get<double>());
    return s.at("clip").get<bool>() ? out.clamp(0.0, 1.0) : out;
  }
};

class SaltAndPepper final : public SeededFieldTransform {
 public:
  SaltAndPepper() {
    info_.name = "salt_and_pepper";
    info_.family = "noise";
    info_.description = "pixels set to 0 or the bound at random (Kornia); the draw is seeded registered state";
    info_.params = {{"amount", "number in [0, 1]", "0.05", "fraction of pixels changed"},
                    {"salt_vs_pepper", "number in [0, 1]", "0.5", "fraction of those set to the bound"}};
    document_seed();
    info_.dtypes = {at::kByte, at::kFloat, at::kDouble};
    info_.differentiable = true;
  }

 private:
  nlohmann::json read_settings(ObjectReader& r) const override {
    return {{"amount", r.number("amount", 0.05, 0.0, 1.0)}, {"salt_vs_pepper", r.number("salt_vs_pepper", 0.5, 0.0, 1.0)}};
  }
  at::Tensor draw(at::Generator& gen, std::vector<int64_t> shape, const nlohmann::json&) const override {
    shape[1] = 1;
    return at::rand(shape, gen, at::kFloat);
  }
  at::Tensor run(const at::Tensor& x, const at::Tensor& field, const nlohmann::json& s) const override {
    const double amount = s.at("amount").get<double>();
    const double pepper_below = amount * (1.0 - s.at("salt_vs_pepper").get<double>());
    const auto pepper = field.lt(pepper_below);
    const auto salt = field.lt(amount).bitwise_and(pepper.bitwise_not());
    return x.masked_fill(salt, image::bound_of(x)).masked_fill(pepper, 0);
  }
};

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
  at::Tensor draw(at::Generator& gen, std::vector<int64_t> shape, const nlohmann::json& settings) const override {
    auto field = at::empty({shape[0], 1, shape[2], shape[3]}, at::kFloat);
    for (int64_t b = 0; b < shape[0]; ++b) {
      const auto values = diamond_square(gen, shape[2], shape[3], settings.at("roughness").get<double>());
      auto* p = field.data_ptr<float>() + b * shape[2] * shape[3];
      for (size_t i = 0; i < values.size(); ++i) p[i] = static_cast<float>(values[i]);
    }
    return field;
  }

  void document_plasma() {
    info_.params.insert(info_.params.begin(), {"roughness", "number in [0, 1]", "0.5",
                                               "amplitude ratio between levels: higher is rougher"});
    document_seed();
    info_.dtypes = {at::kFloat, at::kDouble};
    info_.differentiable = true;
    info_.family = "intensity";
  }
};

class PlasmaBrightness final : public Plasma {
 public:
  PlasmaBrightness() {
    info_.name = "plasma_brightness";
    info_.description = "adds a diamond-square plasma field, clamped (Kornia's RandomPlasmaBrightness)";
    info_.params = {{"intensity", "number in [0, 1]", "0.2", "the field's scale"}};
    document_plasma();
  }

 private:
  nlohmann::json read_settings(ObjectReader& r) const override {
    return {{"roughness", r.number("roughness", 0.5, 0.0, 1.0)}, {"intensity", r.number("intensity", 0.2, 0.0, 1.0)}};
  }
  at::Tensor run(const at::Tensor& x, const at::Tensor& field, const nlohmann::json& s) const override {
    return (x + field.to(x.scalar_type()) * s.at("intensity").get<double>()).clamp(0.0, 1.0);
  }
};

class PlasmaShadow final : public Plasma {
 public:
  PlasmaShadow() {
    info_.name = "plasma_shadow";
    info_.description = "darkens where a diamond-square plasma field is below a quantity (Kornia's RandomPlasmaShadow)";
    info_.params = {{"intensity", "number in [-1, 0]", "-0.5", "-1: black shadows, 0: none"},
                    {"quantity", "number in [0, 1]", "0.5", "field level below which the shadow falls"}};
    document_plasma();
  }

 private:
  nlohmann::json read_settings(ObjectReader& r) const override {
    return {{"roughness", r.number("roughness", 0.5, 0.0, 1.0)}, {"intensity", r.number("intensity", -0.5, -1.0, 0.0)},
            {"quantity", r.number("quantity", 0.5, 0.0, 1.0)}};
  }
  at::Tensor run(const at::Tensor& x, const at::Tensor& field, const nlohmann::json& s) const override {
    const auto shade = field.lt(s.at("quantity").get<double>()).to(x.scalar_type()) * s.at("intensity").get<double>();
    return x * (shade + 1.0);
  }
};

}  // namespace

void register_noise(TransformRegistry& registry) {
  registry.add(std::make_unique<GaussianNoise>());
  registry.add(std::make_unique<SaltAndPepper>());
  registry.add(std::make_unique<PlasmaBrightness>());
  registry.add(std::make_unique<PlasmaShadow>());
}

}  // namespace devparity
