// The virtual device's judging fallback (Note [Virtual device rules]).
//
// Pieces: the judgement of an op's tensors by CUDA's rules; the run on the
// host (now, or queued on a stream in asynchronous mode) with the CPU's
// kernel, a perturbation switch's or a model of CUDA's arithmetic; views
// rebuilt over the device tensor's storage; and the routes that bring to it
// ops LibTorch would send elsewhere. The judgement is what makes it a
// device: the generic CPU fallback would otherwise run mm, index, cat, where
// and friends across devices without a word.
#include "harness/vdev/fallback.h"

#include "harness/rules/device_rules.h"
#include "harness/rules/op_arguments.h"
#include "harness/vdev/alias.h"
#include "harness/vdev/async.h"
#include "harness/vdev/async_ops.h"
#include "harness/vdev/half_precision.h"
#include "harness/vdev/platform.h"

#include <ATen/ATen.h>
#include <ATen/record_function.h>
#include <torch/library.h>

#include <algorithm>
#include <memory>
#include <optional>
#include <unordered_map>

namespace devparity::vdev {
namespace {

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

}  // namespace

c10::optional<c10::OperatorHandle> aten_op(const std::string& name) {
  const auto dot = name.find('.');
  return c10::Dispatcher::singleton().findSchema(
      {"aten::" + name.substr(0, dot), dot == std::string::npos ? "" : name.substr(dot + 1)});
}

namespace {

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

}  // namespace

void route_to_fallback() {
  register_structured_checks();
  register_host_buffer_composites();
}

TORCH_LIBRARY_IMPL(_, PrivateUse1, m) {
  m.fallback(torch::CppFunction::makeFromBoxedFunction<&fallback>());
}

}  // namespace devparity::vdev
