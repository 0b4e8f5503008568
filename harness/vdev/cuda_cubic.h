#pragma once
/// Keys' cubic convolution (A = -0.75) as nvcc compiles UpSample.cuh's
/// cubic_interp1d, shared by the grid sampler's and interpolate's models
/// (internal to harness/vdev; compile with -ffp-contract=off): the
/// constants folded, every a * b + c fused, and the sum
/// fma(x3, c3, fma(x2, c2, fma(x0, c0, x1 * c1))) (Note [CUDA's float resize]).

#include <cmath>

namespace devparity::vdev::cuda_cubic {

template <typename T>
T near(T x) {
  return std::fma(std::fma(T(1.25), x, T(-2.25)) * x, x, T(1));
}

template <typename T>
T far(T x) {
  return std::fma(std::fma(std::fma(T(-0.75), x, T(3.75)), x, T(-6)), x, T(3));
}

/// The value at t in [0, 1) between x1 and x2, from the four taps.
template <typename T>
T interp(T x0, T x1, T x2, T x3, T t) {
  const T rest = T(1) - t;
  const T c0 = far(t + T(1)), c1 = near(t), c2 = near(rest), c3 = far(rest + T(1));
  return std::fma(x3, c3, std::fma(x2, c2, std::fma(x0, c0, x1 * c1)));
}

}  // namespace devparity::vdev::cuda_cubic
