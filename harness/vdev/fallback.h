#pragma once
// The virtual device's boxed fallback (Note [Virtual device rules]): every
// op without a kernel of the backend's own runs with the CPU's kernels on the
// device's memory, once CUDA's rules for that op accept its tensors' devices.

#include <ATen/core/dispatch/Dispatcher.h>

#include <string>

namespace devparity::vdev {

/// An ATen operator by its name in native_functions ("cat",
/// "linalg_eigvals.out"); none when this LibTorch lacks it.
c10::optional<c10::OperatorHandle> aten_op(const std::string& name);

/// Routes to the fallback the ops LibTorch would otherwise send elsewhere
/// (Note [Structured checks], Note [Host-buffer composites]); at install.
void route_to_fallback();

}  // namespace devparity::vdev
