#include "harness/transforms/kernels/cuda_float_resize.h"

#include "harness/trace/scope.h"
#include "harness/transforms/kernels/fused_multiply_add.h"
#include "harness/transforms/kernels/resize_engine.h"
#include "harness/transforms/kernels/resize_taps.h"

#include <ATen/ATen.h>

#include <cmath>
#include <vector>

namespace devparity::resample {
namespace {

using at::Tensor;

// One axis as the kernels read it: taps (out, K), float32 weights (out, K),
// and the order of the fused sum (its first term is a rounded product).
struct ChainTaps {
  Tensor index;
  Tensor weight;
  std::vector<int64_t> order;
};

// Every value below is a float32 tensor on the input's device; `scalar`
// makes float32 constants there, so each op rounds as the kernel's float op.
struct Float32 {
  at::TensorOptions options;
  Tensor scalar(double v) const { return at::full({}, v, options); }
  Tensor fma(const Tensor& a, const Tensor& b, const Tensor& c) const { return fused_multiply_add(a, b, c); }
  Tensor fma(const Tensor& a, const Tensor& b, double c) const { return fused_multiply_add(a, b, scalar(c)); }
  Tensor fma(double a, const Tensor& b, double c) const { return fused_multiply_add(scalar(a), b, scalar(c)); }
};

// area_pixel_compute_source_index as compiled.
Tensor source_index(const Float32& f, int64_t out, float scale, bool align_corners) {
  const auto dst = at::arange(out, f.options);
  if (align_corners) return dst * f.scalar(scale);
  return f.fma(f.scalar(scale), dst + f.scalar(0.5), -0.5);
}

ChainTaps bilinear(const Float32& f, int64_t in, int64_t out, float scale, bool align_corners) {
  const auto src = source_index(f, out, scale, align_corners).clamp_min(0.0);
  const auto i0 = src.trunc();
  const auto l1 = src - i0;
  const auto l0 = f.scalar(1.0) - l1;
  const auto first = i0.to(at::kLong).clamp_max(in - 1);
  const auto second = first + first.lt(in - 1).to(at::kLong);
  return {at::stack({first, second}, 1), at::stack({l0, l1}, 1), {1, 0}};
}

// Keys' kernel pieces with A = -0.75, every a * b + c fused.
Tensor keys_near(const Float32& f, const Tensor& x) { return f.fma(f.fma(1.25, x, -2.25) * x, x, f.scalar(1.0)); }
Tensor keys_far(const Float32& f, const Tensor& x) { return f.fma(f.fma(f.fma(-0.75, x, 3.75), x, -6.0), x, 3.0); }

ChainTaps bicubic(const Float32& f, int64_t in, int64_t out, float scale, bool align_corners) {
  const auto src = source_index(f, out, scale, align_corners);
  const auto floor_src = src.floor();
  const auto t = src - floor_src;
  const auto one = f.scalar(1.0);
  const auto rest = one - t;
  const auto weight = at::stack({keys_far(f, t + one), keys_near(f, t), keys_near(f, rest), keys_far(f, rest + one)}, 1);
  const auto k = at::arange(4, f.options.dtype(at::kLong));
  const auto index = (floor_src.to(at::kLong).unsqueeze(1) - 1 + k).clamp(0, in - 1);
  return {index, weight, {1, 0, 2, 3}};
}

// 0/1 as float32: a branch as a product (x * 1 + 0 is x; no where(), which
// LibTorch 1.13 has no meta kernel for).
Tensor when(const Tensor& condition) { return condition.to(at::kFloat); }

// Pillow's filters as the kernel evaluates them, on |x|.
Tensor triangle(const Float32& f, const Tensor& ax) { return (f.scalar(1.0) - ax) * when(ax.lt(1.0)); }
Tensor cubic_aa(const Float32& f, const Tensor& ax) {
  const auto near = f.fma(f.fma(1.5, ax, -2.5) * ax, ax, f.scalar(1.0));
  const auto far = f.fma(f.fma(ax - f.scalar(5.0), ax, 8.0), ax, -4.0) * f.scalar(-0.5);
  return near * when(ax.lt(1.0)) + far * when(ax.ge(1.0) & ax.lt(2.0));
}

ChainTaps antialiased(const Float32& f, int64_t in, int64_t out, float scale, bool cubic) {
  const int64_t size = cubic ? 4 : 2;
  // size / 2 times a float32 scale, or size / 2: exact either way.
  const float support = scale >= 1.0f ? static_cast<float>(size / 2) * scale : static_cast<float>(size / 2);
  const int64_t taps = static_cast<int64_t>(std::ceil(support)) * 2 + 1;
  const auto s = f.scalar(scale);
  const auto centre_at = at::arange(out, f.options) + f.scalar(0.5);
  const auto xmin = (f.fma(s, centre_at, -support) + f.scalar(0.5)).trunc().clamp_min(0.0);
  const auto end = (f.fma(s, centre_at, support) + f.scalar(0.5)).trunc().clamp_max(static_cast<double>(in));
  const auto xmin_minus_centre = f.fma(-s, centre_at, xmin);
  const double invscale = scale >= 1.0f ? static_cast<double>(static_cast<float>(1.0 / static_cast<double>(scale))) : 1.0;
  const auto j = at::arange(taps, f.options).unsqueeze(0);
  const auto arg = ((j + xmin_minus_centre.unsqueeze(1)) + f.scalar(0.5)) * f.scalar(invscale);
  const auto inside = j.lt((end - xmin).unsqueeze(1));
  const auto ax = at::maximum(arg, arg.neg());
  const auto w = (cubic ? cubic_aa(f, ax) : triangle(f, ax)) * when(inside);
  auto total = w.select(1, 0);
  for (int64_t k = 1; k < taps; ++k) total = total + w.select(1, k);  // the kernel's order
  const auto weight = w / (total + when(total.eq(0.0))).unsqueeze(1);  // all 0: left as they are
  const auto index = (xmin.to(at::kLong).unsqueeze(1) + j.to(at::kLong)).clamp_max(in - 1);
  std::vector<int64_t> order(static_cast<size_t>(taps));
  for (int64_t k = 0; k < taps; ++k) order[static_cast<size_t>(k)] = k;
  return {index, weight, order};
}

ChainTaps axis(const ResizeConfig& c, int64_t in, int64_t out, const at::TensorOptions& options) {
  const Float32 f{options};
  const bool cubic = c.interpolation == Interpolation::kBicubic;
  const auto scale = static_cast<float>(axis_scale(in, out, c.align_corners, /*single_precision=*/true));
  if (c.antialias) return antialiased(f, in, out, scale, cubic);
  return cubic ? bicubic(f, in, out, scale, c.align_corners) : bilinear(f, in, out, scale, c.align_corners);
}

// One pass along `dim`: the first term of the order a rounded product, then
// a fused multiply-add per tap.
Tensor chain_pass(const Tensor& x, const ChainTaps& taps, int64_t dim) {
  DEVPARITY_TRACE_SCOPE(dim == 2 ? "filter_h" : "filter_w");
  std::vector<int64_t> shape(4, 1);
  shape[static_cast<size_t>(dim)] = taps.weight.size(0);
  auto term = [&](int64_t k) { return take_positions(x, dim, taps.index.select(1, k)); };
  auto weight = [&](int64_t k) { return taps.weight.select(1, k).reshape(shape); };
  auto sum = term(taps.order[0]) * weight(taps.order[0]);
  for (size_t i = 1; i < taps.order.size(); ++i) {
    sum = fused_multiply_add(term(taps.order[i]), weight(taps.order[i]), sum);
  }
  return sum;
}

}  // namespace

bool cuda_float_resize_has(const ResizeConfig& c) {
  return c.interpolation == Interpolation::kBilinear || c.interpolation == Interpolation::kBicubic;
}

at::Tensor cuda_float_resize(const at::Tensor& x, const ResizeConfig& c) {
  DEVPARITY_TRACE_SCOPE("cuda_float_resize");
  const auto options = x.options().dtype(at::kFloat);
  auto y = x;
  if (x.size(3) != c.width) y = chain_pass(y, axis(c, x.size(3), c.width, options), 3);
  if (x.size(2) != c.height) y = chain_pass(y, axis(c, x.size(2), c.height, options), 2);
  return y.is_same(x) ? x.clone() : y;
}

}  // namespace devparity::resample
