// The virtual device on PrivateUse1 (LibTorch 1.13; see
// ../shared/spec/pytorch-notes.md, section 4.4 and the probe of 4.5).
//
// Pieces: a device guard with a thread-local current index; an allocator
// that stamps that index on CPU memory; the kernels a tensor needs to exist
// and move (empty, empty_strided, copies, resize_, views, set_, fill_); and a
// boxed fallback that runs every other op with the CPU kernels after judging
// its tensors' devices by CUDA's rules (Note [Virtual device rules]). The
// judgement is what makes it a device: the generic CPU fallback would
// otherwise run mm, index, cat, where and friends across devices without a
// word.

#include "harness/core/vdev.h"

#include "harness/core/device_rules.h"
#include "harness/core/op_arguments.h"

#include <ATen/ATen.h>
#include <ATen/EmptyTensor.h>
#include <ATen/native/CPUFallback.h>
#include <ATen/record_function.h>
#include <ATen/ops/_reshape_alias_native.h>
#include <ATen/ops/as_strided_native.h>
#include <ATen/ops/resize_native.h>
#include <ATen/ops/set_native.h>
#include <ATen/ops/unfold_native.h>
#include <ATen/ops/view_native.h>
#include <c10/core/Allocator.h>
#include <c10/core/DeviceGuard.h>
#include <c10/core/impl/DeviceGuardImplInterface.h>
#include <c10/core/impl/alloc_cpu.h>
#include <torch/library.h>

#include <algorithm>
#include <atomic>
#include <cstring>
#include <mutex>
#include <optional>

namespace devparity::vdev {
namespace {

constexpr auto kType = c10::DeviceType::PrivateUse1;
constexpr int kMaxDevices = 16;

std::atomic<int> g_count{0};
thread_local c10::DeviceIndex tls_current = 0;

std::string label(const c10::Device& d) {
  if (d.type() != kType) return d.str();
  return "vdev:" + std::to_string(static_cast<int>(d.index()));
}

void check_index(c10::DeviceIndex index) {
  TORCH_CHECK(index >= 0 && index < g_count.load(), "vdev:", static_cast<int>(index),
              " does not exist: devparity's virtual device has ", g_count.load(), " indices");
}

// No streams or events to speak of: the device is synchronous
// (Note [Virtual device limits]).
struct GuardImpl final : public c10::impl::DeviceGuardImplInterface {
  c10::DeviceType type() const override { return kType; }
  c10::Device exchangeDevice(c10::Device d) const override {
    const auto old = getDevice();
    setDevice(d);
    return old;
  }
  c10::Device getDevice() const override { return c10::Device(kType, tls_current); }
  void setDevice(c10::Device d) const override {
    TORCH_CHECK(d.type() == kType, "not a virtual device: ", d);
    if (!d.has_index()) return;
    check_index(d.index());
    tls_current = d.index();
  }
  void uncheckedSetDevice(c10::Device d) const noexcept override {
    if (d.has_index()) tls_current = d.index();
  }
  c10::Stream getStream(c10::Device d) const noexcept override {
    return c10::Stream(c10::Stream::DEFAULT, d);
  }
  c10::Stream exchangeStream(c10::Stream s) const noexcept override {
    return c10::Stream(c10::Stream::DEFAULT, s.device());
  }
  c10::DeviceIndex deviceCount() const noexcept override {
    return static_cast<c10::DeviceIndex>(g_count.load());
  }
  void record(void**, const c10::Stream&, const c10::DeviceIndex, const c10::EventFlag) const override {}
  void block(void*, const c10::Stream&) const override {}
  bool queryEvent(void*) const override { return true; }
  void destroyEvent(void*, const c10::DeviceIndex) const noexcept override {}
};

C10_REGISTER_GUARD_IMPL(PrivateUse1, GuardImpl);

void free_block(void* p) { c10::free_cpu(p); }

// CPU memory, stamped with the current virtual index.
struct Allocator final : public c10::Allocator {
  c10::DataPtr allocate(size_t bytes) const override {
    void* p = bytes != 0 ? c10::alloc_cpu(bytes) : nullptr;
    return {p, p, &free_block, c10::Device(kType, tls_current)};
  }
  c10::DeleterFnPtr raw_deleter() const override { return &free_block; }
  // Required by newer LibTorch releases; harmless here.
  void copy_data(void* dest, const void* src, std::size_t count) const {
    std::memcpy(dest, src, count);
  }
};

Allocator g_allocator;

// A CPU tensor over the same memory (the caller keeps `t` alive).
at::Tensor host_view(const at::Tensor& t) {
  if (t.device().type() != kType) return t;
  return at::from_blob(t.data_ptr(), t.sizes(), t.strides(), t.options().device(at::kCPU));
}

// A guard on the device's index when it has one; otherwise the current index.
c10::OptionalDeviceGuard guard_for(c10::optional<c10::Device> device) {
  if (device && device->type() == kType && device->has_index()) return c10::OptionalDeviceGuard(*device);
  return c10::OptionalDeviceGuard();
}

at::Tensor empty_memory_format(at::IntArrayRef size, c10::optional<at::ScalarType> dtype,
                               c10::optional<at::Layout>, c10::optional<at::Device> device,
                               c10::optional<bool>, c10::optional<at::MemoryFormat> memory_format) {
  const auto guard = guard_for(device);
  return at::detail::empty_generic(size, &g_allocator, c10::DispatchKeySet(c10::DispatchKey::PrivateUse1),
                                   c10::dtype_or_default(dtype), memory_format);
}

at::Tensor empty_strided(at::IntArrayRef size, at::IntArrayRef stride,
                         c10::optional<at::ScalarType> dtype, c10::optional<at::Layout>,
                         c10::optional<at::Device> device, c10::optional<bool>) {
  const auto guard = guard_for(device);
  return at::detail::empty_strided_generic(size, stride, &g_allocator,
                                           c10::DispatchKeySet(c10::DispatchKey::PrivateUse1),
                                           c10::dtype_or_default(dtype));
}

// vdev <-> cpu and vdev <-> vdev: the memory is the host's either way.
at::Tensor copy_from(const at::Tensor& self, const at::Tensor& dst, bool) {
  host_view(dst).copy_(host_view(self));
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
  c10::Storage storage(c10::Storage::use_byte_size_t(), 0, &g_allocator, /*resizable=*/true);
  return self.set_(storage, 0, {0}, {});
}

at::Tensor& fill(at::Tensor& self, const at::Scalar& value) {
  host_view(self).fill_(value);
  return self;
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
  const c10::optional<at::Tensor> host_bias =
      bias && bias->defined() ? c10::optional<at::Tensor>(host_view(*bias)) : c10::nullopt;
  return at::convolution(host_view(input), host_view(weight), host_bias, stride, padding, dilation,
                         transposed, output_padding, groups)
      .to(input.device());
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
  const std::vector<int64_t> bias_sizes = {transposed ? weight.size(1) * groups : weight.size(0)};
  auto grads = at::convolution_backward(host_view(grad_output), host_view(input), host_view(weight),
                                        at::IntArrayRef(bias_sizes), stride, padding, dilation,
                                        transposed, output_padding, groups, output_mask);
  auto home = [&](const at::Tensor& t) { return t.defined() ? t.to(input.device()) : t; };
  return {home(std::get<0>(grads)), home(std::get<1>(grads)), home(std::get<2>(grads))};
}

int place_of(const c10::Device& d) {
  return static_cast<int>(d.type()) * 256 + static_cast<int>(d.index()) + 1;
}

// Note [Virtual device rules]: every op that reaches the fallback is judged
// by CUDA's rules for that op (core/device_rules.h), so the virtual device
// accepts exactly what CUDA accepts (`x[cpu_mask]`, a CPU scalar times a
// device tensor) and refuses the rest with CUDA's wording.
device_rules::Verdict judge_devices(const c10::FunctionSchema& schema,
                                    const std::vector<ArgumentTensor>& tensors) {
  std::vector<device_rules::Operand> operands;
  operands.reserve(tensors.size());
  for (const auto& a : tensors) {
    const auto d = a.tensor.device();
    operands.push_back({a.argument, place_of(d), d.is_cpu(), label(d), a.tensor.dim(), a.output});
  }
  std::string name = schema.name();
  if (!schema.overload_name().empty()) name += "." + schema.overload_name();
  auto rule = device_rules::rule_for(name);
  // Composite ops never reach a backend's fallback; should one, judge it
  // as CUDA judges an unknown kernel.
  if (rule.kind == device_rules::Kind::kComposite) rule.kind = device_rules::Kind::kIteratorCpuScalar;
  return device_rules::judge(rule, operands);
}

// Everything else: the CPU kernels, once CUDA's rules accept the devices.
void fallback(const c10::OperatorHandle& op, torch::jit::Stack* stack) {
  const auto& schema = op.schema();
  const auto tensors = argument_tensors(schema, torch::jit::last(*stack, schema.arguments().size()));
  const auto verdict = judge_devices(schema, tensors);
  TORCH_CHECK(verdict.accepted, verdict.message);
  // cpu_fallback puts results on its first tensor argument's device; the
  // op's device is the one the rules chose (`cpu_scalar * x` runs on x's).
  const std::optional<c10::Device> op_device =
      verdict.device_of >= 0 ? std::optional<c10::Device>(tensors[verdict.device_of].tensor.device())
                             : std::nullopt;
  // A view must share the device's memory; cpu_fallback would hand back a
  // copy (with only a warning), so views without a kernel here are unsupported.
  for (const auto& ret : schema.returns()) {
    if (ret.alias_info() != nullptr && !ret.alias_info()->isWrite()) {
      throw c10::NotImplementedError(
          {__func__, __FILE__, static_cast<uint32_t>(__LINE__)},
          "Could not run '" + schema.name() +
              "' on devparity's virtual device: a view operator without a virtual-device kernel");
    }
  }
  // cpu_fallback moves tensors and tensor lists to the CPU but not lists of
  // optional tensors (index's indices): give those CPU views of their memory.
  const auto first = stack->size() - schema.arguments().size();
  for (size_t i = first; i < stack->size(); ++i) {
    auto& v = (*stack)[i];
    if (!v.isList() || v.isTensorList()) continue;
    auto list = v.toList();
    for (size_t j = 0; j < list.size(); ++j) {
      const c10::IValue element = list.get(j);
      if (element.isTensor() && element.toTensor().defined() &&
          element.toTensor().device().type() == kType) {
        list.set(j, host_view(element.toTensor()));
      }
    }
  }
  at::native::cpu_fallback(op, stack);
  if (!op_device || op_device->type() != kType) return;
  const auto& returns = schema.returns();
  const auto results = stack->size() - returns.size();
  for (size_t i = 0; i < returns.size(); ++i) {
    auto& v = (*stack)[results + i];
    if (returns[i].alias_info() != nullptr || !v.isTensor()) continue;
    const auto& t = v.toTensor();
    if (t.defined() && t.device() != *op_device) v = c10::IValue(t.to(*op_device));
  }
}

// Note [Structured checks]: CUDA checks a structured op's devices in its
// functional wrapper ("... in method wrapper_cat"); an out-of-tree backend
// gets the functional form through a composite that allocates `out` and
// calls the out= kernel, whose check would say "wrapper_cat_out_out". So the
// functional and in-place forms of those ops run the judging fallback here.
void register_structured_checks() {
  static std::unique_ptr<torch::Library> library;
  library = std::make_unique<torch::Library>(torch::Library::IMPL, "aten", c10::DispatchKey::PrivateUse1,
                                             __FILE__, static_cast<uint32_t>(__LINE__));
  for (const auto& name : device_rules::structured_checked_ops()) {
    const auto dot = name.find('.');
    const c10::OperatorName op("aten::" + name.substr(0, dot), dot == std::string::npos ? "" : name.substr(dot + 1));
    const auto handle = c10::Dispatcher::singleton().findSchema(op);
    if (!handle) continue;
    const auto& args = handle->schema().arguments();
    if (std::any_of(args.begin(), args.end(), [](const c10::Argument& a) { return a.is_out(); })) continue;
    library->impl(name.c_str(), torch::CppFunction::makeFromBoxedFunction<&fallback>());
  }
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

TORCH_LIBRARY_IMPL(_, PrivateUse1, m) {
  m.fallback(torch::CppFunction::makeFromBoxedFunction<&fallback>());
}

bool compiled() { return true; }

void install(int count) {
  TORCH_CHECK(count >= 1 && count <= kMaxDevices, "the virtual device count must be in [1, ",
              kMaxDevices, "], got ", count);
  static std::once_flag once;
  std::call_once(once, [] {
    c10::SetAllocator(kType, &g_allocator);
    register_structured_checks();
  });
  g_count.store(count);
}

int device_count() { return g_count.load(); }

c10::Device device(int index) {
  return c10::Device(kType, static_cast<c10::DeviceIndex>(index));
}

std::string description() {
  return "devparity virtual device: CPU memory and CPU kernels on LibTorch's PrivateUse1 key, "
         "placement enforced like CUDA; synchronous, so stream and event ordering bugs are not "
         "modelled";
}

namespace {
// Loading libdevparity is enough to use the device: a process that loads
// it for its kernels alone (Python's torch.ops.load_library) gets the
// default two indices; devparity run sets --vdev-count after. After the
// kernel registrations above, in this file's order of initialisation.
const bool g_installed_on_load = [] {
  try {
    if (g_count.load() == 0) install(2);
  } catch (...) {
  }
  return true;
}();
}  // namespace

}  // namespace devparity::vdev
