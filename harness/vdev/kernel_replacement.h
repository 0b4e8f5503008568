#pragma once
/// Running another kernel than the CPU's for an op vdev computes on the host:
/// a perturbation switch's (vdev/perturb.h) or a model of CUDA's
/// (vdev/cuda_arithmetic.h). Both take the op's arguments and the CPU's
/// kernel, and return the op's results as the other arithmetic gives them.

#include <ATen/core/Tensor.h>
#include <ATen/core/dispatch/Dispatcher.h>

#include <functional>
#include <vector>

namespace devparity::vdev {

/// The CPU's kernel of the op being replaced, on other arguments: returns
/// the op's results (for a kernel that changes arguments, not arithmetic).
using CpuKernel = std::function<std::vector<at::Tensor>(std::vector<c10::IValue> args)>;

/// The op's results (its returns, functional even for an in-place or out=
/// form) from its arguments (the out= argument included, unread).
using ReplacementKernel = std::function<std::vector<at::Tensor>(
    const c10::FunctionSchema& schema, const std::vector<c10::IValue>& args, const CpuKernel& cpu)>;

/// Runs `kernel` in place of the op's CPU kernel on `stack` (CPU tensors),
/// an in-place or out= form's results landing in its written arguments, and
/// runs the CPU's kernel too: returns whether the results differ from the
/// CPU's (bit for bit, NaN equal to NaN).
bool run_replacement(const c10::OperatorHandle& op, torch::jit::Stack* stack, const ReplacementKernel& kernel);

/// The argument named `name` of a call, or null where the op has none.
const c10::IValue* argument(const c10::FunctionSchema& schema, const std::vector<c10::IValue>& args,
                            const char* name);

/// Whether two results are the same bit for bit, NaN equal to NaN.
bool same_result(const at::Tensor& a, const at::Tensor& b);

}  // namespace devparity::vdev
