#include "harness/transforms/kernels/resize_taps.h"

#include "harness/trace/scope.h"

#include <ATen/ATen.h>

#include <cmath>

namespace devparity::resample {

double axis_scale(int64_t in, int64_t out, bool align_corners, bool single_precision) {
  const int64_t num = align_corners ? in - 1 : in;
  const int64_t den = align_corners ? out - 1 : out;
  if (den <= 0) return 0.0;
  return single_precision ? static_cast<double>(static_cast<float>(num) / static_cast<float>(den))
                          : static_cast<double>(num) / static_cast<double>(den);
}

namespace {

TapTable nearest_taps(int64_t in, int64_t out, const at::TensorOptions& device) {
  const float scale = static_cast<float>(in) / static_cast<float>(out);
  const auto dst = at::arange(out, device.dtype(at::kFloat));
  const auto index = at::floor(dst * static_cast<double>(scale)).to(at::kLong).clamp_max(in - 1);
  return {index.unsqueeze(1), {}, {}, at::ones({1, out, 1}, device.dtype(at::kDouble))};
}

TapTable linear_taps(int64_t in, int64_t out, bool align_corners, double scale,
                     const at::TensorOptions& coords) {
  const auto dst = at::arange(out, coords);
  const auto src = align_corners ? dst * scale : ((dst + 0.5) * scale - 0.5).clamp_min(0.0);
  const auto i0 = src.trunc().to(at::kLong).clamp_max(in - 1);
  const auto i1 = i0 + (i0 < in - 1).to(at::kLong);
  const auto lambda1 = src - i0.to(src.scalar_type());
  const auto lambda0 = 1.0 - lambda1;
  return {at::stack({i0, i1}, 1), {}, {}, at::stack({lambda0, lambda1}, 1).unsqueeze(0)};
}

}  // namespace

at::Tensor cubic_filter(const at::Tensor& x, double a) {
  const auto ax = absolute_value(x);
  const auto near = ((a + 2.0) * ax - (a + 3.0)) * ax * ax + 1.0;
  const auto far = ((a * ax - 5.0 * a) * ax + 8.0 * a) * ax - 4.0 * a;
  return near * (ax < 1.0) + far * ((ax >= 1.0) & (ax < 2.0));
}

at::Tensor linear_filter(const at::Tensor& x) { return (1.0 - absolute_value(x)).clamp_min(0.0); }

namespace {

TapTable cubic_taps(int64_t in, int64_t out, bool align_corners, double scale,
                    const at::TensorOptions& coords) {
  const auto dst = at::arange(out, coords);
  const auto src = align_corners ? dst * scale : (dst + 0.5) * scale - 0.5;
  const auto floor_src = at::floor(src);
  const auto t = (src - floor_src).unsqueeze(1);
  const auto base = floor_src.to(at::kLong).unsqueeze(1);
  const auto k = at::arange(4, coords.dtype(at::kLong));
  const auto index = (base - 1 + k).clamp(0, in - 1);
  // Distance of tap k from the source point: t + 1, t, 1 - t, 2 - t.
  const auto distance = t - (k.to(coords.dtype()) - 1.0);
  const auto weight = cubic_filter(distance, -0.75);
  return {index, {}, {}, weight.unsqueeze(0)};
}

}  // namespace

TapTable antialias_taps(int64_t in, int64_t out, double scale, int64_t interp_size, bool cubic,
                        const at::TensorOptions& coords) {
  const double support = (scale >= 1.0 ? scale : 1.0) * static_cast<double>(interp_size) * 0.5;
  const int64_t taps = static_cast<int64_t>(std::ceil(support)) * 2 + 1;
  const double invscale = scale >= 1.0 ? 1.0 / scale : 1.0;
  const auto center = ((at::arange(out, coords) + 0.5) * scale).unsqueeze(1);
  // static_cast<int64_t> truncates toward zero, as trunc() does.
  const auto xmin = (center - support + 0.5).trunc().clamp_min(0.0);
  const auto xmax = (center + support + 0.5).trunc().clamp_max(static_cast<double>(in));
  const auto j = at::arange(taps, coords).unsqueeze(0);
  const auto x = (j + xmin - center + 0.5) * invscale;
  auto weight = (cubic ? cubic_filter(x, -0.5) : linear_filter(x)) * (j < (xmax - xmin));
  const auto total = weight.sum(1, /*keepdim=*/true);
  weight = weight / (total + (total == 0.0).to(total.scalar_type()));
  const auto index = (xmin.to(at::kLong) + j.to(at::kLong)).clamp_max(in - 1);
  return {index, {}, {}, weight.unsqueeze(0)};
}

namespace {

TapTable area_taps(int64_t in, int64_t out, const at::TensorOptions& coords) {
  const auto longs = coords.dtype(at::kLong);
  const auto o = at::arange(out, longs);
  const auto start = at::div(o * in, out, "floor");
  const auto end = at::div((o + 1) * in + out - 1, out, "floor");
  const int64_t taps = in % out == 0 ? in / out : in / out + 2;
  const auto j = at::arange(taps, longs).unsqueeze(0);
  const auto size = (end - start).unsqueeze(1);
  const auto index = (start.unsqueeze(1) + j).clamp_max(in - 1);
  const auto weight = (j < size).to(coords.dtype()) / size.to(coords.dtype());
  return {index, {}, {}, weight.unsqueeze(0)};
}

}  // namespace

TapTable axis_taps(const ResizeConfig& c, int64_t in, int64_t out, bool single_precision,
                   const at::TensorOptions& coords) {
  DEVPARITY_TRACE_SCOPE("taps");
  const auto mode = c.interpolation;
  if (mode == Interpolation::kNearest) return nearest_taps(in, out, coords);
  if (mode == Interpolation::kArea) return area_taps(in, out, coords);
  const bool cubic = mode == Interpolation::kBicubic;
  const double scale = axis_scale(in, out, c.align_corners, single_precision);
  if (c.antialias) return antialias_taps(in, out, scale, cubic ? 4 : 2, cubic, coords);
  return cubic ? cubic_taps(in, out, c.align_corners, scale, coords)
               : linear_taps(in, out, c.align_corners, scale, coords);
}

}  // namespace devparity::resample
