// The kernels a virtual-device tensor needs to exist and move (empty,
// empty_strided, copies, resize_, views, set_, fill_) and convolution, which
// has no route to the CPU fallback; everything else runs through the judging
// fallback (vdev/fallback.cpp).
#include "harness/vdev/alias.h"
#include "harness/vdev/async.h"
#include "harness/vdev/async_ops.h"
#include "harness/vdev/half_precision.h"
#include "harness/vdev/perturb.h"
#include "harness/vdev/platform.h"

#include <ATen/ATen.h>
#include <ATen/EmptyTensor.h>
#include <ATen/record_function.h>
#include <ATen/ops/_reshape_alias_native.h>
#include <ATen/ops/as_strided_native.h>
#include <ATen/ops/resize_native.h>
#include <ATen/ops/set_native.h>
#include <ATen/ops/unfold_native.h>
#include <ATen/ops/view_native.h>
#include <c10/core/DeviceGuard.h>
#include <torch/library.h>

namespace devparity::vdev {
namespace {

// A guard on the device's index when it has one; otherwise the current index.
c10::OptionalDeviceGuard guard_for(c10::optional<c10::Device> device) {
  if (device && device->type() == kType && device->has_index()) return c10::OptionalDeviceGuard(*device);
  return c10::OptionalDeviceGuard();
}

at::Tensor empty_memory_format(at::IntArrayRef size, c10::optional<at::ScalarType> dtype,
                               c10::optional<at::Layout>, c10::optional<at::Device> device,
                               c10::optional<bool>, c10::optional<at::MemoryFormat> memory_format) {
  const auto guard = guard_for(device);
  return at::detail::empty_generic(size, platform::allocator(), c10::DispatchKeySet(c10::DispatchKey::PrivateUse1),
                                   c10::dtype_or_default(dtype), memory_format);
}

at::Tensor empty_strided(at::IntArrayRef size, at::IntArrayRef stride,
                         c10::optional<at::ScalarType> dtype, c10::optional<at::Layout>,
                         c10::optional<at::Device> device, c10::optional<bool>) {
  const auto guard = guard_for(device);
  return at::detail::empty_strided_generic(size, stride, platform::allocator(),
                                           c10::DispatchKeySet(c10::DispatchKey::PrivateUse1),
                                           c10::dtype_or_default(dtype));
}

// vdev <-> cpu and vdev <-> vdev: the memory is the host's either way;
// asynchronous mode orders the copy on a stream.
at::Tensor copy_from(const at::Tensor& self, const at::Tensor& dst, bool non_blocking) {
  if (async::enabled()) {
    runtime::enqueue_copy(self, dst, non_blocking);
    return dst;
  }
  host_alias(dst).copy_(host_alias(self));
  return dst;
}

at::Tensor copy_from_and_resize(const at::Tensor& self, const at::Tensor& dst) {
  dst.resize_(self.sizes());
  return copy_from(self, dst, false);
}

const at::Tensor& resize(const at::Tensor& self, at::IntArrayRef size,
                         c10::optional<at::MemoryFormat> memory_format) {
  // The storage reallocates with its own allocator (ours), on the tensor's index.
  const c10::DeviceGuard guard(self.device());
  return at::native::resize_(self, size, memory_format);
}

at::Tensor as_strided(const at::Tensor& self, at::IntArrayRef size, at::IntArrayRef stride,
                      c10::optional<int64_t> offset) {
  return at::native::as_strided_tensorimpl(self, size, stride, offset);
}

at::Tensor view(const at::Tensor& self, at::IntArrayRef size) { return at::native::view(self, size); }

// Sliding windows are a strided view, as on every real backend.
at::Tensor unfold(const at::Tensor& self, int64_t dimension, int64_t size, int64_t step) {
  return at::native::unfold(self, dimension, size, step);
}

at::Tensor reshape_alias(const at::Tensor& self, at::IntArrayRef size, at::IntArrayRef stride) {
  return at::native::_reshape_alias(self, size, stride);
}

at::Tensor& set_storage(at::Tensor& self, at::Storage source) { return at::native::set_(self, source); }

at::Tensor& set_storage_offset(at::Tensor& self, at::Storage source, int64_t offset,
                               at::IntArrayRef size, at::IntArrayRef stride) {
  return at::native::set_storage_cpu_(self, source, offset, size, stride);
}

at::Tensor& set_tensor(at::Tensor& self, const at::Tensor& source) {
  return self.set_(source.storage(), source.storage_offset(), source.sizes(), source.strides());
}

at::Tensor& set_empty(at::Tensor& self) {
  const c10::DeviceGuard guard(self.device());
  c10::Storage storage(c10::Storage::use_byte_size_t(), 0, platform::allocator(), /*resizable=*/true);
  return self.set_(storage, 0, {0}, {});
}

at::Tensor& fill(at::Tensor& self, const at::Scalar& value) {
  if (async::enabled()) {
    runtime::enqueue_fill(self, value);
    return self;
  }
  host_alias(self).fill_(value);
  return self;
}

// A host kernel's result as a tensor of `device`; in asynchronous mode over
// registered memory, which queued work can keep past its free.
at::Tensor result_on(const at::Tensor& t, c10::Device device) {
  const auto out = device_alias(t, device);
  return async::enabled() ? runtime::adopt(out) : out;
}

// Asynchronous mode, for a kernel that runs on the host thread: its stream
// must have reached it (Note [Asynchronous virtual device]).
void wait_in_async_mode(const char* name, const c10::Device& device, std::initializer_list<at::Tensor> reads) {
  if (!async::enabled()) return;
  std::vector<runtime::Span> spans;
  for (const auto& t : reads) {
    if (t.defined() && t.device().type() == kType) spans.push_back(runtime::span_of(t, false));
  }
  runtime::host_waits_for(name, runtime::current_stream(device.index()), std::move(spans));
}

// Convolution has no CPU-fallback route (convolution_overrideable is a stub
// for out-of-tree backends), so it runs on CPU views here.
at::Tensor convolution(const at::Tensor& input, const at::Tensor& weight,
                       const c10::optional<at::Tensor>& bias, at::IntArrayRef stride,
                       at::IntArrayRef padding, at::IntArrayRef dilation, bool transposed,
                       at::IntArrayRef output_padding, int64_t groups) {
  for (const auto* t : {&weight, bias ? &*bias : nullptr}) {
    TORCH_CHECK(t == nullptr || !t->defined() || t->device() == input.device(),
                "Expected all tensors to be on the same device, but found at least two devices, ",
                label(input.device()), " and ", label(t->device()), "!");
  }
  // Note [Virtual device kernels]: the work inside a kernel is the
  // backend's, not the subject's; the tracer must not see it.
  const at::DisableRecordFunctionGuard quiet;
  wait_in_async_mode("aten::convolution_overrideable", input.device(), {input, weight, bias ? *bias : at::Tensor()});
  const c10::optional<at::Tensor> host_bias =
      bias && bias->defined() ? c10::optional<at::Tensor>(host_alias(*bias)) : c10::nullopt;
  const auto computed = perturb::run_unboxed(
      "aten::convolution_overrideable", {host_alias(input), host_alias(weight)}, [&](const std::vector<at::Tensor>& in) {
        return half::run_unboxed(
            "aten::convolution_overrideable", in[0].scalar_type(), [&](c10::optional<at::ScalarType> as) {
              auto cast = [&](const at::Tensor& t) { return as && t.defined() ? t.to(*as) : t; };
              const c10::optional<at::Tensor> bias_cast =
                  host_bias ? c10::optional<at::Tensor>(cast(*host_bias)) : c10::nullopt;
              return at::convolution(cast(in[0]), cast(in[1]), bias_cast, stride, padding, dilation, transposed,
                                     output_padding, groups);
            });
      });
  return result_on(computed, input.device());
}

std::tuple<at::Tensor, at::Tensor, at::Tensor> convolution_backward(
    const at::Tensor& grad_output, const at::Tensor& input, const at::Tensor& weight,
    at::IntArrayRef stride, at::IntArrayRef padding, at::IntArrayRef dilation, bool transposed,
    at::IntArrayRef output_padding, int64_t groups, std::array<bool, 3> output_mask) {
  for (const auto* t : {&grad_output, &weight}) {
    TORCH_CHECK(t->device() == input.device(),
                "Expected all tensors to be on the same device, but found at least two devices, ",
                label(input.device()), " and ", label(t->device()), "!");
  }
  const at::DisableRecordFunctionGuard quiet;  // Note [Virtual device kernels]
  wait_in_async_mode("aten::convolution_backward_overrideable", input.device(), {grad_output, input, weight});
  const std::vector<int64_t> bias_sizes = {transposed ? weight.size(1) * groups : weight.size(0)};
  auto backward = [&](c10::optional<at::ScalarType> as) {
    auto cast = [&](const at::Tensor& t) { return as ? host_alias(t).to(*as) : host_alias(t); };
    return at::convolution_backward(cast(grad_output), cast(input), cast(weight), at::IntArrayRef(bias_sizes), stride,
                                    padding, dilation, transposed, output_padding, groups, output_mask);
  };
  std::tuple<at::Tensor, at::Tensor, at::Tensor> grads;
  try {
    grads = backward(c10::nullopt);
  } catch (const c10::Error& e) {  // Note [Half precision on the virtual device]
    if (!half::falls_back(e, "aten::convolution_backward_overrideable", input.scalar_type())) throw;
    grads = backward(at::kFloat);
    for (auto* g : {&std::get<0>(grads), &std::get<1>(grads), &std::get<2>(grads)}) {
      if (g->defined()) *g = g->to(input.scalar_type());
    }
  }
  auto home = [&](const at::Tensor& t) { return result_on(t, input.device()); };
  return {home(std::get<0>(grads)), home(std::get<1>(grads)), home(std::get<2>(grads))};
}

}  // namespace

TORCH_LIBRARY_IMPL(aten, PrivateUse1, m) {
  m.impl("empty.memory_format", TORCH_FN(empty_memory_format));
  m.impl("empty_strided", TORCH_FN(empty_strided));
  m.impl("_copy_from", TORCH_FN(copy_from));
  m.impl("_copy_from_and_resize", TORCH_FN(copy_from_and_resize));
  m.impl("resize_", TORCH_FN(resize));
  m.impl("as_strided", TORCH_FN(as_strided));
  m.impl("view", TORCH_FN(view));
  m.impl("_reshape_alias", TORCH_FN(reshape_alias));
  m.impl("unfold", TORCH_FN(unfold));
  m.impl("set_.source_Storage", TORCH_FN(set_storage));
  m.impl("set_.source_Storage_storage_offset", TORCH_FN(set_storage_offset));
  m.impl("set_.source_Tensor", TORCH_FN(set_tensor));
  m.impl("set_", TORCH_FN(set_empty));
  m.impl("fill_.Scalar", TORCH_FN(fill));
  m.impl("convolution_overrideable", TORCH_FN(convolution));
  m.impl("convolution_backward_overrideable", TORCH_FN(convolution_backward));
}

}  // namespace devparity::vdev
