#pragma once
/// Half precision on the simulated device: CUDA's half kernels where the CPU has none.
///
/// Note [Half precision on the virtual device]
/// The simulated device's kernels are the CPU's, and LibTorch's CPU lacks float16 and bfloat16
/// kernels CUDA has (1.13: upsampling, grid sampling, convolution, clamp and more; 2.6 fewer),
/// so a half precision pipeline that runs on a GPU raised on vdev. A CUDA half kernel computes
/// in float32 and rounds its results to the half dtype; where the CPU has no kernel for the
/// dtype and CUDA has one (device_rules::cuda_lacks_half_kernel), the device runs the CPU's
/// float32 kernel on its half inputs made float32 and rounds the results back: CUDA's
/// arithmetic but for the order of its sums. Where CUDA lacks the kernel too (linalg, sort of
/// bfloat16 on 1.13 ...) the CPU's error stands, as CUDA raises one. The CPU itself is left
/// alone: a transform's CPU row keeps the CPU's own kernels (or its own float round trip,
/// Note [Half precision reference]).

#include <ATen/core/Tensor.h>
#include <ATen/core/dispatch/Dispatcher.h>
#include <c10/util/Optional.h>

#include <functional>

namespace devparity::vdev::half {

/// Runs the op's kernel on the device's memory (the CPU's, or a perturbation switch's: Note
/// [Perturbed numerics]); where it throws for want of a half precision kernel CUDA has, runs it
/// again on float32 copies of the half arguments and rounds the results (and written arguments)
/// back. The one way the backend runs a kernel, at the call or queued.
void run_kernel(const c10::OperatorHandle& op, torch::jit::Stack* stack);

/// Whether `e`, thrown by `op`'s CPU kernel on `dtype` tensors, is a missing half precision
/// kernel CUDA has: then the op runs through float32.
bool falls_back(const c10::Error& e, const char* op, c10::ScalarType dtype);

/// The same for a computation the backend makes itself (convolution): `compute(nullopt)`
/// natively, `compute(kFloat)` with its inputs made float32 where the native one throws for
/// want of a kernel for `dtype` that CUDA has; the result rounded to `dtype`.
at::Tensor run_unboxed(const char* op, c10::ScalarType dtype,
                       const std::function<at::Tensor(c10::optional<c10::ScalarType>)>& compute);

}  // namespace devparity::vdev::half
