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

#include "harness/core/json_reader.h"
#include "harness/trace/scope.h"
#include "harness/transforms/builtin_transforms.h"
#include "harness/transforms/configured.h"
#include "harness/transforms/image_math.h"
#include "harness/transforms/registry.h"
#include "harness/transforms/sampling.h"
#include "harness/transforms/state.h"

#include <ATen/ATen.h>
#include <ATen/CPUGeneratorImpl.h>
#include <nlohmann/json.hpp>

#include <functional>

namespace devparity {
namespace {

// A transform whose state is one seeded field of the input's size.
class SeededFieldTransform : public StatefulTransform {
 public:
  const TransformInfo& info() const override { return info_; }

  nlohmann::json sample(const nlohmann::json& given, c10::IntArrayRef shape, at::Generator& gen) const override {
    require_nchw(shape, info_.name);
    ObjectReader r(given);
    nlohmann::json out = read_settings(r);
    out["seed"] = r.has("seed") ? static_cast<uint64_t>(r.integer("seed", std::nullopt, 0, int64_t{1} << 53))
                                : sampling::seed(gen);
    r.finish();
    out["shape"] = shape.vec();
    return out;
  }

  std::unique_ptr<TransformState> make_state(const nlohmann::json& p) const override {
    auto shape = p.at("shape").get<std::vector<int64_t>>();
    auto gen = at::make_generator<at::CPUGeneratorImpl>(p.at("seed").get<uint64_t>());
    auto state = std::make_unique<TransformState>();
    state->register_tensor("field", draw(gen, shape));
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
  virtual at::Tensor draw(at::Generator& gen, std::vector<int64_t> shape) const = 0;
  virtual at::Tensor run(const at::Tensor& x, const at::Tensor& field, const nlohmann::json& settings) const = 0;

  void document_seed() {
    info_.params.push_back({"seed", "integer >= 0", "drawn", "seed of the field (reports give it, to replay)"});
    info_.random = true;
  }

  TransformInfo info_;
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
  at::Tensor draw(at::Generator& gen, std::vector<int64_t> shape) const override {
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
  at::Tensor draw(at::Generator& gen, std::vector<int64_t> shape) const override {
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

}  // namespace

void register_noise(TransformRegistry& registry) {
  registry.add(std::make_unique<GaussianNoise>());
  registry.add(std::make_unique<SaltAndPepper>());
}

}  // namespace devparity
