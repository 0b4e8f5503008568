#pragma once
/// fma(a, b, c) for float32 tensors, rounded once as the hardware's fused
/// multiply-add rounds it, on any device, from ops meta runs (internal to
/// harness/transforms). Device kernels compiled with contraction (nvcc's
/// default) turn a * b + c into this; a model of their float32 arithmetic
/// needs it bit for bit.
///
/// In float64 the product of two float32 values is exact (48 bits); the sum
/// with c is rounded to float64 and then to float32, and that double rounding
/// is wrong only where the float64 sum lands exactly halfway between two
/// float32 values while the exact sum does not. There the exact sum's side
/// (the error term of Knuth's TwoSum) moves it off the midpoint first.

#include <ATen/core/Tensor.h>

namespace devparity::resample {

/// Elementwise fma of float32 tensors (broadcast); a float32 result.
at::Tensor fused_multiply_add(const at::Tensor& a, const at::Tensor& b, const at::Tensor& c);

}  // namespace devparity::resample
