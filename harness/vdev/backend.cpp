// The virtual device on PrivateUse1 (see ../shared/spec/pytorch-notes.md,
// section 4.4 and the probe of 4.5), for LibTorch 1.x and 2.x alike; what
// differs between them is in vdev/platform.h.
//
// Pieces: a device guard with a thread-local current index; an allocator
// that stamps that index on CPU memory; the kernels a tensor needs to exist
// and move (empty, empty_strided, copies, resize_, views, set_, fill_); and a
// boxed fallback that runs every other op with the CPU kernels after judging
// its tensors' devices by CUDA's rules (Note [Virtual device rules]). The
// judgement is what makes it a device: the generic CPU fallback would
// otherwise run mm, index, cat, where and friends across devices without a
// word.
//
// Note [Shared host memory]
// Virtual-device memory is CPU memory, so the CPU kernels run on CPU tensors
// that alias it (host_alias) and their fresh results become device tensors
// over the same memory (device_alias): no operand is copied. An alias keeps
// the memory's storage alive and is resizable, so a kernel that grows an
// output gets new memory, which is copied back into the device tensor.

#include "harness/vdev/vdev.h"

#include "harness/rules/device_rules.h"
#include "harness/rules/op_arguments.h"
#include "harness/vdev/async.h"
#include "harness/vdev/async_ops.h"
#include "harness/vdev/guard.h"
#include "harness/vdev/half_precision.h"
#include "harness/vdev/perturb.h"
#include "harness/vdev/platform.h"

#include <ATen/ATen.h>
#include <ATen/EmptyTensor.h>
#include <ATen/core/dispatch/Dispatcher.h>
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
#include <c10/core/CPUAllocator.h>
#include <c10/core/impl/alloc_cpu.h>
#include <torch/library.h>

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <mutex>
#include <optional>
#include <unordered_map>

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

// The CPU kernels' view of a device tensor; other tensors pass unchanged.
at::Tensor host_alias(const at::Tensor& t) {
  return t.defined() && t.device().type() == kType ? alias_on(t, c10::Device(at::kCPU)) : t;
}

// A kernel's fresh CPU result as a tensor of the op's device.
at::Tensor device_alias(const at::Tensor& t, c10::Device device) {
  return t.defined() && t.device() != device ? alias_on(t, device) : t;
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

int place_of(const c10::Device& d) {
  return static_cast<int>(d.type()) * 256 + static_cast<int>(d.index()) + 1;
}

// The op's device rule, looked up by name once per schema: every op on the
// device asks. The name is compared on each hit, since a schema's address
// can be another op's once a Python library that registered it is gone.
const device_rules::OpRule& rule_of(const c10::FunctionSchema& schema) {
  struct Entry {
    std::string name, overload;
    device_rules::OpRule rule;
  };
  thread_local std::unordered_map<const c10::FunctionSchema*, Entry> cache;
  auto it = cache.find(&schema);
  if (it == cache.end() || it->second.name != schema.name() || it->second.overload != schema.overload_name()) {
    auto rule = device_rules::rule_for(op_name(schema));
    // Composite ops never reach a backend's fallback; should one, judge it
    // as CUDA judges an unknown kernel.
    if (rule.kind == device_rules::Kind::kComposite) rule.kind = device_rules::Kind::kIteratorCpuScalar;
    it = cache.insert_or_assign(&schema, Entry{schema.name(), schema.overload_name(), std::move(rule)}).first;
  }
  return it->second.rule;
}

// Note [Virtual device rules]: every op that reaches the fallback is judged
// by CUDA's rules for that op (rules/device_rules.h), so the virtual device
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
  return device_rules::judge(rule_of(schema), operands);
}

// A tensor the CPU kernel may write: its device original and the alias the
// kernel got.
struct Written {
  at::Tensor original;
  at::Tensor alias;
};

// Replaces the device tensors among an op's arguments by host aliases;
// Device arguments naming the virtual device become the CPU, and the first
// of them is returned (a factory's device).
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

// A written alias that the kernel resized or moved to new memory: its
// values and shape go back to the device tensor.
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

void run_on_host(const c10::OperatorHandle& op, torch::jit::Stack* stack, const std::vector<ArgumentTensor>& tensors,
                 const device_rules::Verdict& verdict);

// A factory's device: the first Device argument; the CPU when none is given.
c10::Device named_device(const c10::FunctionSchema& schema, const torch::jit::Stack& stack) {
  const auto n = schema.arguments().size();
  for (size_t i = stack.size() - n; i < stack.size(); ++i) {
    if (stack[i].isDevice()) return stack[i].toDevice();
  }
  return c10::Device(at::kCPU);
}

// Note [Generators on the virtual device]: CUDA's random kernels refuse a
// generator of another device type (check_generator: "Expected a 'cuda'
// device type for generator but found 'cpu'"), and code that hands a CPU
// generator to a draw on the GPU fails there (diffusers #6501). The CPU
// kernels behind the virtual device would take it: so it is refused here, as
// CUDA refuses it.
void check_generators(const c10::FunctionSchema& schema, const torch::jit::Stack& stack) {
  const size_t n = schema.arguments().size();
  std::optional<at::Generator> generator;
  bool on_device = false;
  for (size_t i = stack.size() - n; i < stack.size(); ++i) {
    const auto& v = stack[i];
    if (v.isGenerator()) {
      generator = v.toGenerator();
    } else if (v.isTensor()) {
      on_device = on_device || (v.toTensor().defined() && v.toTensor().device().type() == kType);
    } else if (v.isDevice()) {
      on_device = on_device || v.toDevice().type() == kType;
    }
  }
  if (!generator || !generator->defined() || !on_device) return;
  TORCH_CHECK(generator->device().type() == kType, "Expected a '", c10::DeviceTypeName(kType, true),
              "' device type for generator but found '", c10::DeviceTypeName(generator->device().type(), true), "'");
}

// The op's results on the stack, each tensor (and each of a list) passed
// through `home`.
template <typename Home>
void rehome_results(const c10::FunctionSchema& schema, torch::jit::Stack* stack, const Home& home) {
  const auto n = schema.returns().size();
  for (size_t i = stack->size() - n; i < stack->size(); ++i) {
    auto& v = (*stack)[i];
    if (v.isTensor()) {
      v = c10::IValue(home(v.toTensor()));
    } else if (v.isTensorList()) {
      auto list = v.toTensorList();
      for (size_t j = 0; j < list.size(); ++j) list.set(j, home(list.get(j)));
    }
  }
}

bool is_view(const c10::FunctionSchema& schema) {
  const auto& returns = schema.returns();
  return std::any_of(returns.begin(), returns.end(), [](const c10::Argument& r) {
    return r.alias_info() != nullptr && !r.alias_info()->isWrite();
  });
}

// Note [Views on the virtual device]: a view must alias the device tensor's
// own storage, as on CUDA (writes through `z.real` reach `z`; `_base`,
// `untyped_storage()` and resize see one storage). The CPU kernel computes
// the view's geometry and dtype on the host alias, whose memory is the
// device tensor's; the result is then rebuilt over the storage of the
// argument whose memory it views. Any view family works so: view_as_real,
// view_as_complex and whatever a release adds that has no composite form.
void view_on_host(const c10::OperatorHandle& op, torch::jit::Stack* stack, const std::vector<ArgumentTensor>& tensors) {
  const auto& schema = op.schema();
  std::vector<Written> written;
  alias_arguments(schema, stack, &written);
  op.redispatchBoxed(c10::DispatchKeySet(c10::DispatchKey::CPU), stack);
  auto home = [&](const at::Tensor& t) {  // views built without ops
    if (!t.defined() || !t.has_storage()) return t;
    const void* memory = t.storage().data_ptr().get();
    for (const auto& a : tensors) {
      const auto& original = a.tensor;
      if (original.device().type() == kType && original.has_storage() &&
          original.storage().data_ptr().get() == memory) {
        return runtime::view_like(t, original.storage(), c10::DispatchKey::PrivateUse1);
      }
    }
    return t;
  };
  rehome_results(schema, stack, home);
}

// An accepted op on the host now or, in asynchronous mode, queued on the
// current stream (Note [Asynchronous virtual device]).
void run_judged(const c10::OperatorHandle& op, torch::jit::Stack* stack, const std::vector<ArgumentTensor>& tensors,
                const device_rules::Verdict& verdict, bool quiet) {
  auto run = [&] {
    std::optional<at::DisableRecordFunctionGuard> guard;
    if (quiet) guard.emplace();
    run_on_host(op, stack, tensors, verdict);
  };
  if (async::enabled()) {
    const auto& schema = op.schema();
    auto device = verdict.device_of >= 0 ? tensors[verdict.device_of].tensor.device() : named_device(schema, *stack);
    if (device.type() == kType) {
      if (!device.has_index()) device = c10::Device(kType, platform::current_index());
      runtime::enqueue_op(op, stack, device, run);
      return;
    }
  }
  run();
}

// Everything else: the CPU kernels on the device's memory, once CUDA's rules
// accept the devices (Note [Shared host memory]); in asynchronous mode,
// queued on the current stream (Note [Asynchronous virtual device]).
void fallback(const c10::OperatorHandle& op, torch::jit::Stack* stack) {
  const auto& schema = op.schema();
  check_generators(schema, *stack);
  const auto tensors = argument_tensors(schema, torch::jit::last(*stack, schema.arguments().size()));
  const auto verdict = judge_devices(schema, tensors);
  TORCH_CHECK(verdict.accepted, verdict.message);
  if (is_view(schema)) {  // metadata alone: no stream orders it
    view_on_host(op, stack, tensors);
    return;
  }
  run_judged(op, stack, tensors, verdict, /*quiet=*/false);
}

// A host-buffer composite (Note [Host-buffer composites]): judged and run as
// one op, its inner ops the backend's work.
void host_composite(const c10::OperatorHandle& op, torch::jit::Stack* stack) {
  const auto& schema = op.schema();
  const auto tensors = argument_tensors(schema, torch::jit::last(*stack, schema.arguments().size()));
  const auto verdict = judge_devices(schema, tensors);
  TORCH_CHECK(verdict.accepted, verdict.message);
  run_judged(op, stack, tensors, verdict, /*quiet=*/true);
}

// The synchronous kernel: the CPU's, on the device's memory, now.
void run_on_host(const c10::OperatorHandle& op, torch::jit::Stack* stack, const std::vector<ArgumentTensor>& tensors,
                 const device_rules::Verdict& verdict) {
  const auto& schema = op.schema();
  std::vector<Written> written;
  const auto named = alias_arguments(schema, stack, &written);
  // Results belong on the op's device as the rules chose it (`cpu_scalar *
  // x` runs on x's); a factory's is the device it names.
  std::optional<c10::Device> op_device =
      verdict.device_of >= 0 ? std::optional<c10::Device>(tensors[verdict.device_of].tensor.device()) : named;
  if (op_device && op_device->type() == kType && !op_device->has_index()) {
    op_device = c10::Device(kType, platform::current_index());
  }
  // The CPU's kernel, or a switch's (Note [Perturbed numerics]); through float32 where the CPU
  // lacks a half kernel CUDA has (Note [Half precision on the virtual device]).
  half::run_kernel(op, stack);

  // Rehoming builds tensors without ops; a write-back that copies hides its
  // own (a guard here on every op cost the trace a rebuild of LibTorch's
  // callback lists twice per op).
  for (const auto& w : written) write_back(w);
  const bool on_device = op_device && op_device->type() == kType;
  auto home = [&](const at::Tensor& t) {
    for (const auto& w : written) {
      if (t.is_same(w.alias)) return w.original;
    }
    return on_device ? device_alias(t, *op_device) : t;
  };
  rehome_results(schema, stack, home);
}

// An ATen operator by its name in native_functions ("cat", "linalg_eigvals.out");
// none when this LibTorch lacks it.
c10::optional<c10::OperatorHandle> aten_op(const std::string& name) {
  const auto dot = name.find('.');
  return c10::Dispatcher::singleton().findSchema(
      {"aten::" + name.substr(0, dot), dot == std::string::npos ? "" : name.substr(dot + 1)});
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
    const auto handle = aten_op(name);
    if (!handle) continue;
    const auto& args = handle->schema().arguments();
    if (std::any_of(args.begin(), args.end(), [](const c10::Argument& a) { return a.is_out(); })) continue;
    library->impl(name.c_str(), torch::CppFunction::makeFromBoxedFunction<&fallback>());
  }
}

// Note [Autograd on the virtual device]: CUDA's and the CPU's autograd keys
// fall through to the kernel for ops that have no autograd kernel of their
// own (torchvision::nms, a custom op with a CPU kernel alone); LibTorch 1.13
// has no such fallback for AutogradPrivateUse1, so those ops raised
// NotImplementedError on vdev outside inference_mode. Registered only where
// LibTorch has none (2.x has its own).
void register_autograd_fallthrough() {
  static std::unique_ptr<torch::Library> library;
  if (c10::Dispatcher::singleton().hasBackendFallbackForDispatchKey(c10::DispatchKey::AutogradPrivateUse1)) return;
  library = std::make_unique<torch::Library>(torch::Library::IMPL, "_", c10::DispatchKey::AutogradPrivateUse1,
                                             __FILE__, static_cast<uint32_t>(__LINE__));
  library->fallback(torch::CppFunction::makeFallthrough());
}

// Note [Host-buffer composites]: some composite ops branch on is_cuda() to
// work through host buffers, as MAGMA and friends need: 1.13's
// linalg_eigvals.out makes its eigenvalues in a CPU temporary when `values`
// is on CUDA, and otherwise writes them with complex_out straight into
// `values`, beside CPU work tensors. For any other device the second branch
// mixes devices where CUDA's does not (Kornia's find_essential failed on vdev
// alone). So the virtual device runs such a composite whole, as one op, on
// its host memory, the way CUDA's branch does; the ops inside are the
// backend's (Note [Virtual device kernels]) and the tracer does not see them.
// Registered only where the op is composite in this LibTorch (2.x's
// linalg_eigvals.out has kernels). Found by running real suites on vdev.
constexpr const char* kHostBufferComposites[] = {"linalg_eigvals.out"};

void host_composite(const c10::OperatorHandle& op, torch::jit::Stack* stack);

void register_host_buffer_composites() {
  static std::unique_ptr<torch::Library> library;
  library = std::make_unique<torch::Library>(torch::Library::IMPL, "aten", c10::DispatchKey::PrivateUse1,
                                             __FILE__, static_cast<uint32_t>(__LINE__));
  for (const std::string name : kHostBufferComposites) {
    const auto handle = aten_op(name);
    if (!handle || !handle->hasKernelForDispatchKey(c10::DispatchKey::CompositeImplicitAutograd)) continue;
    library->impl(name.c_str(), torch::CppFunction::makeFromBoxedFunction<&host_composite>());
  }
}

// Note [Math bits on the virtual device]: copy_ reaches a device other than
// the CPU and CUDA through _copy_from, which the conjugate and negative
// fallbacks do not let through: they resolve the bit with clone(), whose
// copy_ calls _copy_from again, without end (a conj view's resolve_conj()
// crashed). The CPU copy behind _copy_from resolves the bits itself, as
// copy_ does, so the copy kernels are let through where LibTorch has not.
void register_math_bit_fallthroughs() {
  static std::vector<std::unique_ptr<torch::Library>> libraries;
  for (const auto key : {c10::DispatchKey::Conjugate, c10::DispatchKey::Negative}) {
    auto library = std::make_unique<torch::Library>(torch::Library::IMPL, "aten", key, __FILE__,
                                                    static_cast<uint32_t>(__LINE__));
    for (const char* name : {"_copy_from", "_copy_from_and_resize"}) {
      const auto handle = aten_op(name);
      if (handle && !handle->hasKernelForDispatchKey(key)) {
        library->impl(name, torch::CppFunction::makeFallthrough());
      }
    }
    libraries.push_back(std::move(library));
  }
}

}  // namespace

void check_index(c10::DeviceIndex index) {
  TORCH_CHECK(index >= 0 && index < g_count.load(), "vdev:", static_cast<int>(index),
              " does not exist: devparity's virtual device has ", g_count.load(), " indices");
}

c10::DeviceIndex current_index() { return tls_current; }

void set_current_index(c10::DeviceIndex index) { tls_current = index; }

int installed_count() { return g_count.load(); }

c10::DeviceIndex platform::current_index() { return tls_current; }

// Every block is registered, so that asynchronous work can keep it past its
// free (Note [Stream-ordered release]).
void platform::free_memory(void* p) { runtime::release_block(p); }

c10::DataPtr platform::allocate_memory(size_t bytes) {
  autograd_threads::renew_after_fork();
  void* p = bytes != 0 ? c10::alloc_cpu(bytes) : nullptr;
  if (p != nullptr) {
    runtime::register_block(p, bytes, /*pinned=*/false, runtime::actor_of(runtime::current_stream(tls_current)));
  }
  return {p, p, &free_memory, c10::Device(kType, tls_current)};
}

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
    platform::register_backend();
    c10::SetAllocator(kType, platform::allocator());
    register_structured_checks();
    register_autograd_fallthrough();
    register_math_bit_fallthroughs();
    register_host_buffer_composites();
  });
  g_count.store(count);
  autograd_threads::serve(count);
}

int device_count() { return g_count.load(); }

bool installed() { return g_count.load() > 0; }

c10::Device device(int index) {
  return c10::Device(kType, static_cast<c10::DeviceIndex>(index));
}

bool named_in_libtorch() { return platform::names_backend(); }

std::string process_accelerator() { return platform::accelerator_name(); }

std::string description() {
  return async::enabled()
             ? "devparity virtual device: CPU memory and CPU kernels on LibTorch's PrivateUse1 key, "
               "placement enforced like CUDA; asynchronous: streams run later in a seeded interleaving, "
               "with a race detector; timing and real kernel concurrency are not modelled"
             : "devparity virtual device: CPU memory and CPU kernels on LibTorch's PrivateUse1 key, "
               "placement enforced like CUDA; synchronous (--vdev-sync), so stream and event ordering "
               "bugs are not modelled (the default, asynchronous mode models them)";
}

}  // namespace devparity::vdev
