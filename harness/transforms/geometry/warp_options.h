#pragma once
/// What every geometric warp shares: grid_sample's resampling options (read,
/// checked, written and documented once), output pixel positions, and the
/// fields a warp about a centre ends with.

#include "harness/base/json_reader.h"
#include "harness/subject/describe.h"
#include "harness/subject/fields.h"
#include "harness/transforms/kernels/modes.h"

#include <ATen/core/Tensor.h>
#include <nlohmann/json_fwd.hpp>

#include <optional>
#include <utility>
#include <vector>

namespace devparity {

struct WarpOptions {
  Interpolation interpolation = Interpolation::kBilinear;
  Padding padding = Padding::kZeros;
  std::vector<double> fill;  // empty: plain zeros

  static WarpOptions read(ObjectReader& r, Interpolation default_interpolation);
  /// A per-channel fill must have one value per channel of `shape` (NCHW).
  void check(c10::IntArrayRef shape) const;
  void write(nlohmann::json& out) const;
  /// The parameters above as documented.
  static std::vector<ParamDoc> docs(Interpolation default_interpolation);
};

/// Output pixel positions as (1, 1, W) columns and (1, H, 1) rows plus the
/// offsets, in `dtype`, on the device of `like`.
std::pair<at::Tensor, at::Tensor> warp_positions(const at::Tensor& like, c10::ScalarType dtype, int64_t h, int64_t w,
                                                 double offset_x, double offset_y);

/// `x` sampled at source pixels (sx, sy) with the options' mode, padding and fill.
at::Tensor warp_with(const at::Tensor& x, const at::Tensor& sx, const at::Tensor& sy, const WarpOptions& o);

/// The fields a warp about a centre ends with: the centre, then the
/// resampling options. Config has `center` and `warp`.
template <typename Config>
void add_center_and_warp(Fields<Config>& f, Interpolation default_interpolation) {
  f.optional_pair("center", &Config::center, -1e6, 1e6, "[x, y] or null", "pixel coordinates; null: the image centre")
      .part(&Config::warp, default_interpolation);
}

}  // namespace devparity
