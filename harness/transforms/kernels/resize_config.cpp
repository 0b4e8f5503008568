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

ResizeConfig ResizeConfig::read(ObjectReader& reader) {
  ResizeConfig c;
  const auto size = reader.integers("size", 2, 1, 1 << 16);
  c.height = size[0];
  c.width = size[1];
  c.interpolation = read_mode(reader, "interpolation", Interpolation::kBilinear, interpolation_modes());
  c.antialias = reader.boolean("antialias", false);
  c.align_corners = reader.boolean("align_corners", false);
  const bool interpolating = interpolates(c.interpolation);
  // LibTorch's interpolate raises for these; so do we, at the field.
  if (c.align_corners && !interpolating) {
    throw FieldError(reader.pointer("align_corners"),
                     "align_corners can only be set with bilinear or bicubic interpolation");
  }
  if (c.antialias && !interpolating) {
    throw FieldError(reader.pointer("antialias"),
                     "antialias is only supported with bilinear or bicubic interpolation");
  }
  return c;
}

void ResizeConfig::write(nlohmann::json& out) const {
  out["size"] = {height, width};
  out["interpolation"] = name_of(interpolation);
  out["antialias"] = antialias;
  out["align_corners"] = align_corners;
}

Uint8Strategy Uint8Strategy::read(ObjectReader& reader) {
  Uint8Strategy s;
  const auto name = reader.string("uint8_strategy", std::string("fixed_point"), {"fixed_point", "float_round_trip"});
  s.path = name == "fixed_point" ? resample::Uint8Path::kFixedPoint : resample::Uint8Path::kFloatRoundTrip;
  return s;
}

void Uint8Strategy::write(nlohmann::json& out) const {
  out["uint8_strategy"] = path == resample::Uint8Path::kFixedPoint ? "fixed_point" : "float_round_trip";
}

ParamDoc Uint8Strategy::doc() {
  return {"uint8_strategy", "fixed_point|float_round_trip", "\"fixed_point\"",
          "uint8 only: integer arithmetic with 20-bit weights (exact on every device), or float32 then round "
          "half to even, as GPU code paths commonly do"};
}

std::vector<ParamDoc> ResizeConfig::docs() {
  return {
      {"size", "[H, W] integers in [1, 65536]", "required", "output height and width"},
      {"interpolation", "nearest|bilinear|bicubic|area", "\"bilinear\"",
       "LibTorch interpolate modes; area is adaptive average pooling"},
      {"antialias", "bool", "false",
       "bilinear/bicubic: widen the filter by the downscale factor (Pillow); bicubic uses a=-0.5"},
      {"align_corners", "bool", "false",
       "bilinear/bicubic: map corner pixel centres onto each other instead of half-pixel centres"},
  };
}

}  // namespace devparity
