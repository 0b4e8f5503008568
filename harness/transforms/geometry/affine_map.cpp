#include "harness/transforms/geometry/affine_map.h"

#include "harness/transforms/kernels/grid_sampler.h"

#include <ATen/ATen.h>

#include <cmath>

namespace devparity {

std::array<double, 6> inverse_affine(std::pair<double, double> center, double angle, std::pair<double, double> translate,
                                     double scale, std::pair<double, double> shear) {
  constexpr double kDegree = M_PI / 180.0;
  const double rot = angle * kDegree, sx = shear.first * kDegree, sy = shear.second * kDegree;
  const double a = std::cos(rot - sy) / std::cos(sy);
  const double b = -(a * std::tan(sx) + std::sin(rot));
  const double c = std::sin(rot - sy) / std::cos(sy);
  const double d = std::cos(rot) - c * std::tan(sx);
  std::array<double, 6> m = {d / scale, -b / scale, 0.0, -c / scale, a / scale, 0.0};
  const double cx = center.first + translate.first, cy = center.second + translate.second;
  m[2] += m[0] * -cx + m[1] * -cy + center.first;
  m[5] += m[3] * -cx + m[4] * -cy + center.second;
  return m;
}

std::pair<double, double> centred(const std::optional<std::pair<double, double>>& center, c10::IntArrayRef shape) {
  if (!center) return {0.0, 0.0};
  return {center->first - shape[3] * 0.5, center->second - shape[2] * 0.5};
}

at::Tensor affine_warp(const at::Tensor& x, const std::array<double, 6>& m, const WarpOptions& o, int64_t oh,
                       int64_t ow) {
  const int64_t h = x.size(2), w = x.size(3);
  if (oh < 0) oh = h, ow = w;
  const auto [cols, rows] = warp_positions(x, sampler::compute_dtype(x), oh, ow, 0.5 - ow / 2.0, 0.5 - oh / 2.0);
  const auto sx = (cols * m[0] + rows * m[1]).add(m[2] + w / 2.0 - 0.5);
  const auto sy = (cols * m[3] + rows * m[4]).add(m[5] + h / 2.0 - 0.5);
  return warp_with(x, sx, sy, o);
}

}  // namespace devparity
