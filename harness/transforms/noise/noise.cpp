// Additive and impulse noise, each a seeded field registered as state
// (transforms/random/seeded_field.h).
//
//   gaussian_noise(mean, sigma, clip): torchvision v2's gaussian_noise:
//     x + (mean + n sigma), n ~ N(0, 1) per element, clamped to [0, 1] when
//     clip (floats only, as torchvision)
//   salt_and_pepper(amount, salt_vs_pepper): one u ~ U(0, 1) per pixel,
//     shared by the channels (Kornia's RandomSaltAndPepperNoise):
//     u < amount (1 - svp) is pepper (0), u < amount is salt (the bound)

#include "harness/base/json_reader.h"
#include "harness/subject/describe.h"
#include "harness/subject/transform_registry.h"
#include "harness/transforms/builtin_transforms.h"
#include "harness/transforms/kernels/image_math.h"
#include "harness/transforms/random/seeded_field.h"

#include <ATen/ATen.h>
#include <nlohmann/json.hpp>

namespace devparity {
namespace {

class GaussianNoise final : public SeededFieldTransform {
 public:
  GaussianNoise()
      : SeededFieldTransform(
            Describe("gaussian_noise", "noise",
                     "x + mean + sigma N(0, 1), clamped (torchvision); the noise is seeded registered state")
                .dtypes(kFloatDtypes)
                .differentiable(),
            {{"mean", 0.0, -1e6, 1e6, "number", "added to every pixel with the noise"},
             {"sigma", 0.1, 0.0, 1e6, "number >= 0", "the noise's standard deviation"},
             {"clip", 1.0, 0.0, 1.0, "bool", "clamp to [0, 1]", /*boolean=*/true}}) {}

 private:
  at::Tensor draw(at::Generator& gen, std::vector<int64_t> shape, const nlohmann::json&) const override {
    return at::randn(shape, gen, at::kFloat);
  }
  at::Tensor run_with(const at::Tensor& x, const at::Tensor& field, const nlohmann::json& s) const override {
    TORCH_CHECK(field.size(1) == x.size(1), "gaussian_noise: a field for ", field.sizes(), ", input ", x.sizes());
    const auto out = x + (field.to(x.scalar_type()) * s.at("sigma").get<double>() + s.at("mean").get<double>());
    return s.at("clip").get<bool>() ? out.clamp(0.0, 1.0) : out;
  }
};

class SaltAndPepper final : public SeededFieldTransform {
 public:
  SaltAndPepper()
      : SeededFieldTransform(
            Describe("salt_and_pepper", "noise",
                     "pixels set to 0 or the bound at random (Kornia); the draw is seeded registered state")
                .dtypes(kImageDtypes)
                .differentiable(),
            {{"amount", 0.05, 0.0, 1.0, "number in [0, 1]", "fraction of pixels changed"},
             {"salt_vs_pepper", 0.5, 0.0, 1.0, "number in [0, 1]", "fraction of those set to the bound"}}) {}

 private:
  at::Tensor draw(at::Generator& gen, std::vector<int64_t> shape, const nlohmann::json&) const override {
    shape[1] = 1;
    return at::rand(shape, gen, at::kFloat);
  }
  at::Tensor run_with(const at::Tensor& x, const at::Tensor& field, const nlohmann::json& s) const override {
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
