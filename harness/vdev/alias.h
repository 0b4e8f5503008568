#pragma once
// The virtual device's memory seen both ways (Note [Shared host memory]):
// a device tensor's host alias for the CPU kernels, a kernel's result as a
// device tensor, and what a kernel wrote going back to the device tensor.
//
// Note [Shared host memory]
// Virtual-device memory is CPU memory, so the CPU kernels run on CPU tensors
// that alias it (host_alias) and their fresh results become device tensors
// over the same memory (device_alias): no operand is copied. An alias keeps
// the memory's storage alive and is resizable, so a kernel that grows an
// output gets new memory, which is copied back into the device tensor.

#include <ATen/core/Tensor.h>
#include <ATen/core/function_schema.h>
#include <ATen/core/stack.h>
#include <c10/core/Device.h>

#include <optional>
#include <string>
#include <vector>

namespace devparity::vdev {

/// The virtual device's key.
inline constexpr auto kType = c10::DeviceType::PrivateUse1;
/// Indices at most.
inline constexpr int kMaxDevices = 16;

/// "vdev:1" for the virtual device, LibTorch's name for any other.
std::string label(const c10::Device& d);

/// The CPU kernels' view of a device tensor; other tensors pass unchanged.
at::Tensor host_alias(const at::Tensor& t);
/// A kernel's fresh CPU result as a tensor of `device`.
at::Tensor device_alias(const at::Tensor& t, c10::Device device);

/// A tensor the CPU kernel may write: its device original and the alias the
/// kernel got.
struct Written {
  at::Tensor original;
  at::Tensor alias;
};

/// Replaces the device tensors among an op's arguments on `stack` by host
/// aliases (the written ones listed in `written`); Device arguments naming
/// the virtual device become the CPU, and the first of them is returned (a
/// factory's device).
std::optional<c10::Device> alias_arguments(const c10::FunctionSchema& schema, torch::jit::Stack* stack,
                                           std::vector<Written>* written);

/// A written alias that the kernel resized or moved to new memory: its
/// values and shape go back to the device tensor.
void write_back(const Written& w);

}  // namespace devparity::vdev
