#pragma once
/// NumPy .npy files (format versions 1.0-3.0), so that inputs and outputs
/// travel to and from numpy, PIL, OpenCV and other libraries' tests.

#include <ATen/core/Tensor.h>

#include <string>

namespace devparity {

/// Reads a .npy file into a CPU tensor. Supports bool, int8/16/32/64, uint8,
/// float16/32/64, either byte order, C or Fortran order. Throws InputError
/// naming the path and what is wrong.
at::Tensor read_npy(const std::string& path);

/// Writes a tensor (any device; copied to the CPU) as a version 1.0 .npy in C
/// order, atomically; bfloat16 as float32, which holds it exactly. Throws
/// InputError for dtypes numpy cannot hold.
void write_npy(const std::string& path, const at::Tensor& tensor);

}  // namespace devparity
