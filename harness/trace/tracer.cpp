#include "harness/trace/tracer.h"

#include "harness/core/device.h"
#include "harness/core/dtype.h"
#include "harness/trace/scope.h"

#include <ATen/ATen.h>
#include <ATen/core/dispatch/Dispatcher.h>
#include <ATen/record_function.h>
#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <exception>
#include <mutex>
#include <stdexcept>
#include <unordered_map>
#include <unordered_set>

namespace devparity {

namespace {

std::string base_name(const std::string& op) {
  const auto dot = op.find('.');
  return dot == std::string::npos ? op : op.substr(0, dot);
}

// Ops whose result the host must wait for (values or data-dependent shapes).
const std::unordered_set<std::string>& syncing_ops() {
  static const std::unordered_set<std::string> ops = {
      "aten::item",         "aten::_local_scalar_dense", "aten::is_nonzero", "aten::equal",
      "aten::allclose",     "aten::nonzero",             "aten::masked_select",
      "aten::unique_dim",   "aten::_unique2",            "aten::_unique",
      "aten::repeat_interleave", "aten::bincount"};
  return ops;
}

bool is_copy(const std::string& base) {
  return base == "aten::to" || base == "aten::_to_copy" || base == "aten::copy_";
}

Finding make(const char* kind, Severity severity, const std::string& op, std::string message,
             const c10::Device* device = nullptr, const TensorInfo* tensor = nullptr) {
  Finding f;
  f.kind = kind;
  f.severity = severity;
  f.op = op;
  f.message = std::move(message);
  if (tensor != nullptr) {
    f.device = device_label(tensor->device);
    f.shape = tensor->shape;
    f.dtype = dtype_name(tensor->dtype);
  } else if (device != nullptr) {
    f.device = device_label(*device);
  }
  return f;
}

// An explicit device argument that is not the target.
void check_explicit_device(const OpCall& call, const c10::Device& given, const c10::Device& target,
                           std::vector<Finding>& out) {
  if (given == target) return;
  if (given.type() == target.type() && !given.has_index() && target.has_index()) {
    out.push_back(make(finding_kind::kDeviceWithoutIndex, Severity::kError, call.op,
                       fmt::format("{} given device '{}' without an index: it lands on the current "
                                   "device, not {}",
                                   call.op, device_label(given), device_label(target)),
                       &given));
    return;
  }
  if (given.type() == target.type() && given.has_index() == target.has_index() &&
      (!given.has_index() || given.index() == target.index())) {
    return;
  }
  const bool host = given.type() == c10::DeviceType::CPU;
  out.push_back(make(finding_kind::kForeignDeviceTarget, host ? Severity::kWarning : Severity::kError,
                     call.op,
                     fmt::format("{} asked for device {} while the target is {}", call.op,
                                 device_label(given), device_label(target)),
                     &given));
}

void classify_copy(const OpCall& call, const std::string& base, const c10::Device& target,
                   std::vector<Finding>& out) {
  if (call.tensors.empty()) return;
  const TensorInfo* src = &call.tensors[0];
  std::optional<c10::Device> dest = call.device;
  if (base == "aten::copy_") {
    if (call.tensors.size() < 2) return;
    dest = call.tensors[0].device;
    src = &call.tensors[1];
  } else if (!call.has_device_argument && call.tensors.size() >= 2) {
    dest = call.tensors[1].device;  // to(other)
  }
  if (!dest || *dest == src->device) return;  // a dtype cast, not a move
  const bool target_is_host = target.type() == c10::DeviceType::CPU;
  if (dest->type() == c10::DeviceType::CPU && !target_is_host) {
    out.push_back(make(finding_kind::kHostSync, Severity::kWarning, call.op,
                       fmt::format("{} copies a tensor from {} to the CPU inside apply", call.op,
                                   device_label(src->device)),
                       nullptr, src));
    return;
  }
  if (*dest == target && src->device.type() == c10::DeviceType::CPU && !target_is_host) {
    out.push_back(make(finding_kind::kHostToDeviceCopy, Severity::kWarning, call.op,
                       fmt::format("{} copies a CPU tensor to {} inside apply: it was built on the "
                                   "wrong device and moved late",
                                   call.op, device_label(target)),
                       nullptr, src));
    return;
  }
  check_explicit_device(call, *dest, target, out);
}

}  // namespace

std::vector<Finding> classify_op(const OpCall& call, const c10::Device& target) {
  std::vector<Finding> out;
  const std::string base = base_name(call.op);
  if (syncing_ops().count(base) != 0) {
    // On meta these also throw (no data to read), which the run reports.
    out.push_back(make(finding_kind::kHostSync, Severity::kWarning, call.op,
                       fmt::format("{} makes the host wait for the device inside apply", call.op),
                       nullptr, call.tensors.empty() ? nullptr : &call.tensors[0]));
  }
  if (is_copy(base)) {
    classify_copy(call, base, target, out);
    return out;
  }
  if (call.has_device_argument) {
    if (!call.device) {
      if (call.factory) {
        out.push_back(make(finding_kind::kImplicitDeviceFactory, Severity::kError, call.op,
                           fmt::format("{} with no device: the tensor lands on the default device "
                                       "(the CPU), whatever the input's device",
                                       call.op)));
      }
    } else {
      check_explicit_device(call, *call.device, target, out);
    }
  }
  for (const auto& t : call.tensors) {
    if (t.device == target) continue;
    // 0-dim CPU tensors are scalars, which every device accepts.
    if (t.device.type() == c10::DeviceType::CPU && t.shape.empty()) continue;
    out.push_back(make(finding_kind::kForeignDeviceInput, Severity::kError, call.op,
                       fmt::format("{} received a tensor on {} while the target is {}", call.op,
                                   device_label(t.device), device_label(target)),
                       nullptr, &t));
  }
  return out;
}

namespace {

// What the tracer needs from an op's schema, looked up once per op.
struct SchemaInfo {
  int device_index = -1;   // position of the `device` argument
  bool factory = false;    // no tensor argument at all
  int num_arguments = -1;  // -1: unknown or variadic
};

SchemaInfo schema_info(const c10::OperatorName& name, const std::string& qualified) {
  static std::mutex mutex;
  static std::unordered_map<std::string, SchemaInfo> cache;
  std::lock_guard<std::mutex> lock(mutex);
  const auto it = cache.find(qualified);
  if (it != cache.end()) return it->second;
  SchemaInfo info;
  if (const auto handle = c10::Dispatcher::singleton().findSchema(name)) {
    const auto& args = handle->schema().arguments();
    if (!handle->schema().is_vararg()) info.num_arguments = static_cast<int>(args.size());
    bool any_tensor = false;
    for (size_t i = 0; i < args.size(); ++i) {
      if (args[i].name() == "device") info.device_index = static_cast<int>(i);
      if (args[i].type()->str().find("Tensor") != std::string::npos) any_tensor = true;
    }
    info.factory = !any_tensor;
  }
  cache.emplace(qualified, info);
  return info;
}

void collect_tensors(const c10::IValue& v, std::vector<TensorInfo>& out) {
  if (v.isTensor()) {
    const auto& t = v.toTensor();
    if (t.defined()) out.push_back({t.device(), t.sizes().vec(), t.scalar_type()});
  } else if (v.isTensorList()) {
    for (const auto& t : v.toTensorVector()) {
      if (t.defined()) out.push_back({t.device(), t.sizes().vec(), t.scalar_type()});
    }
  } else if (v.isList()) {
    for (const auto& e : v.toListRef()) collect_tensors(e, out);
  }
}

struct Frame {
  std::string name;
  bool op = false;
  bool top = false;
  bool hidden = false;  // a bookkeeping record, left out of scope chains
};

}  // namespace

struct Tracer::State {
  c10::Device target{c10::DeviceType::CPU};
  std::mutex mutex;  // ops may arrive from autograd worker threads too
  FindingSet findings;
  Finding failed;
  int64_t ops = 0;
  int64_t tensors = 0;
};

namespace {

// Note [Tracer threads]
// The callbacks are registered thread-locally, and LibTorch hands them on to
// the threads that run work for this one (the autograd engine runs backward
// for non-CPU devices on per-device threads, with the caller's thread-local
// state). So the active tracer is process-wide and each thread keeps its own
// stack of scopes and ops. One tracer at a time.
std::atomic<Tracer::State*> g_active{nullptr};
std::atomic<SourceLocator> g_locator{nullptr};

std::string current_source() {
  const auto locate = g_locator.load();
  return locate == nullptr ? std::string() : locate();
}

struct ThreadFrames {
  const Tracer::State* owner = nullptr;
  std::vector<Frame> frames;
  int op_depth = 0;
  std::vector<c10::Device> top_devices;  // devices of the running top-level op's tensors

  bool in_scope(const char* name) const {
    for (const auto& f : frames) {
      if (!f.op && f.name == name) return true;
    }
    return false;
  }

  std::vector<std::string> scopes() const {
    std::vector<std::string> out;
    for (const auto& f : frames) {
      // A scripted method records itself twice (the Method, then its function).
      if (!f.op && !f.hidden && (out.empty() || out.back() != f.name)) out.push_back(f.name);
    }
    return out;
  }
};

ThreadFrames& frames_for(const Tracer::State* s) {
  thread_local ThreadFrames t;
  if (t.owner != s) t = ThreadFrames{s, {}, 0, {}};
  return t;
}

std::string qualified_name(const at::RecordFunction& fn) {
  std::string name = fn.name();
  if (const auto op = fn.operator_name()) {
    if (!op->overload_name.empty()) name += "." + op->overload_name;
  }
  return name;
}

std::unique_ptr<at::ObserverContext> on_start(const at::RecordFunction& fn) {
  auto* s = g_active.load();
  if (s == nullptr) return nullptr;
  // Callbacks must never throw into the dispatcher.
  try {
    auto& t = frames_for(s);
    // Only dispatcher ops have an operator name; other FUNCTION-scope records
    // (the autograd engine's "evaluate_function: SumBackward0") are scopes.
    if (fn.scope() != at::RecordScope::FUNCTION || !fn.operator_name()) {
      const std::string name = fn.name();
      const bool hidden = name.rfind("autograd::engine::evaluate_function", 0) == 0;
      t.frames.push_back({name, false, false, hidden});
      return nullptr;
    }
    const bool top = t.op_depth == 0;
    t.frames.push_back({qualified_name(fn), true, top});
    ++t.op_depth;
    if (!top) return nullptr;
    OpCall call;
    call.op = t.frames.back().name;
    const auto info = schema_info(*fn.operator_name(), call.op);
    // The dispatcher records the caller's whole
    // stack; the TorchScript interpreter's holds live values below the op's
    // arguments, so an op's arguments are the last ones.
    auto inputs = fn.inputs();
    if (info.num_arguments >= 0 && inputs.size() > static_cast<size_t>(info.num_arguments)) {
      inputs = inputs.slice(inputs.size() - static_cast<size_t>(info.num_arguments));
    }
    for (const auto& v : inputs) collect_tensors(v, call.tensors);
    t.top_devices.clear();
    for (const auto& tensor : call.tensors) {
      if (std::find(t.top_devices.begin(), t.top_devices.end(), tensor.device) ==
          t.top_devices.end()) {
        t.top_devices.push_back(tensor.device);
      }
    }
    {
      call.factory = info.factory;
      if (info.device_index >= 0 && static_cast<size_t>(info.device_index) < inputs.size()) {
        call.has_device_argument = true;
        const auto& d = inputs[info.device_index];
        if (d.isDevice()) call.device = d.toDevice();
      }
    }
    auto found = classify_op(call, s->target);
    // Inside a declared hand-over the host transfers are the point; they
    // stay visible as notes, and anything else is judged as usual.
    if (!found.empty() && t.in_scope(kHostHandoverScope)) {
      for (auto& f : found) {
        const bool host_target = f.kind == finding_kind::kForeignDeviceTarget && f.device == "cpu";
        if (f.kind == finding_kind::kHostSync || f.kind == finding_kind::kHostToDeviceCopy || host_target) {
          f.severity = Severity::kNote;
          f.message += " (declared host hand-over)";
        }
      }
    }
    const auto scopes = found.empty() ? std::vector<std::string>{} : t.scopes();
    const auto source = found.empty() ? std::string() : current_source();
    std::lock_guard<std::mutex> lock(s->mutex);
    ++s->ops;
    s->tensors += static_cast<int64_t>(call.tensors.size());
    for (auto& f : found) {
      f.scopes = scopes;
      f.source = source;
      s->findings.add(f);
    }
  } catch (...) {
  }
  return nullptr;
}

void on_end(const at::RecordFunction& fn, at::ObserverContext*) {
  auto* s = g_active.load();
  if (s == nullptr) return;
  try {
    auto& t = frames_for(s);
    if (t.frames.empty()) return;
    const Frame frame = t.frames.back();
    t.frames.pop_back();
    if (!frame.op) return;
    --t.op_depth;
    // Note [What the tracer sees]: an end during unwinding means this op threw.
    if (frame.top && std::uncaught_exceptions() > 0) {
      std::lock_guard<std::mutex> lock(s->mutex);
      if (!s->failed.op.empty()) return;
      s->failed.op = frame.name;
      s->failed.scopes = t.scopes();
      s->failed.source = current_source();
      // "vdev:1 and vdev:0": the target first, then the others the op received.
      std::vector<std::string> labels = {device_label(s->target)};
      for (const auto& d : t.top_devices) {
        if (d != s->target) labels.push_back(device_label(d));
      }
      if (labels.size() > 1) s->failed.device = fmt::format("{}", fmt::join(labels, " and "));
    }
  } catch (...) {
  }
}

}  // namespace

void set_source_locator(SourceLocator locator) { g_locator.store(locator); }

Tracer::Tracer(const c10::Device& target) : state_(std::make_unique<State>()) {
  state_->target = target;
  State* expected = nullptr;
  if (!g_active.compare_exchange_strong(expected, state_.get())) {
    throw std::logic_error("a Tracer is already active (one at a time, Note [Tracer threads])");
  }
  handle_ = at::addThreadLocalCallback(
      at::RecordFunctionCallback(on_start, on_end)
          .needsInputs(true)
          .scopes({at::RecordScope::FUNCTION, at::RecordScope::USER_SCOPE,
                   at::RecordScope::TORCHSCRIPT_FUNCTION, at::RecordScope::BACKWARD_FUNCTION}));
}

Tracer::~Tracer() {
  at::removeCallback(handle_);
  g_active.store(nullptr);
}

std::vector<Finding> Tracer::findings() const {
  std::lock_guard<std::mutex> lock(state_->mutex);
  return state_->findings.items();
}

const Finding& Tracer::failed_op() const { return state_->failed; }

int64_t Tracer::ops_traced() const {
  std::lock_guard<std::mutex> lock(state_->mutex);
  return state_->ops;
}

int64_t Tracer::tensors_seen() const {
  std::lock_guard<std::mutex> lock(state_->mutex);
  return state_->tensors;
}

void Tracer::self_test() {
  const auto a = at::ones({2});
  int64_t tensors = 0;
  {
    Tracer tracer(c10::Device(c10::DeviceType::CPU));
    (void)at::add(a, a);
    tensors = tracer.tensors_seen();
  }
  if (tensors < 2) {
    throw std::runtime_error(
        "the placement tracer cannot see op inputs: this build does not match LibTorch's "
        "RecordFunction layout (compile every translation unit with -DNDEBUG against a release "
        "LibTorch)");
  }
}

}  // namespace devparity
