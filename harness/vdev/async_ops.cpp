// Ops, copies and fills of the asynchronous virtual device (Note
// [Asynchronous virtual device] in vdev/async.h): what the backend's
// kernels enqueue instead of running.

#include "harness/vdev/async_ops.h"

#include "harness/rules/op_arguments.h"
#include "harness/vdev/half_precision.h"
#include "harness/vdev/platform.h"

#include <ATen/ATen.h>
#include <ATen/EmptyTensor.h>
#include <ATen/record_function.h>
#include <c10/core/DeviceGuard.h>

#include <atomic>
#include <cstring>
#include <mutex>
#include <optional>
#include <unordered_map>

namespace devparity::vdev::runtime {
namespace {

constexpr auto kType = c10::DeviceType::PrivateUse1;

void keep(void*) {}

bool on_vdev(const at::Tensor& t) { return t.defined() && t.device().type() == kType; }

// Ops whose result the host needs now, or that draw from a generator (the
// draw must happen in program order, as CUDA reserves its offsets at launch).
// The linalg family checks its results for errors (singular, not converged)
// where it runs, and CUDA's reads them back to the host at the call.
bool checks_errors_on_host(const c10::FunctionSchema& schema) {
  const auto& name = schema.name();
  for (const char* prefix : {"aten::linalg_", "aten::_linalg_", "aten::cholesky", "aten::inverse", "aten::svd",
                             "aten::symeig", "aten::lu_", "aten::_lu_", "aten::triangular_solve"}) {
    if (name.rfind(prefix, 0) == 0) return true;
  }
  return false;
}

bool needs_host(const c10::FunctionSchema& schema) {
  if (checks_errors_on_host(schema)) return true;
  for (const auto& r : schema.returns()) {
    if (r.type()->kind() != c10::TypeKind::TensorType) return true;
  }
  for (const auto& a : schema.arguments()) {
    if (a.type()->str().find("Generator") != std::string::npos) return true;
  }
  return false;
}

// Applies `f` to every tensor of an argument (a tensor, a list, a list of optionals).
template <typename F>
c10::IValue map_tensors(const c10::IValue& v, F f) {
  if (v.isTensor()) return c10::IValue(f(v.toTensor()));
  if (v.isTensorList()) {
    auto list = v.toTensorList().copy();
    for (size_t i = 0; i < list.size(); ++i) list.set(i, f(list.get(i)));
    return c10::IValue(list);
  }
  if (v.isList()) {
    auto list = v.toList().copy();
    for (size_t i = 0; i < list.size(); ++i) {
      const c10::IValue e = list.get(i);
      if (e.isTensor()) list.set(i, c10::IValue(f(e.toTensor())));
    }
    return c10::IValue(list);
  }
  return v;
}

template <typename F>
void each_tensor(const c10::IValue& v, F f) {
  map_tensors(v, [&](const at::Tensor& t) {
    f(t);
    return t;
  });
}

// A scalar the caller wrote as a number (`x * 2.0`) promotes as a number:
// a plain 0-dim double would make a float32 product float64.
at::Tensor keep_wrapped(const at::Tensor& from, at::Tensor to) {
  if (from.unsafeGetTensorImpl()->is_wrapped_number()) to.unsafeGetTensorImpl()->set_wrapped_number(true);
  return to;
}

at::Tensor as_meta(const at::Tensor& t) {
  if (!t.defined()) return t;
  return keep_wrapped(t, at::empty_strided(t.sizes(), t.strides(), t.options().device(c10::kMeta)));
}

at::Tensor device_empty(const at::Tensor& like_meta, const c10::Device& device) {
  const c10::DeviceGuard guard(device);
  return at::detail::empty_strided_generic(like_meta.sizes(), like_meta.strides(), platform::allocator(),
                                           c10::DispatchKeySet(c10::DispatchKey::PrivateUse1),
                                           like_meta.scalar_type());
}

bool is_written(const c10::Argument& a) { return a.alias_info() != nullptr && a.alias_info()->isWrite(); }

void poison(const Span& span) {
  if (span.hi == span.lo) return;
  std::memset(reinterpret_cast<void*>(span.lo), poison_byte(), span.hi - span.lo);
  count_poisoned();
}

}  // namespace

at::Tensor borrowed(const at::Tensor& t) {
  if (!t.defined()) return t;
  void* p = t.storage().data_ptr().get();
  c10::DataPtr data(p, p, &keep, c10::Device(c10::kCPU));
  c10::Storage storage(c10::Storage::use_byte_size_t(), t.storage().nbytes(), std::move(data), nullptr,
                       /*resizable=*/false);
  return view_like(t, std::move(storage), c10::DispatchKey::CPU);
}

at::Tensor view_like(const at::Tensor& t, c10::Storage storage, c10::DispatchKey key) {
  auto view = at::detail::make_tensor<c10::TensorImpl>(std::move(storage), c10::DispatchKeySet(key), t.dtype());
  auto* impl = view.unsafeGetTensorImpl();
  impl->set_sizes_and_strides(t.sizes(), t.strides());
  impl->set_storage_offset(t.storage_offset());
  impl->_set_conj(t.is_conj());
  impl->_set_neg(t.is_neg());
  return view;
}

at::Tensor adopt(const at::Tensor& t) {
  if (!on_vdev(t) || !t.has_storage() || t.storage().data_ptr().get() == nullptr ||
      is_registered(reinterpret_cast<uintptr_t>(t.storage().data_ptr().get()), false)) {
    return t;
  }
  const at::DisableRecordFunctionGuard quiet;
  auto out = device_empty(at::empty_strided(t.sizes(), t.strides(), t.options().device(c10::kMeta)), t.device());
  borrowed(out).copy_(borrowed(t));
  return out;
}

void host_waits_for(const std::string& name, const c10::Stream& stream, std::vector<Span> spans) {
  Work marker;
  marker.name = name;
  marker.device = std::move(spans);
  run_through(stream, submit(stream, std::move(marker)));
  count_host_wait();
}

namespace {

std::atomic<async::PendingErrorReset> g_error_reset{nullptr};

void reset_pending_error() {
  if (const auto reset = g_error_reset.load()) reset();
}

// Note [Meta kernels in Python]: torch registers meta kernels written in
// Python (torch._meta_registrations, torch._refs) over many C++ ones, under
// the debug name "/dev/null". They cost a Python call per op (2.6's add:
// 186 us, its C++ kernel a few), and 1.13's give other sizes than the CPU's
// kernel for some arguments (col2im at odd sizes: [1, 1, 0, 7] for
// [1, 1, 4, 3]). Such an op runs when its stream reaches it instead.
bool meta_written_in_python(const c10::OperatorHandle& op) {
  return op.dumpComputedTable().find("Meta: registered at /dev/null") != std::string::npos;
}

// Whether each op's meta kernel gives the sizes its outputs take: none, one
// written in Python, or one found without a kernel (its own or
// one it calls: asking again would throw again, and an error's backtrace
// costs more than the op) or disagreeing with the CPU's sizes (Note [Meta
// kernels that disagree]) is not asked.
std::mutex g_meta_mutex;
std::unordered_map<const void*, bool> g_meta_usable;

bool known_without_meta(const c10::OperatorHandle& op) {
  const std::lock_guard<std::mutex> lock(g_meta_mutex);
  auto it = g_meta_usable.find(&op.schema());
  if (it == g_meta_usable.end()) {
    const bool usable = op.hasComputedKernelForDispatchKey(c10::DispatchKey::Meta) && !meta_written_in_python(op);
    it = g_meta_usable.emplace(&op.schema(), usable).first;
  }
  return !it->second;
}

void note_without_meta(const c10::OperatorHandle& op) {
  const std::lock_guard<std::mutex> lock(g_meta_mutex);
  g_meta_usable[&op.schema()] = false;
}

// The op's outputs from its meta kernel: false where it has none (or the
// host needs its result now, or the meta kernel rejects the arguments: the
// CPU kernel then says why, at the call).
bool run_meta(const c10::OperatorHandle& op, const torch::jit::Stack& stack, std::vector<c10::IValue>* meta_args,
              torch::jit::Stack* meta) {
  const auto& schema = op.schema();
  if (needs_host(schema) || known_without_meta(op)) return false;
  const size_t first = stack.size() - schema.arguments().size();
  try {
    for (size_t i = first; i < stack.size(); ++i) {
      const auto& v = stack[i];
      meta_args->push_back(v.isDevice() ? c10::IValue(c10::Device(c10::kMeta)) : map_tensors(v, as_meta));
    }
    *meta = *meta_args;
    op.redispatchBoxed(c10::DispatchKeySet(c10::DispatchKey::Meta), meta);
  } catch (const c10::NotImplementedError&) {
    note_without_meta(op);
    reset_pending_error();
    return false;
  } catch (const std::exception&) {
    reset_pending_error();
    return false;
  }
  return true;
}

// Each output: the written argument the meta kernel returned (resized as
// the kernel would), or fresh memory on `device`; `fresh` says which.
std::vector<at::Tensor> device_outputs(const c10::FunctionSchema& schema, const torch::jit::Stack& stack,
                                       const std::vector<c10::IValue>& meta_args, const torch::jit::Stack& meta,
                                       const c10::Device& device, std::vector<bool>* fresh,
                                       std::vector<Span>* spans) {
  const auto& args = schema.arguments();
  const size_t first = stack.size() - args.size();
  std::vector<at::Tensor> outputs;
  for (const auto& r : meta) {
    const auto m = r.toTensor();
    if (!m.defined()) {  // an output the op does not make (a backward's unrequested gradient)
      fresh->push_back(false);
      outputs.emplace_back();
      continue;
    }
    at::Tensor out;
    for (size_t i = 0; i < args.size() && !out.defined(); ++i) {
      const auto& mv = meta_args[i];
      if (!is_written(args[i]) || !mv.isTensor() || !mv.toTensor().is_same(m)) continue;
      out = stack[first + i].toTensor();
      if (out.sizes() != m.sizes()) {
        out.resize_(m.sizes());
        spans->push_back(span_of(out, true));
      }
    }
    fresh->push_back(!out.defined());
    if (!out.defined()) {
      out = device_empty(m, device);
      spans->push_back(span_of(out, true));
    }
    outputs.push_back(out);
  }
  return outputs;
}

// The kernel's own arguments: vdev memory borrowed, host tensors copied now
// (CUDA copies them to the device at the call), devices made the CPU.
torch::jit::Stack host_arguments(const torch::jit::Stack& stack, size_t count) {
  torch::jit::Stack host;
  for (size_t i = stack.size() - count; i < stack.size(); ++i) {
    const auto& v = stack[i];
    if (v.isDevice()) {
      host.emplace_back(c10::Device(c10::kCPU));
      continue;
    }
    host.push_back(map_tensors(v, [](const at::Tensor& t) {
      if (!t.defined()) return t;
      return on_vdev(t) ? borrowed(t) : keep_wrapped(t, t.clone());
    }));
  }
  return host;
}

// Note [Meta kernels that disagree]: a meta kernel written apart from the
// CPU's may give other sizes than the kernel that runs (1.13's Python ones
// did: native_batch_norm's saved statistics in eval, col2im at odd sizes;
// those are no longer asked, Note [Meta kernels in Python]). The kernel's
// sizes are the device's: the result takes them where its memory holds
// them, and the op runs when its stream reaches it from then on.
using WeakImpl = c10::weak_intrusive_ptr<c10::TensorImpl, c10::UndefinedTensorImpl>;

void take_kernels_sizes(const c10::OperatorHandle& op, const at::Tensor& result, at::Tensor& target,
                        const WeakImpl& device) {
  note_without_meta(op);
  const auto needed = static_cast<size_t>(result.numel()) * result.element_size() +
                      static_cast<size_t>(target.storage_offset()) * target.element_size();
  TORCH_CHECK(needed <= target.storage().nbytes(), "its meta kernel gave ", target.sizes(), " and its CPU kernel ",
              result.sizes(), ", which does not fit the memory the meta kernel's sizes allocated");
  target.unsafeGetTensorImpl()->set_sizes_contiguous(result.sizes());
  if (auto impl = device.lock()) impl->set_sizes_contiguous(result.sizes());
}

// Fresh results are CPU memory: registered copies outlive their tensors
// while queued work reads them (Note [Stream-ordered release]).
void adopt_results(const c10::FunctionSchema& schema, torch::jit::Stack* stack) {
  for (size_t i = stack->size() - schema.returns().size(); i < stack->size(); ++i) {
    auto& v = (*stack)[i];
    if (v.isTensor()) v = c10::IValue(adopt(v.toTensor()));
  }
}

// Note [Ops at their call while nothing overlaps]: the op's accesses are
// judged as a queued op's, on its stream, then it runs here.
void run_at_call(const c10::FunctionSchema& schema, torch::jit::Stack* stack, const c10::Stream& stream,
                 std::vector<Span> spans, const std::function<void()>& run_now) {
  Work marker;
  marker.name = op_name(schema);
  marker.device = std::move(spans);
  run_through(stream, submit(stream, std::move(marker)));
  count_at_call();
  run_now();
  adopt_results(schema, stack);
}

// The host path: the stream reaches the op, then `run_now` runs it here.
void run_when_reached(const c10::FunctionSchema& schema, torch::jit::Stack* stack, const c10::Stream& stream,
                      std::vector<Span> spans, const std::function<void()>& run_now) {
  const auto name = op_name(schema);
  if (needs_host(schema)) {
    // The host waits for the result, as CUDA's item() or nonzero does.
    Work marker;
    marker.name = name;
    marker.device = std::move(spans);
    submit(stream, std::move(marker));
    synchronize_stream(stream);
  } else {
    host_waits_for(name, stream, std::move(spans));
  }
  run_now();
  adopt_results(schema, stack);
}

}  // namespace

void enqueue_op(const c10::OperatorHandle& op, torch::jit::Stack* stack, const c10::Device& device,
                const std::function<void()>& run_now) {
  const auto& schema = op.schema();
  const auto& args = schema.arguments();
  const size_t first = stack->size() - args.size();
  const auto stream = current_stream(device.index());
  const at::DisableRecordFunctionGuard quiet;  // Note [Virtual device kernels]

  std::vector<Span> spans;
  for (size_t i = 0; i < args.size(); ++i) {
    each_tensor((*stack)[first + i], [&](const at::Tensor& t) {
      if (on_vdev(t)) spans.push_back(span_of(t, is_written(args[i])));
    });
  }
  if (runs_at_call()) {
    run_at_call(schema, stack, stream, std::move(spans), run_now);
    return;
  }
  std::vector<c10::IValue> meta_args;
  torch::jit::Stack meta;
  if (!run_meta(op, *stack, &meta_args, &meta)) {
    run_when_reached(schema, stack, stream, std::move(spans), run_now);
    return;
  }
  std::vector<bool> fresh;
  const auto outputs = device_outputs(schema, *stack, meta_args, meta, device, &fresh, &spans);
  auto host = host_arguments(*stack, args.size());
  std::vector<at::Tensor> targets;
  for (size_t i = 0; i < outputs.size(); ++i) targets.push_back(fresh[i] ? borrowed(outputs[i]) : at::Tensor());

  Work work;
  work.name = op_name(schema);
  work.device = std::move(spans);
  std::vector<std::optional<WeakImpl>> results;
  for (const auto& out : outputs) {
    results.push_back(out.defined() ? std::optional<WeakImpl>(out.getIntrusivePtr()) : std::nullopt);
  }
  work.run = [op, host = std::move(host), targets = std::move(targets), results = std::move(results)]() mutable {
    // A boxed out= kernel returns references into its stack, which it drops
    // before pushing them: the arguments must live elsewhere too.
    const auto arguments = host;
    half::run_kernel(op, &host);  // the CPU's kernel or a switch's, half precision gaps filled
    for (size_t i = 0; i < targets.size() && i < host.size(); ++i) {
      if (!targets[i].defined()) continue;
      const auto result = host[i].toTensor();
      if (result.sizes() != targets[i].sizes()) take_kernels_sizes(op, result, targets[i], *results[i]);
      targets[i].copy_(result);
    }
  };
  torch::jit::drop(*stack, args.size());
  for (const auto& out : outputs) stack->emplace_back(out);
  submit(stream, std::move(work));
}

void enqueue_copy(const at::Tensor& src, const at::Tensor& dst, bool non_blocking) {
  const at::DisableRecordFunctionGuard quiet;  // Note [Virtual device kernels]
  if (non_blocking) overlap_begins();  // it lands later (Note [Ops at their call while nothing overlaps])
  Work work;
  at::Tensor source, target = on_vdev(dst) ? borrowed(dst) : dst;
  if (on_vdev(dst)) {
    auto stream = current_stream(dst.device().index());
    std::optional<c10::Stream> peer_done;  // a peer copy's destination stream, which waits for it
    if (on_vdev(src)) {
      work.name = "copy between vdev tensors";
      if (src.device() != dst.device()) {
        // As CUDA's copy_device_to_device: on the source's current stream, after the work queued on
        // the destination's, and the destination's stream waits for it. (On the destination's own
        // stream the source's block would be used by a stream it was not allocated on, and freeing
        // it would read as a race no GPU has.)
        const auto dst_stream = stream;
        stream = current_stream(src.device().index());
        void* ready = nullptr;
        record_event(&ready, dst_stream);
        block_on_event(ready, stream);
        destroy_event(ready);
        peer_done = dst_stream;
      }
      source = borrowed(src);
      work.device.push_back(span_of(src, false));
    } else if (non_blocking && is_registered(reinterpret_cast<uintptr_t>(src.storage().data_ptr().get()), true)) {
      // From pinned memory the copy reads the host buffer when it runs.
      work.name = "copy from pinned host memory";
      source = borrowed(src);
      work.host.push_back(span_of(src, false));
    } else {
      work.name = "copy from host memory";
      source = src.clone();  // pageable memory is staged at the call
    }
    work.device.push_back(span_of(dst, true));
    work.run = [source, target]() mutable { target.copy_(source); };
    submit(stream, std::move(work));
    if (peer_done) {
      void* done = nullptr;
      record_event(&done, stream);
      block_on_event(done, *peer_done);
      destroy_event(done);
    }
    if (!non_blocking && !on_vdev(src)) synchronize_stream(stream);
    return;
  }
  const auto stream = current_stream(src.device().index());
  const bool pinned = is_registered(reinterpret_cast<uintptr_t>(dst.storage().data_ptr().get()), true);
  work.name = pinned ? "copy to pinned host memory" : "copy to host memory";
  source = borrowed(src);
  target = pinned ? borrowed(dst) : dst;
  work.device.push_back(span_of(src, false));
  if (pinned) work.host.push_back(span_of(dst, true));
  const bool later = non_blocking && pinned;
  if (later) poison(span_of(dst, true));  // what the host sees until the copy lands
  work.run = [source, target]() mutable { target.copy_(source); };
  submit(stream, std::move(work));
  if (!later) synchronize_stream(stream);
}

void enqueue_fill(const at::Tensor& self, const at::Scalar& value) {
  const at::DisableRecordFunctionGuard quiet;
  Work work;
  work.name = "aten::fill_.Scalar";
  work.device.push_back(span_of(self, true));
  work.run = [target = borrowed(self), value]() mutable { target.fill_(value); };
  submit(current_stream(self.device().index()), std::move(work));
}

void set_pending_error_reset_fn(async::PendingErrorReset reset) { g_error_reset.store(reset); }

}  // namespace devparity::vdev::runtime
