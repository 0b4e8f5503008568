#pragma once
/// TF32: how tensor cores read float32 inputs of matrix products when
/// TF32 is allowed, shared by the `tf32` perturbation switch and the
/// `tf32_matmul` model of CUDA's arithmetic.

#include "harness/vdev/kernel_replacement.h"

namespace devparity::vdev::tf32 {

/// float32 rounded to TF32's 10 mantissa bits (to nearest, ties to even);
/// other dtypes unchanged.
at::Tensor round(const at::Tensor& x);

/// The ops whose products cuBLAS computes (mm, bmm, addmm, addbmm, baddbmm
/// and their out= forms), with their multiplied operands rounded: a
/// ReplacementKernel.
std::vector<at::Tensor> matmul(const c10::FunctionSchema& schema, const std::vector<c10::IValue>& args,
                               const CpuKernel& cpu);

/// Their schema names.
const std::vector<std::string>& matmul_ops();

}  // namespace devparity::vdev::tf32
