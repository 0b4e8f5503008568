// The virtual device's memory seen both ways (Note [Shared host memory] in vdev/alias.h).
#include "harness/vdev/alias.h"

#include "harness/vdev/async_ops.h"
#include "harness/vdev/platform.h"

#include <ATen/ATen.h>
#include <ATen/record_function.h>
#include <c10/core/CPUAllocator.h>

namespace devparity::vdev {
namespace {

void release_storage(void* context) { delete static_cast<c10::Storage*>(context); }

// A tensor on `device` over `t`'s memory (Note [Shared host memory]). Built
// without the dispatcher, so the tracer sees no op of the backend's own.
at::Tensor alias_on(const at::Tensor& t, c10::Device device) {
  const c10::Storage& source = t.storage();
  const bool to_device = device.type() == kType;
  c10::DataPtr data(source.data_ptr().get(), new c10::Storage(source), &release_storage, device);
  c10::Storage storage(c10::Storage::use_byte_size_t(), source.nbytes(), std::move(data),
                       to_device ? platform::allocator() : c10::GetCPUAllocator(), /*resizable=*/true);
  return runtime::view_like(t, std::move(storage), to_device ? c10::DispatchKey::PrivateUse1 : c10::DispatchKey::CPU);
}

}  // namespace

std::string label(const c10::Device& d) {
  if (d.type() != kType) return d.str();
  return "vdev:" + std::to_string(static_cast<int>(d.index()));
}

at::Tensor host_alias(const at::Tensor& t) {
  return t.defined() && t.device().type() == kType ? alias_on(t, c10::Device(at::kCPU)) : t;
}

at::Tensor device_alias(const at::Tensor& t, c10::Device device) {
  return t.defined() && t.device() != device ? alias_on(t, device) : t;
}

std::optional<c10::Device> alias_arguments(const c10::FunctionSchema& schema, torch::jit::Stack* stack,
                                           std::vector<Written>* written) {
  std::optional<c10::Device> named;
  const auto& args = schema.arguments();
  const auto first = stack->size() - args.size();
  for (size_t i = 0; i < args.size(); ++i) {
    auto& v = (*stack)[first + i];
    const bool writes = args[i].alias_info() != nullptr && args[i].alias_info()->isWrite();
    if (v.isTensor()) {
      const auto& t = v.toTensor();
      if (!t.defined() || t.device().type() != kType) continue;
      auto alias = host_alias(t);
      if (writes) written->push_back({t, alias});
      v = c10::IValue(std::move(alias));
    } else if (v.isTensorList()) {
      auto list = v.toTensorList();
      for (size_t j = 0; j < list.size(); ++j) list.set(j, host_alias(list.get(j)));
    } else if (v.isList()) {  // optional tensors (index's indices)
      auto list = v.toList();
      for (size_t j = 0; j < list.size(); ++j) {
        const c10::IValue element = list.get(j);
        if (element.isTensor()) list.set(j, host_alias(element.toTensor()));
      }
    } else if (v.isDevice() && v.toDevice().type() == kType) {
      if (!named) named = v.toDevice();
      v = c10::IValue(c10::Device(at::kCPU));
    }
  }
  return named;
}

void write_back(const Written& w) {
  const auto& a = w.alias;
  const auto& o = w.original;
  const bool same_memory = a.storage().data_ptr().get() == o.storage().data_ptr().get();
  if (same_memory && a.sizes() == o.sizes() && a.strides() == o.strides() &&
      a.storage_offset() == o.storage_offset()) {
    return;
  }
  const at::DisableRecordFunctionGuard quiet;  // Note [Virtual device kernels]
  at::_copy_from_and_resize(same_memory ? a.clone() : a, o);
}

}  // namespace devparity::vdev
