#pragma once
/// The separable resampling engine behind resize and gaussian_blur2d
/// (internal to harness/transforms).
///
/// One axis of a separable filter is a tap table: output position o reads K
/// source positions index[o, k] with weights weight[b, o, k]. Everything is
/// built on the input's device from the input's options, using only ops the
/// meta device runs in LibTorch 1.13 (advanced indexing, narrow, elementwise),
/// so the whole path can be traced there: no index_select, no conv2d, no abs,
/// no where.
///
/// Note [uint8 fixed point]
/// uint8 images are filtered in integer arithmetic that is bit-exact on every
/// device. Each weight becomes round_half_away(w * 2^20). The first pass sums
/// pixel * weight and keeps the sum unrounded (units of 2^-20); the second
/// sums again (units of 2^-40). One final rounding adds half and divides by
/// 2^40 with floor (round half up), then saturates to 0..255.
/// No operation ever rounds, for kernels whose weights' absolute values sum
/// below 2 per axis: the first pass is in int32 (|sum| < 255 * 2 * 2^20 <
/// 2^30), the second in float64, whose 53-bit significand holds every
/// product and partial sum (255 * 2^40 * 4 < 2^51; float64 multiplies
/// vectorise where int64 ones do not). So the result cannot depend on the
/// device, the summation order, fused multiply-adds, or which axis goes
/// first: the H pass does, since rows of uint8 gather as plain copies.
/// Unlike Pillow and PyTorch's uint8 kernels there is no uint8 intermediate
/// between the passes: those clip bicubic overshoot after the first pass and
/// can differ from the float result by tens of levels on noisy images. Here
/// the result is always within 1 of round(float result); it differs from a
/// float round trip only where the value is a tie (half up here, half to even
/// there) or within float32 rounding of one.

#include "harness/transforms/kernels/modes.h"

#include <ATen/core/Tensor.h>

#include <string>

namespace devparity::resample {

/// x's entries at `positions` (a 1-D long tensor on x's device) along `dim`,
/// by gather along the innermost dimension and advanced indexing elsewhere
/// (both of which meta runs, unlike index_select or flip).
at::Tensor take_positions(const at::Tensor& x, int64_t dim, const at::Tensor& positions);

/// take_positions for a window that border_positions(x.size(dim), front,
/// ...) made: the positions inside the axis are the identity there, so that
/// part is x itself, copied whole, and only the borders are gathered
/// (gathering along the innermost dimension is ~4x slower than a copy). A
/// negative `front` (not known) gathers every position.
at::Tensor take_window(const at::Tensor& x, int64_t dim, const at::Tensor& window, int64_t front);

/// x reversed along `dim` (take_positions with the positions backwards: meta
/// runs it, where LibTorch 1.13 has no flip).
at::Tensor reversed_along(const at::Tensor& x, int64_t dim);

/// sign(v) * floor(|v| + 0.5): rounding half away from zero, as ATen and
/// Pillow turn float weights into integers.
at::Tensor round_half_away(const at::Tensor& v);

/// Fractional bits of the fixed-point weights (Note [uint8 fixed point]).
constexpr int kFixedPointBits = 20;

/// One axis of a separable filter.
struct TapTable {
  /// (out, K) int64 source positions; unused when `window` is set.
  at::Tensor index;
  /// Sliding-window form: (out + K - 1) int64 source positions, with
  /// index[o, k] = window[o + k]. Gathered once, then read with narrow().
  at::Tensor window;
  /// With `window`: optional (out + K - 1) mask, 0 where the position lies
  /// outside the image and reads as zero (constant border).
  at::Tensor valid;
  /// (Bw, out or 1, K) floating weights; Bw is 1 or the batch size.
  at::Tensor weight;
  /// With `window` from border_positions: its `front` (see take_window);
  /// -1 when unknown.
  int64_t window_front = -1;
};

/// A centred sliding window of `kernel` taps over an axis of `size` pixels,
/// its positions resolved by `border` (window, valid and window_front set;
/// the caller adds the weights).
TapTable centred_window(int64_t size, int64_t kernel, Border border, const at::TensorOptions& long_options);

/// How a uint8 image is filtered.
enum class Uint8Path {
  kFixedPoint,      ///< Note [uint8 fixed point]
  kFloatRoundTrip,  ///< CUDA's float path: to float32, filter (Note [CUDA's float resize]), round half to even, clamp
  kCpuKernel,       ///< LibTorch's CPU uint8 kernel (Note [LibTorch's CPU uint8 resize])
};

/// A float result of a uint8 image back to uint8 as torchvision's float path
/// ends: round half to even, clamp to 0..255 (the unrounded values noted,
/// Note [Intermediate rounding]).
at::Tensor round_to_uint8(const at::Tensor& y);

/// Filters `x` (NCHW) along `dim` in its floating dtype.
at::Tensor apply_float(const at::Tensor& x, const TapTable& taps, int64_t dim);

/// Filters integer `x` (NCHW) along `dim` with integer `weight` (taps'
/// shape) in x's dtype, multiply-adds fused: exact when the caller has
/// bounded every partial sum by the dtype's range.
at::Tensor apply_exact(const at::Tensor& x, const TapTable& taps, const at::Tensor& weight, int64_t dim);

/// W pass then H pass (a null table skips its axis). Floating inputs take the
/// float path; uint8 inputs take `path`. Returns x's dtype.
at::Tensor separable(const at::Tensor& x, const TapTable* taps_h, const TapTable* taps_w,
                     Uint8Path path);

/// Source positions for a window of `length` positions that starts `front`
/// positions before the first pixel of an axis of `size` pixels, resolved by
/// `border` (reflect | symmetric | replicate | circular | constant). Reflect
/// mirrors about the edge pixels without repeating them, symmetric repeats
/// them (numpy's names); both fold repeatedly, so any padding works.
/// For constant, positions outside are clamped and `*valid` gets the 0/1 mask.
at::Tensor border_positions(int64_t size, int64_t front, int64_t length, Border border,
                            const at::TensorOptions& long_options, at::Tensor* valid);

/// |x| from ops the meta device runs (at::abs does not, in LibTorch 1.13).
at::Tensor absolute_value(const at::Tensor& x);

}  // namespace devparity::resample
