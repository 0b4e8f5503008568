#pragma once
/// torchvision's affine map, shared by affine and rotate
/// (transforms/v2/functional/_geometry.py):
///
///   the inverse map M^-1 = C RSS^-1 C^-1 T^-1 of _get_inverse_affine_matrix,
///   with RSS = [a b; c d] / scale^-1, a = cos(r - sy) / cos(sy),
///   b = -(a tan(sx) + sin(r)), c = sin(r - sy) / cos(sy), d = cos(r) - c tan(sx)
///   (r, sx, sy in radians; C the centre, default the image centre, in
///   coordinates centred on the image); output pixel (i, j) at centred
///   (j + .5 - W / 2, i + .5 - H / 2) reads source pixel M^-1 (x, y, 1) +
///   (W / 2 - .5, H / 2 - .5).

#include "harness/transforms/geometry/warp_options.h"

#include <array>

namespace devparity {

/// torchvision's _get_inverse_affine_matrix (inverted), row-major 2x3; angles in degrees.
std::array<double, 6> inverse_affine(std::pair<double, double> center, double angle, std::pair<double, double> translate,
                                     double scale, std::pair<double, double> shear);

/// The centre in torchvision's centred coordinates (pixels from the middle of
/// an NCHW `shape`); none is the middle.
std::pair<double, double> centred(const std::optional<std::pair<double, double>>& center, c10::IntArrayRef shape);

/// `x` through the inverse map `m`, on an oh x ow output (-1: x's size).
at::Tensor affine_warp(const at::Tensor& x, const std::array<double, 6>& m, const WarpOptions& o, int64_t oh = -1,
                       int64_t ow = -1);

}  // namespace devparity
