#include "harness/transforms/kernels/resize_engine.h"

#include "harness/base/rounding.h"
#include "harness/trace/scope.h"

#include <ATen/ATen.h>
#include <fmt/format.h>

#include <stdexcept>
#include <vector>

namespace devparity::resample {

at::Tensor take_positions(const at::Tensor& x, int64_t dim, const at::Tensor& positions) {
  if (dim == x.dim() - 1 && x.dim() > 1) {
    // Along the innermost dimension ATen's gather beats advanced indexing
    // about 2x on the CPU (the index kernel strides per element there).
    std::vector<int64_t> shape(static_cast<size_t>(x.dim()), 1), sizes = x.sizes().vec();
    shape.back() = positions.size(0);
    sizes.back() = positions.size(0);
    return x.gather(dim, positions.reshape(shape).expand(sizes));
  }
  std::vector<at::indexing::TensorIndex> indices(static_cast<size_t>(dim),
                                                 at::indexing::TensorIndex(at::indexing::Slice()));
  indices.emplace_back(positions);
  return x.index(indices);
}

at::Tensor take_window(const at::Tensor& x, int64_t dim, const at::Tensor& window, int64_t front) {
  const int64_t size = x.size(dim), length = window.size(0), back = length - front - size;
  if (front < 0 || back < 0) return take_positions(x, dim, window);
  std::vector<at::Tensor> parts;
  if (front > 0) parts.push_back(take_positions(x, dim, window.narrow(0, 0, front)));
  parts.push_back(x);
  if (back > 0) parts.push_back(take_positions(x, dim, window.narrow(0, front + size, back)));
  return parts.size() == 1 ? x.clone() : at::cat(parts, dim);
}

TapTable centred_window(int64_t size, int64_t kernel, Border border, const at::TensorOptions& long_options) {
  TapTable t;
  t.window_front = (kernel - 1) / 2;
  t.window = border_positions(size, t.window_front, size + kernel - 1, border, long_options, &t.valid);
  return t;
}

namespace {

using at::indexing::Slice;
using at::indexing::TensorIndex;

// Reshapes a per-position vector (n) to broadcast along `dim` of an ndim tensor.
at::Tensor along(const at::Tensor& v, int64_t dim, int64_t ndim) {
  std::vector<int64_t> shape(static_cast<size_t>(ndim), 1);
  shape[static_cast<size_t>(dim)] = v.size(0);
  return v.reshape(shape);
}

// Weight k as (Bw, 1, out|1, 1) for H or (Bw, 1, 1, out|1) for W.
at::Tensor tap_weight(const at::Tensor& weight, int64_t k, int64_t dim, int64_t ndim) {
  const auto w = weight.select(2, k);
  std::vector<int64_t> shape(static_cast<size_t>(ndim), 1);
  shape[0] = w.size(0);
  shape[static_cast<size_t>(dim)] = w.size(1);
  return w.reshape(shape);
}

int64_t output_size(const TapTable& taps) {
  if (taps.window.defined()) return taps.window.size(0) - taps.weight.size(2) + 1;
  return taps.index.size(0);
}

// sum_k tap(k) * weight_k along `dim` of an ndim result, in tap(k)'s dtype.
// In `exact` arithmetic (integers that never round) a multiply-add is one op.
template <typename Tap>
at::Tensor weighted_sum(Tap&& tap, const at::Tensor& weight, int64_t dim, int64_t ndim, bool exact) {
  at::Tensor acc;
  for (int64_t k = 0; k < weight.size(2); ++k) {
    const auto src = tap(k);
    // A separate multiply and add, in tap order, as ATen's CPU interpolation
    // kernels evaluate them (no fused multiply-add), unless exact.
    if (k == 0) {
      acc = src * tap_weight(weight, k, dim, ndim);
    } else if (exact) {
      acc.addcmul_(src, tap_weight(weight, k, dim, ndim));
    } else {
      acc.add_(src * tap_weight(weight, k, dim, ndim));
    }
  }
  return acc;
}

// Shared accumulation: sum_k source_k * weight_k, in source's dtype.
at::Tensor accumulate(const at::Tensor& source, const TapTable& taps, const at::Tensor& weight,
                      int64_t dim, bool exact = false) {
  const int64_t ndim = source.dim();
  if (!taps.window.defined()) {
    return weighted_sum([&](int64_t k) { return take_positions(source, dim, taps.index.select(1, k)); }, weight,
                        dim, ndim, exact);
  }
  auto padded = take_window(source, dim, taps.window, taps.window_front);
  if (taps.valid.defined()) padded = padded * along(taps.valid.to(padded.scalar_type()), dim, ndim);
  const int64_t out = output_size(taps);
  return weighted_sum([&](int64_t k) { return padded.narrow(dim, k, out); }, weight, dim, ndim, exact);
}

void check_dim(const at::Tensor& x, int64_t dim) {
  if (x.dim() != 4 || (dim != 2 && dim != 3)) {
    throw std::invalid_argument(
        fmt::format("resample expects NCHW and dim 2 or 3, got {}-D and dim {}", x.dim(), dim));
  }
}

// Weights in units of 2^-kFixedPointBits, rounded half away from zero:
// sign(w) * floor(|w| * 2^p + 0.5), held as exact integers in float64.
at::Tensor fixed_weights(const at::Tensor& weight) {
  return round_half_away(weight.to(at::kDouble) * static_cast<double>(int64_t{1} << kFixedPointBits));
}

// How far the fixed-point result (before rounding) may be from exact
// arithmetic, for uint8 inputs: each weight is off by at most d = 2^-21, so
// the W pass is off by at most 255 d K_w, and the H pass adds its own 255 d
// K_h S_w to the W error scaled by S_h (K: taps, S: the largest sum of
// |weights| of an output). A one-element float64 tensor on the taps' device.
at::Tensor fixed_point_error(const TapTable* taps_h, const TapTable* taps_w) {
  const double d = 0.5 / static_cast<double>(int64_t{1} << kFixedPointBits);
  auto largest_sum = [](const TapTable* t) {
    return absolute_value(t->weight.to(at::kDouble)).sum(2).max();
  };
  const double k_w = taps_w ? static_cast<double>(taps_w->weight.size(2)) : 0.0;
  const double k_h = taps_h ? static_cast<double>(taps_h->weight.size(2)) : 0.0;
  const auto device_zero = (taps_h ? taps_h : taps_w)->weight.new_zeros({}, at::kDouble);
  const auto s_w = taps_w ? largest_sum(taps_w) : device_zero + 1.0;
  const auto s_h = taps_h ? largest_sum(taps_h) : device_zero + 1.0;
  return (s_h * k_w + s_w * k_h) * (255.0 * d);
}

// Note [uint8 fixed point]: the first pass in int32, the second in float64.
at::Tensor fixed_point(const at::Tensor& x, const TapTable* taps_h, const TapTable* taps_w) {
  if (!taps_h && !taps_w) return x.clone();
  DEVPARITY_TRACE_SCOPE("fixed_point");
  check_dim(x, 2);
  const TapTable* first = taps_h ? taps_h : taps_w;
  const TapTable* second = taps_h ? taps_w : nullptr;
  at::Tensor acc = accumulate(x.to(at::kInt), *first, fixed_weights(first->weight).to(at::kInt), first == taps_h ? 2 : 3,
                              /*exact=*/true)
                       .to(at::kDouble);
  int shift = kFixedPointBits;
  if (second) {
    acc = accumulate(acc, *second, fixed_weights(second->weight), 3, /*exact=*/true);
    shift += kFixedPointBits;
  }
  // Adding half and scaling by a power of two are exact; floor rounds half up.
  const double unit = static_cast<double>(int64_t{1} << shift);
  const auto rounded = acc.add(unit / 2).mul_(1.0 / unit).floor_().clamp_(0, 255).to(at::kByte);
  if (!unrounded_wanted()) return rounded;
  return note_unrounded(rounded, acc * (1.0 / unit), Rounding::kHalfUp, fixed_point_error(taps_h, taps_w));
}

}  // namespace

at::Tensor absolute_value(const at::Tensor& x) { return at::maximum(x, x.neg()); }

at::Tensor round_half_away(const at::Tensor& v) {
  const auto sign = (v < 0).to(v.scalar_type()) * -2.0 + 1.0;
  return at::floor(absolute_value(v) + 0.5) * sign;
}

at::Tensor reversed_along(const at::Tensor& x, int64_t dim) {
  const int64_t n = x.size(dim);
  return take_positions(x, dim, at::arange(n - 1, -1, -1, x.options().dtype(at::kLong)));
}

at::Tensor apply_float(const at::Tensor& x, const TapTable& taps, int64_t dim) {
  DEVPARITY_TRACE_SCOPE(dim == 2 ? "filter_h" : "filter_w");
  check_dim(x, dim);
  return accumulate(x, taps, taps.weight.to(x.scalar_type()), dim);
}

at::Tensor apply_exact(const at::Tensor& x, const TapTable& taps, const at::Tensor& weight, int64_t dim) {
  check_dim(x, dim);
  return accumulate(x, taps, weight, dim, /*exact=*/true);
}

namespace {

// Float filtering, W pass first (ATen's order, which float rounding fixes).
// Each row's W pass is the same wherever it runs, so when the H pass reads
// fewer rows than the image has (a downscale without antialias), only those
// rows are filtered along W, in (output, tap) order.
at::Tensor w_then_h(const at::Tensor& x, const TapTable* taps_h, const TapTable* taps_w) {
  if (!taps_h) return taps_w ? apply_float(x, *taps_w, 3) : x;
  if (!taps_w) return apply_float(x, *taps_h, 2);
  if (taps_h->window.defined() || taps_w->window.defined() || taps_h->index.numel() >= x.size(2)) {
    return apply_float(apply_float(x, *taps_w, 3), *taps_h, 2);
  }
  // The H pass reads tap k of every output as a view of the filtered rows.
  const auto y = apply_float(take_positions(x, 2, taps_h->index.reshape({-1})), *taps_w, 3);
  DEVPARITY_TRACE_SCOPE("filter_h");
  const auto by_tap = y.view({y.size(0), y.size(1), taps_h->index.size(0), taps_h->index.size(1), y.size(3)});
  return weighted_sum([&](int64_t k) { return by_tap.select(3, k); }, taps_h->weight.to(x.scalar_type()), 2, 4,
                      /*exact=*/false);
}

}  // namespace

at::Tensor round_to_uint8(const at::Tensor& y) {
  // at::round is round-half-to-even, what GPU float paths do with rint.
  return note_unrounded(at::round(y).clamp(0, 255).to(at::kByte), y, Rounding::kHalfEven);
}

at::Tensor separable(const at::Tensor& x, const TapTable* taps_h, const TapTable* taps_w,
                     Uint8Path path) {
  if (x.scalar_type() == at::kByte) {
    if (path == Uint8Path::kFixedPoint) return fixed_point(x, taps_h, taps_w);
    return round_to_uint8(w_then_h(x.to(at::kFloat), taps_h, taps_w));
  }
  if (!at::isFloatingType(x.scalar_type())) {
    throw std::invalid_argument("resample: unsupported dtype " +
                                std::string(c10::toString(x.scalar_type())));
  }
  return taps_w || taps_h ? w_then_h(x, taps_h, taps_w) : x.clone();
}

namespace {

// Mirror without repeating the edge has period 2 * (size - 1):
// m = p mod period, index = (size - 1) - |m - (size - 1)|.
at::Tensor reflected(const at::Tensor& p, int64_t size) {
  if (size == 1) return at::zeros_like(p);
  const int64_t period = 2 * (size - 1);
  const auto m = at::remainder(p, period);
  return (size - 1) - absolute_value(m - (size - 1));
}

}  // namespace

at::Tensor border_positions(int64_t size, int64_t front, int64_t length, Border border,
                            const at::TensorOptions& long_options, at::Tensor* valid) {
  const auto p = at::arange(length, long_options) - front;
  switch (border) {
    case Border::kReplicate:
      return p.clamp(0, size - 1);
    case Border::kCircular:
      return at::remainder(p, size);
    case Border::kReflect:
      return reflected(p, size);
    case Border::kSymmetric: {
      // Mirror repeating the edge: period 2 * size; in doubled units the
      // index is ((2 size - 1) - |2 m - (2 size - 1)|) / 2, exact in integers.
      const auto m = at::remainder(p, 2 * size);
      return ((2 * size - 1) - absolute_value(m * 2 - (2 * size - 1))).div(2, "floor");
    }
    case Border::kConstant:
      if (valid != nullptr) *valid = ((p >= 0) & (p < size)).to(at::kByte);
      return p.clamp(0, size - 1);
  }
  throw std::invalid_argument("unknown border mode");
}

}  // namespace devparity::resample
