#pragma once
/// Where CUDA has no half precision kernel: the ops PyTorch's OpInfo database declares without
/// float16 or bfloat16 on CUDA (harness/rules/tables/cuda-half-gaps-<release>.tsv, made by
/// tools/cuda_half_gaps.py for the LibTorch found; Note [Half precision on the virtual device]).

#include <string_view>

namespace devparity::device_rules {

/// Whether CUDA lacks a kernel for `qualified_name` ("aten::linalg_inv", "linalg_inv.out",
/// "sort_": every overload, in-place and out= form of the op) in `dtype` ("float16",
/// "bfloat16"). Ops the table does not name have CUDA's half kernels.
bool cuda_lacks_half_kernel(std::string_view qualified_name, std::string_view dtype);

/// Whether LibTorch's error `message` says a kernel has no `dtype_name` version: its dispatch
/// macros write "\"op_cpu\" not implemented for 'Half'", a few kernels "op_cpu not implemented
/// for Half" (`dtype_name` is LibTorch's: "Half", "BFloat16").
bool lacks_dtype_kernel(std::string_view message, std::string_view dtype_name);

}  // namespace devparity::device_rules
