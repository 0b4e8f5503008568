#include "harness/transforms/kernels/cpu_uint8_resize.h"

#include "harness/base/rounding.h"
#include "harness/trace/scope.h"
#include "harness/transforms/kernels/resize_engine.h"
#include "harness/transforms/kernels/resize_taps.h"

#include <ATen/ATen.h>

#include <optional>

namespace devparity::resample {
namespace {

// One axis of the kernel: float64 taps, the largest weight the precision is
// chosen from, and the int16 weights (as exact float64 integers).
struct Axis {
  TapTable exact;
  at::Tensor largest;  // 0-dim float64
  at::Tensor precision;
  TapTable fixed;
};

// Without antialias: interpolate's taps around floor(src), those outside the
// image folded onto the edge pixel in tap order (Note [LibTorch's CPU uint8
// resize]); `largest` is the largest partial sum met while folding.
TapTable folded_taps(int64_t in, int64_t out, bool cubic, bool align_corners, const at::TensorOptions& coords,
                     at::Tensor& largest) {
  const int64_t k = cubic ? 4 : 2, support = k / 2;
  const double scale = axis_scale(in, out, align_corners, /*single_precision=*/false);
  const auto dst = at::arange(out, coords);
  auto src = align_corners ? dst * scale : (dst + 0.5) * scale - 0.5;
  if (!cubic && !align_corners) src = src.clamp_min(0.0);
  // ATen floors with floorf: the coordinate is rounded to float32 first.
  const auto base = src.to(at::kFloat).floor().to(at::kLong).clamp_max(in - 1);
  const auto lambda = (src - base.to(at::kDouble)).clamp(0.0, 1.0).unsqueeze(1);
  const auto first = (base - (support - 1)).unsqueeze(1);  // unclamped first tap
  const auto index_min = first.clamp_min(0);
  const auto longs = coords.dtype(at::kLong);
  const auto slots = at::arange(k, longs).unsqueeze(0);
  const auto taps = at::arange(k, coords).unsqueeze(0);
  const auto w = cubic ? cubic_filter(taps + static_cast<double>(1 - support) - lambda, -0.75)
                       : linear_filter(taps + static_cast<double>(1 - support) - lambda);
  const auto slot_of = (first + slots).clamp(0, in - 1) - index_min;  // (out, k): tap j lands in slot
  auto weight = at::zeros({out, k}, coords);
  largest = at::zeros({}, coords);
  for (int64_t j = 0; j < k; ++j) {
    const auto hit = slot_of.select(1, j).unsqueeze(1).eq(slots).to(at::kDouble);
    weight = weight + w.select(1, j).unsqueeze(1) * hit;
    largest = at::maximum(largest, (weight * hit).sum(1).amax());
  }
  return {(index_min + slots).clamp_max(in - 1), {}, {}, weight.unsqueeze(0)};
}

// The first p with round(largest * 2^(p+1)) >= 2^15, at most 22: counted on
// the device, so nothing waits for the host.
at::Tensor precision_of(const at::Tensor& largest) {
  const auto p = at::arange(22, largest.options());
  const auto next = at::floor(largest * at::pow(2.0, p + 1.0) + 0.5);
  return next.lt(32768.0).sum().to(at::kDouble);
}

Axis axis(const ResizeConfig& c, int64_t in, int64_t out, const at::TensorOptions& coords) {
  DEVPARITY_TRACE_SCOPE("taps");
  const bool cubic = c.interpolation == Interpolation::kBicubic;
  Axis a;
  if (c.antialias) {
    const double scale = axis_scale(in, out, c.align_corners, /*single_precision=*/false);
    a.exact = antialias_taps(in, out, scale, cubic ? 4 : 2, cubic, coords);
    a.largest = a.exact.weight.amax().clamp_min(0.0);
  } else {
    a.exact = folded_taps(in, out, cubic, c.align_corners, coords, a.largest);
  }
  a.precision = precision_of(a.largest);
  a.fixed = a.exact;
  a.fixed.weight = round_half_away(a.exact.weight * at::pow(2.0, a.precision));
  return a;
}

// One pass in integers on uint8 samples (held as int32 or int64): the value
// before its final shift (in output units, float64; only when asked) and
// the rounded, clamped result. The weights are integers below 2^15 / 2 per
// unit of the largest, so a sum is below 255 * 2^14 * K: int32 for K < 512
// taps, int64 beyond (a huge antialiased downscale). floor(value + 0.5) is
// (sum + 2^(p-1)) >> p with an arithmetic shift (p >= 14: weights are <= 1).
std::pair<at::Tensor, at::Tensor> integer_pass(const at::Tensor& x, const Axis& a, int64_t dim, bool want_value) {
  const auto type = a.fixed.weight.size(2) < 512 ? at::kInt : at::kLong;
  const auto sum = apply_exact(x.to(type), a.fixed, a.fixed.weight.to(type), dim);
  at::Tensor value;
  if (want_value) value = sum.to(at::kDouble) * at::pow(2.0, -a.precision);
  const auto p = a.precision.to(type);
  auto rounded = sum.add(at::pow(2.0, a.precision - 1.0).to(type));
  rounded.__irshift__(p);  // in place: LibTorch 1.13's meta has only this shift
  return {value, rounded.clamp_(0, 255)};
}

}  // namespace

bool cpu_kernel_has(Interpolation mode) {
  return mode == Interpolation::kBilinear || mode == Interpolation::kBicubic;
}

at::Tensor cpu_uint8_resize(const at::Tensor& x, const ResizeConfig& c) {
  DEVPARITY_TRACE_SCOPE("cpu_uint8_kernel");
  const auto coords = x.options().dtype(at::kDouble);
  const int64_t in_h = x.size(2), in_w = x.size(3);
  std::optional<Axis> w, h;
  if (in_w != c.width) w = axis(c, in_w, c.width, coords);
  if (in_h != c.height) h = axis(c, in_h, c.height, coords);
  if (!w && !h) return x.clone();
  const bool noting = unrounded_wanted();
  at::Tensor before_last = x, value, y = x;
  if (w) {
    std::tie(value, y) = integer_pass(y, *w, 3, noting);
  }
  if (h) {
    before_last = y;
    std::tie(value, y) = integer_pass(y, *h, 2, noting);
  }
  const auto out = y.to(at::kByte);
  if (!noting) return out;
  const auto source = x.to(at::kDouble);
  before_last = before_last.to(at::kDouble);
  note_unrounded(out, value, Rounding::kHalfUp);
  // The same passes with the float64 weights: on the last pass's input for
  // the weights' error, and on the source for the value without the uint8
  // intermediate.
  const Axis& last = h ? *h : *w;
  const auto exact_last = apply_float(before_last, last.exact, h ? 2 : 3);
  at::Tensor direct;
  if (w && h) direct = apply_float(apply_float(source, w->exact, 3), h->exact, 2);
  return note_intermediate(out, direct, absolute_value(value - exact_last));
}

}  // namespace devparity::resample
