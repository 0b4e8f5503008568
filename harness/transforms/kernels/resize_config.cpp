#include "harness/transforms/kernels/resize_config.h"

#include "harness/base/error.h"
#include "harness/base/json_reader.h"
#include "harness/subject/transform.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

namespace devparity {

const std::vector<Interpolation>& interpolation_modes() {
  static const std::vector<Interpolation> modes = {Interpolation::kNearest, Interpolation::kBilinear,
                                                   Interpolation::kBicubic, Interpolation::kArea};
  return modes;
}

bool interpolates(Interpolation mode) { return mode == Interpolation::kBilinear || mode == Interpolation::kBicubic; }

void ResizeConfig::declare(Fields<ResizeConfig>& f) {
  f.integer_pair("size", &ResizeConfig::height, &ResizeConfig::width, 1, 1 << 16, "[H, W] integers in [1, 65536]",
                 "output height and width");
  mode_field(f, "interpolation", &ResizeConfig::interpolation, Interpolation::kBilinear, interpolation_modes(),
             "LibTorch interpolate modes; area is adaptive average pooling")
      .boolean("antialias", &ResizeConfig::antialias, false,
               "bilinear/bicubic: widen the filter by the downscale factor (Pillow); bicubic uses a=-0.5")
      .field({"align_corners", "bool", "false",
              "bilinear/bicubic: map corner pixel centres onto each other instead of half-pixel centres"},
             [](ObjectReader& reader, ResizeConfig& c) {
               c.align_corners = reader.boolean("align_corners", false);
               // LibTorch's interpolate raises for these; so do we, at the field.
               const bool interpolating = interpolates(c.interpolation);
               if (c.align_corners && !interpolating) {
                 throw FieldError(reader.pointer("align_corners"),
                                  "align_corners can only be set with bilinear or bicubic interpolation");
               }
               if (c.antialias && !interpolating) {
                 throw FieldError(reader.pointer("antialias"),
                                  "antialias is only supported with bilinear or bicubic interpolation");
               }
             },
             [](const ResizeConfig& c, nlohmann::json& out) { out["align_corners"] = c.align_corners; });
}

namespace {

struct StrategyName {
  const char* name;
  resample::Uint8Path path;
};

constexpr StrategyName kStrategies[] = {
    {"fixed_point", resample::Uint8Path::kFixedPoint},
    {"float_round_trip", resample::Uint8Path::kFloatRoundTrip},
    {"cpu_kernel", resample::Uint8Path::kCpuKernel},
};

}  // namespace

Uint8Strategy Uint8Strategy::read(ObjectReader& reader) {
  std::vector<std::string> names;
  for (const auto& s : kStrategies) names.emplace_back(s.name);
  const auto name = reader.string("uint8_strategy", std::string("cpu_kernel"), names);
  Uint8Strategy s;
  for (const auto& known : kStrategies) {
    if (name == known.name) s.path = known.path;
  }
  return s;
}

void Uint8Strategy::write(nlohmann::json& out) const {
  for (const auto& known : kStrategies) {
    if (path == known.path) out["uint8_strategy"] = known.name;
  }
}

std::vector<ParamDoc> Uint8Strategy::docs() {
  return {{"uint8_strategy", "cpu_kernel|fixed_point|float_round_trip", "\"cpu_kernel\"",
          "uint8 only, each exact on every device: LibTorch's CPU uint8 kernel (bilinear and bicubic: 15-bit "
          "weights, a uint8 intermediate after the horizontal pass; torchvision's CPU result bit for bit); "
          "integer arithmetic with 20-bit weights rounded once (within 1 of the exact value everywhere); or "
          "float32 then round half to even (LibTorch's CUDA path, and torchvision's where it does not resize "
          "uint8 natively)"}};
}

}  // namespace devparity
