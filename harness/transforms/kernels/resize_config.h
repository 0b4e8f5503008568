#pragma once
/// Parameters shared by `resize` (reference) and `interpolate` (LibTorch's own
/// op), so both accept the same JSON and can be compared case by case.

#include "harness/subject/fields.h"
#include "harness/transforms/kernels/modes.h"
#include "harness/transforms/kernels/resize_engine.h"

#include <nlohmann/json_fwd.hpp>

#include <c10/util/ArrayRef.h>

#include <cstdint>
#include <string>
#include <vector>

namespace devparity {

class ObjectReader;

/// Size and interpolation settings, with LibTorch's `interpolate` semantics:
/// size, interpolation, antialias and align_corners, declared once (read,
/// written, documented); the combinations LibTorch rejects are field errors.
struct ResizeConfig : DeclaredFields<ResizeConfig> {
  int64_t height = 0;                   ///< output H
  int64_t width = 0;                    ///< output W
  Interpolation interpolation = Interpolation::kBilinear;
  bool antialias = false;               ///< bilinear/bicubic only
  bool align_corners = false;           ///< bilinear/bicubic only

  static void declare(Fields<ResizeConfig>& f);
};

/// The reference's "uint8_strategy" (resize and resized_crop): how uint8
/// images are resampled.
struct Uint8Strategy {
  resample::Uint8Path path = resample::Uint8Path::kCpuKernel;

  /// "cpu_kernel" (the default), "fixed_point" or "float_round_trip".
  static Uint8Strategy read(ObjectReader& reader);
  void write(nlohmann::json& out) const;
  static std::vector<ParamDoc> docs();
};

/// The interpolation modes, in documentation order.
const std::vector<Interpolation>& interpolation_modes();

/// bilinear or bicubic: the modes that take align_corners and antialias.
bool interpolates(Interpolation mode);

}  // namespace devparity
