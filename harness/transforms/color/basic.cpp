// Point-wise colour operations with torchvision v2's semantics
// (transforms/v2/functional/_color.py): every output pixel depends on its own
// value only. The bound is 255 for uint8 and 1 for floats.
//
//   invert:      bound - x
//   solarize:    x >= threshold ? bound - x : x          (threshold in the dtype's units)
//   posterize:   uint8: x & ~(2^(8 - bits) - 1);  float: floor(x * 2^bits).clamp(0, 2^bits - 1) / 2^bits
//   brightness:  clamp(x * factor, 0, bound), uint8 truncated back (torchvision's _blend
//                with a black image: the product is float, .to(uint8) truncates)
//   to_dtype:    torchvision's to_dtype: without scale a plain cast; with scale
//                uint8 -> float is x * (1 / 255) (a product, as torchvision: x / 255
//                differs in the last bit for 433 of 858 values), float -> uint8 is
//                trunc(x (256 - 1e-3)),
//                float -> float a cast
//
// No operation makes a tensor: scalars only, so nothing can land on the
// wrong device.

#include "harness/base/dtype.h"
#include "harness/base/error.h"
#include "harness/base/json_reader.h"
#include "harness/base/rounding.h"
#include "harness/subject/configured.h"
#include "harness/subject/describe.h"
#include "harness/subject/fields.h"
#include "harness/subject/transform_registry.h"
#include "harness/trace/scope.h"
#include "harness/transforms/builtin_transforms.h"
#include "harness/transforms/kernels/image_math.h"

#include <ATen/ATen.h>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

namespace devparity {
namespace {

using image::bound_of;

// bound - x: for uint8 the bitwise complement, exact and without promotion.
at::Tensor inverted(const at::Tensor& x) {
  return x.scalar_type() == at::kByte ? x.bitwise_not() : x.neg().add(1.0);
}

struct NoConfig {
  static NoConfig read(ObjectReader&) { return {}; }
  void check(c10::IntArrayRef) const {}
  void write(nlohmann::json&) const {}
};

class Invert final : public ConfiguredTransform<NoConfig> {
 public:
  Invert()
      : ConfiguredTransform(Describe("invert", "color", "bound - x (255 for uint8, 1 for floats)")
                                .dtypes(kImageDtypes)
                                .differentiable()) {}

 private:
  at::Tensor run(const at::Tensor& x, const NoConfig&) const override {
    DEVPARITY_TRACE_SCOPE("invert");
    return inverted(x);
  }
};

struct SolarizeConfig : DeclaredFields<SolarizeConfig> {
  double threshold = 0.5;  ///< as a fraction of the bound
  static void declare(Fields<SolarizeConfig>& f) {
    f.number("threshold", &SolarizeConfig::threshold, 0.5, 0.0, 1.0, "number in [0, 1]",
             "as a fraction of the bound: 0.5 is 127.5 for uint8 (so 128 and up invert), 0.5 for floats");
  }
};

class Solarize final : public ConfiguredTransform<SolarizeConfig> {
 public:
  Solarize()
      : ConfiguredTransform(Describe("solarize", "color", "inverts the pixels at or above a threshold")
                                .dtypes(kImageDtypes)) {}

 private:
  at::Tensor run(const at::Tensor& x, const SolarizeConfig& c) const override {
    DEVPARITY_TRACE_SCOPE("solarize");
    const double bound = bound_of(x);
    // A select by masks, not at::where (no meta kernel in LibTorch 1.13):
    // one of the two products is zero, so the sum is exact in every dtype.
    const auto mask = x.ge(c.threshold * bound).to(x.scalar_type());
    const auto keep = x.lt(c.threshold * bound).to(x.scalar_type());
    return inverted(x).mul(mask).add(x.mul(keep));
  }
};

struct PosterizeConfig : DeclaredFields<PosterizeConfig> {
  int64_t bits = 4;
  static void declare(Fields<PosterizeConfig>& f) {
    f.integer("bits", &PosterizeConfig::bits, 4, 1, 8, "integer in [1, 8]", "bits kept");
  }
};

class Posterize final : public ConfiguredTransform<PosterizeConfig> {
 public:
  Posterize()
      : ConfiguredTransform(Describe("posterize", "color",
                                     "keeps the top `bits` bits of each value (2^bits levels for floats)")
                                .dtypes(kImageDtypes)) {}

 private:
  at::Tensor run(const at::Tensor& x, const PosterizeConfig& c) const override {
    DEVPARITY_TRACE_SCOPE("posterize");
    if (x.scalar_type() == at::kByte) {
      const int64_t mask = (0xFF << (8 - c.bits)) & 0xFF;
      return x.bitwise_and(mask);
    }
    const double levels = static_cast<double>(int64_t{1} << c.bits);
    return x.mul(levels).floor().clamp(0.0, levels - 1.0).mul(1.0 / levels);
  }
};

struct BrightnessConfig : DeclaredFields<BrightnessConfig> {
  double factor = 1.5;
  static void declare(Fields<BrightnessConfig>& f) {
    f.number("factor", &BrightnessConfig::factor, 1.5, 0.0, 1e6, "number >= 0", "0 gives black, 1 the image");
  }
};

class AdjustBrightness final : public ConfiguredTransform<BrightnessConfig> {
 public:
  AdjustBrightness()
      : ConfiguredTransform(Describe("adjust_brightness", "color",
                                     "clamp(x * factor, 0, bound); uint8 truncated back, as torchvision")
                                .dtypes(kImageDtypes)
                                .differentiable()) {}

 private:
  at::Tensor run(const at::Tensor& x, const BrightnessConfig& c) const override {
    DEVPARITY_TRACE_SCOPE("adjust_brightness");
    if (x.scalar_type() != at::kByte) return x.mul(c.factor).clamp(0.0, 1.0);
    // uint8 * float promotes to float32 in LibTorch, as in torchvision.
    const auto scaled = x.to(at::kFloat).mul(c.factor).clamp(0.0, 255.0);
    return note_unrounded(scaled.to(at::kByte), scaled, Rounding::kTruncate);
  }
};

struct ToDtypeConfig : DeclaredFields<ToDtypeConfig> {
  c10::ScalarType dtype = at::kFloat;
  bool scale = false;
  static void declare(Fields<ToDtypeConfig>& f) {
    f.choice("dtype", &ToDtypeConfig::dtype, at::kFloat,
             {{at::kByte, "uint8"}, {at::kFloat, "float32"}, {at::kDouble, "float64"}}, "output dtype")
        .boolean("scale", &ToDtypeConfig::scale, false,
                 "map [0, 255] <-> [0, 1] (torchvision's equal-width bins into uint8)");
  }
};

class ToDtype final : public ConfiguredTransform<ToDtypeConfig> {
 public:
  ToDtype()
      : ConfiguredTransform(Describe("to_dtype", "color",
                                     "torchvision's to_dtype: a cast, or with scale a change of value range")
                                .dtypes(kImageDtypes)) {}

 private:
  at::Tensor run(const at::Tensor& x, const ToDtypeConfig& c) const override {
    DEVPARITY_TRACE_SCOPE("to_dtype");
    const bool from_int = x.scalar_type() == at::kByte, to_int = c.dtype == at::kByte;
    if (!c.scale || from_int == to_int) return x.to(c.dtype, /*non_blocking=*/false, /*copy=*/true);
    return from_int ? x.to(c.dtype).mul(1.0 / 255.0) : image::from_unit_float(x, at::kByte);
  }
};

}  // namespace

void register_color_basic(TransformRegistry& registry) {
  registry.add(std::make_unique<Invert>());
  registry.add(std::make_unique<Solarize>());
  registry.add(std::make_unique<Posterize>());
  registry.add(std::make_unique<AdjustBrightness>());
  registry.add(std::make_unique<ToDtype>());
}

}  // namespace devparity
