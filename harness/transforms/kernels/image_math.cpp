#include "harness/transforms/kernels/image_math.h"

#include "harness/base/rounding.h"
#include "harness/transforms/kernels/resize_engine.h"

#include <ATen/ATen.h>

#include <algorithm>
#include <cstdlib>

namespace devparity::image {

double bound_of(const at::Tensor& x) { return x.scalar_type() == at::kByte ? 255.0 : 1.0; }

at::Tensor choose(const at::Tensor& mask, const at::Tensor& a, const at::Tensor& b) {
  return a.masked_fill(mask.bitwise_not(), 0).add(b.masked_fill(mask, 0));
}

at::Tensor per_channel(const std::vector<double>& values, const at::TensorOptions& options) {
  auto out = at::empty({static_cast<int64_t>(values.size())}, options);
  for (size_t c = 0; c < values.size(); ++c) out.narrow(0, static_cast<int64_t>(c), 1).fill_(values[c]);
  return out.reshape({1, -1, 1, 1});
}

at::Tensor to_unit_float(const at::Tensor& x) {
  if (x.scalar_type() == at::kByte) return x.to(at::kFloat).div(255.0);
  return x.to(at::kFloat);
}

at::Tensor from_unit_float(const at::Tensor& y, c10::ScalarType dtype) {
  if (dtype == at::kByte) {
    const auto scaled = y.mul(255.0 + 1.0 - 1e-3);
    return note_unrounded(scaled.to(at::kByte), scaled, Rounding::kTruncate);
  }
  return y.to(dtype);
}

at::Tensor blend(const at::Tensor& a, const at::Tensor& b, double ratio) {
  const bool fp = a.is_floating_point();
  // uint8 * double promotes to float32, as torchvision's image1.mul(ratio).
  auto out = (fp ? a : a.to(at::kFloat)).mul(ratio).add(b, 1.0 - ratio).clamp(0.0, bound_of(a));
  return fp ? out : note_unrounded(out.to(a.scalar_type()), out, Rounding::kTruncate);
}

at::Tensor luminance(const at::Tensor& rgb) {
  const auto x = rgb.is_floating_point() ? rgb : rgb.to(at::kFloat);
  return x.narrow(1, 0, 1).mul(0.2989).add(x.narrow(1, 1, 1), 0.587).add(x.narrow(1, 2, 1), 0.114);
}

at::Tensor rgb_to_hsv_unit(const at::Tensor& rgb) {
  const auto r = rgb.narrow(1, 0, 1), g = rgb.narrow(1, 1, 1), b = rgb.narrow(1, 2, 1);
  const auto maxc = rgb.amax({1}, true), minc = rgb.amin({1}, true);
  const auto grey = maxc.eq(minc);
  const auto range = maxc - minc;
  const auto ones = at::ones_like(maxc);
  const auto s = range / choose(grey, ones, maxc);
  const auto divisor = choose(grey, ones, range);
  const auto rc = (maxc - r) / divisor, gc = (maxc - g) / divisor, bc = (maxc - b) / divisor;
  const auto max_is_r = maxc.eq(r);
  const auto max_is_g = maxc.eq(g).bitwise_and(max_is_r.bitwise_not());
  const auto max_is_b = max_is_r.bitwise_or(maxc.eq(g)).bitwise_not();
  // Red wins ties, then green, as torchvision's masks.
  const auto h = (bc - gc).mul(max_is_r).add((rc + 2.0 - bc).mul(max_is_g)).add((gc + 4.0 - rc).mul(max_is_b));
  const auto hue = h.mul(1.0 / 6.0).add(1.0).fmod(1.0);
  return at::cat({hue, s, maxc}, 1);
}

at::Tensor hsv_unit_to_rgb(const at::Tensor& hsv) {
  const auto h = hsv.narrow(1, 0, 1), s = hsv.narrow(1, 1, 1), v = hsv.narrow(1, 2, 1);
  const auto h6 = h.mul(6.0);
  const auto i = h6.floor();
  const auto f = h6 - i;
  const auto sector = i.remainder(6.0);
  const auto q = (1.0 - s * f).mul(v).clamp(0.0, 1.0);
  const auto t = (s * f + (1.0 - s)).mul(v).clamp(0.0, 1.0);
  const auto p = (1.0 - s).mul(v).clamp(0.0, 1.0);
  std::vector<at::Tensor> m;
  for (int k = 0; k < 6; ++k) m.push_back(sector.eq(static_cast<double>(k)).to(v.scalar_type()));
  // The six sectors: (v,t,p) (q,v,p) (p,v,t) (p,q,v) (t,p,v) (v,p,q). Each
  // pixel has exactly one mask set, so the sums select exactly.
  const auto red = v * (m[0] + m[5]) + q * m[1] + p * (m[2] + m[3]) + t * m[4];
  const auto green = t * m[0] + v * (m[1] + m[2]) + q * m[3] + p * (m[4] + m[5]);
  const auto blue = p * (m[0] + m[1]) + t * m[2] + v * (m[3] + m[4]) + q * m[5];
  return at::cat({red, green, blue}, 1);
}

at::Tensor rgb_to_ycbcr(const at::Tensor& rgb) {
  const auto r = rgb.narrow(1, 0, 1), g = rgb.narrow(1, 1, 1), b = rgb.narrow(1, 2, 1);
  const auto y = 0.299 * r + 0.587 * g + 0.114 * b;
  return at::cat({y, (b - y) * 0.564 + 0.5, (r - y) * 0.713 + 0.5}, 1);
}

at::Tensor ycbcr_to_rgb(const at::Tensor& ycbcr) {
  const auto y = ycbcr.narrow(1, 0, 1);
  const auto cb = ycbcr.narrow(1, 1, 1) - 0.5, cr = ycbcr.narrow(1, 2, 1) - 0.5;
  const auto r = y + 1.403 * cr;
  const auto g = y - 0.714 * cr - 0.344 * cb;
  const auto b = y + 1.773 * cb;
  return at::cat({r, g, b}, 1).clamp(0.0, 1.0);
}

at::Tensor pad(const at::Tensor& x, int64_t top, int64_t bottom, int64_t left, int64_t right,
               Border mode, double fill) {
  const auto longs = x.options().dtype(at::kLong);
  at::Tensor valid_rows, valid_cols;
  const auto rows = resample::border_positions(x.size(2), top, x.size(2) + top + bottom, mode, longs, &valid_rows);
  const auto cols = resample::border_positions(x.size(3), left, x.size(3) + left + right, mode, longs, &valid_cols);
  auto out = resample::take_window(resample::take_window(x, 2, rows, top), 3, cols, left);
  if (mode != Border::kConstant) return out;
  const auto inside = valid_rows.reshape({-1, 1}).mul(valid_cols.reshape({1, -1})).to(at::kBool);
  return out.masked_fill(inside.bitwise_not(), fill);
}

at::Tensor stencil(const at::Tensor& x, const std::vector<std::pair<int64_t, int64_t>>& offsets,
                   const std::vector<double>& weights, int64_t ry, int64_t rx) {
  for (const auto& [dy, dx] : offsets) {
    ry = std::max<int64_t>(ry, std::llabs(dy));
    rx = std::max<int64_t>(rx, std::llabs(dx));
  }
  const int64_t h = x.size(2) - 2 * ry, w = x.size(3) - 2 * rx;
  at::Tensor sum;
  for (size_t k = 0; k < offsets.size(); ++k) {
    const auto term = x.narrow(2, ry + offsets[k].first, h).narrow(3, rx + offsets[k].second, w).mul(weights[k]);
    sum = sum.defined() ? sum.add(term) : term;
  }
  return sum;
}

}  // namespace devparity::image
