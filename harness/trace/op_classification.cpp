// Op classification: the findings one op call makes from its tensors' sides
// and its device arguments (classify_op; pure, tested directly), and what the
// tracer asks of an op's name (syncing, random, a move).
#include "harness/trace/op_classification.h"

#include "harness/base/dtype.h"
#include "harness/device/device.h"
#include "harness/rules/op_arguments.h"

#include <fmt/format.h>

#include <unordered_set>

namespace devparity {

namespace op_kinds {

std::string_view base_name(std::string_view op) { return op.substr(0, op.find('.')); }

bool starts_with(std::string_view text, std::string_view prefix) { return text.substr(0, prefix.size()) == prefix; }

bool is_devparity_op(std::string_view name) {
  return starts_with(name, "devparity::") || starts_with(name, "devparity_py::");
}

// Ops whose result the host must wait for (values or data-dependent shapes).
bool is_syncing(std::string_view base) {
  static const std::unordered_set<std::string_view> ops = {
      "aten::item",         "aten::_local_scalar_dense", "aten::is_nonzero", "aten::equal",
      "aten::allclose",     "aten::nonzero",             "aten::masked_select",
      "aten::unique_dim",   "aten::_unique2",            "aten::_unique",
      "aten::repeat_interleave", "aten::bincount"};
  return ops.count(base) != 0;
}

// Ops that draw from a random generator.
bool is_random(std::string_view base) {
  static const std::unordered_set<std::string_view> ops = {
      "aten::uniform_",     "aten::normal_",      "aten::normal",        "aten::bernoulli_",
      "aten::bernoulli",    "aten::random_",      "aten::exponential_",  "aten::cauchy_",
      "aten::log_normal_",  "aten::geometric_",   "aten::multinomial",   "aten::randperm",
      "aten::poisson",      "aten::binomial",     "aten::_standard_gamma", "aten::_sample_dirichlet",
      "aten::native_dropout", "aten::_fused_dropout", "aten::rrelu_with_noise", "aten::rand",
      "aten::randn",        "aten::randint",      "aten::rand_like",     "aten::randn_like",
      "aten::randint_like"};
  return ops.count(base) != 0;
}

// Ops that move or convert a tensor: judged by where they put it.
bool is_move(std::string_view base) {
  return base == "aten::to" || base == "aten::_to_copy" || base == "aten::type_as";
}

Side side_of(const TensorInfo& t, const c10::Device& target) {
  if (t.device == target) return t.host_data ? Side::kHost : Side::kTarget;
  return t.device.is_cpu() ? Side::kHost : Side::kForeign;
}

Finding make(const char* kind, Severity severity, const std::string& op, std::string message,
             const c10::Device* device, const TensorInfo* tensor) {
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

// "aten::matmul (at its aten::mm)" when a composite's callee was judged.
std::string op_words(const OpCall& call) {
  if (call.kernel.empty() || call.kernel == call.op) return call.op;
  return fmt::format("{} (at its {})", call.op, call.kernel);
}

// Where an index-less device lands (Note [Current device]): its type's
// current device when known.
std::optional<c10::Device> landing(const OpCall& call, const c10::Device& given) {
  if (given.has_index()) return given;
  if (call.current && call.current->type() == given.type()) return call.current;
  return std::nullopt;
}

// A device without an index (Note [Current device]): where it lands against
// the target, or, with an inferred target, against the op's own data (a
// factory lands where the code's guard put the current device).
void check_indexless(const OpCall& call, const c10::Device& given, const c10::Device& target,
                     std::vector<Finding>& out) {
  const auto lands = landing(call, given);
  std::optional<c10::Device> meant;
  if (!call.target_inferred) {
    if (target.has_index()) meant = target;
  } else {
    for (const auto& t : call.tensors) {
      if (t.device.type() == given.type() && t.device.has_index()) {
        meant = t.device;
        break;
      }
    }
    if (!lands) return;
  }
  if (!meant || (lands && *lands == *meant)) return;
  out.push_back(make(finding_kind::kDeviceWithoutIndex, Severity::kError, call.op,
                     fmt::format("{} given device '{}' without an index: it lands on the current device{}, not {}",
                                 call.op, device_label(given), lands ? ", " + device_label(*lands) : "",
                                 device_label(*meant)),
                     &given));
}

// An explicit device argument that is not the target. A CPU one is host
// work, judged where its result meets device data; a meta one holds no data.
void check_explicit_device(const OpCall& call, const c10::Device& given, const c10::Device& target,
                           std::vector<Finding>& out) {
  // Meta holds no data: fake tensors (torch.library.opcheck, AOT autograd) compute shapes there.
  if (given == target || given.is_cpu() || given.is_meta()) return;
  if (given.type() == target.type() && !given.has_index()) {
    check_indexless(call, given, target, out);
    return;
  }
  if (given.type() == target.type() && given.has_index() == target.has_index() &&
      (!given.has_index() || given.index() == target.index() || call.target_inferred)) {
    return;
  }
  out.push_back(make(finding_kind::kForeignDeviceTarget, Severity::kError, call.op,
                     fmt::format("{} asked for device {} while the target is {}", call.op,
                                 device_label(given), device_label(target)),
                     &given));
}

const TensorInfo* argument(const OpCall& call, const char* name, size_t fallback_index) {
  for (const auto& t : call.tensors) {
    if (t.argument == name) return &t;
  }
  return fallback_index < call.tensors.size() && call.tensors[fallback_index].argument.empty()
             ? &call.tensors[fallback_index]
             : nullptr;
}

// Where a move puts its result: the explicit device, the other tensor's
// device (to(other), type_as), or where it was (a dtype cast).
std::optional<Side> move_destination(const OpCall& call, const c10::Device& target) {
  if (call.names_host) return Side::kHost;
  if (call.has_device_argument) {
    if (!call.device) return std::nullopt;
    if (*call.device == target) return Side::kTarget;
    if (call.device->type() == target.type() && !call.device->has_index()) {
      const auto lands = landing(call, *call.device);
      return !lands || !target.has_index() || *lands == target ? Side::kTarget : Side::kForeign;
    }
    return call.device->is_cpu() ? Side::kHost : Side::kForeign;
  }
  if (const auto* other = argument(call, "other", 1)) return side_of(*other, target);
  return std::nullopt;
}

void classify_move(const OpCall& call, std::string_view base, const c10::Device& target,
                   std::vector<Finding>& out, int* blamed_tensor) {
  const bool copy_into = base == "aten::copy_";
  const TensorInfo* src = argument(call, copy_into ? "src" : "self", copy_into ? 1 : 0);
  if (src == nullptr) return;
  std::optional<Side> dest;
  if (copy_into) {
    if (const auto* self = argument(call, "self", 0)) dest = side_of(*self, target);
  } else {
    if (call.device) check_explicit_device(call, *call.device, target, out);
    if (!out.empty()) return;  // the destination itself is the problem
    dest = move_destination(call, target);
  }
  const auto from = side_of(*src, target);
  if (!dest || *dest == from) return;
  if (from == Side::kTarget && *dest == Side::kHost) {
    out.push_back(make(finding_kind::kHostSync, Severity::kWarning, call.op,
                       fmt::format("{} copies device data to the host inside the subject: the host "
                                   "waits for the device",
                                   call.op),
                       nullptr, src));
  } else if (from == Side::kHost && *dest == Side::kTarget && !src->shape.empty()) {
    if (blamed_tensor != nullptr) *blamed_tensor = static_cast<int>(src - call.tensors.data());
    out.push_back(make(finding_kind::kHostToDeviceCopy, Severity::kWarning, call.op,
                       fmt::format("{} copies host data to {} inside the subject: a copy on every "
                                   "call (make it on the device)",
                                   call.op, device_label(target)),
                       nullptr, src));
  }
}


// classify_op, also saying which tensor a foreign_device_input blames.
std::vector<Finding> classify(const OpCall& call, const c10::Device& target, int* blamed_tensor) {
  std::vector<Finding> out;
  const std::string& judged = call.kernel.empty() ? call.op : call.kernel;
  const auto base = base_name(judged);
  if (is_move(base) || base == "aten::copy_") {
    classify_move(call, base, target, out, blamed_tensor);
    return out;
  }
  if (call.has_device_argument && call.device) check_explicit_device(call, *call.device, target, out);
  if ((is_syncing(base) || is_syncing(base_name(call.op))) && !call.tensors.empty() &&
      side_of(call.tensors[0], target) == Side::kTarget) {
    out.push_back(make(finding_kind::kHostSync, Severity::kWarning, call.op,
                       fmt::format("{} makes the host wait for the device inside the subject", call.op),
                       nullptr, &call.tensors[0]));
  }
  if (call.tensors.size() < 2) return out;

  // Note [Device rule sources]: the op's own rule, on where each tensor's data is.
  const device_rules::OpRule& found = call.rule != nullptr ? *call.rule : device_rules::rule_for(judged);
  device_rules::OpRule lenient;  // a composite judged here: as CUDA judges an unknown kernel
  const device_rules::OpRule& rule = found.kind == device_rules::Kind::kComposite ? lenient : found;
  std::vector<device_rules::Operand> operands;
  operands.reserve(call.tensors.size());
  const auto target_label = device_label(target);
  for (const auto& t : call.tensors) {
    const auto side = side_of(t, target);
    device_rules::Operand o;
    o.argument = t.argument;
    o.host = side == Side::kHost;
    o.place = side == Side::kTarget ? 1 : side == Side::kHost ? 0
                                         : 2 + static_cast<int>(t.device.type()) * 256 + t.device.index() + 1;
    o.label = side == Side::kTarget ? target_label : side == Side::kHost ? "cpu" : device_label(t.device);
    o.dim = static_cast<int64_t>(t.shape.size());
    o.output = t.output;
    operands.push_back(std::move(o));
  }
  const auto verdict = device_rules::judge(rule, operands);
  if (!verdict.accepted) {
    // Blame the tensor that is not device data.
    int blamed = verdict.offender;
    if (blamed < 0 || side_of(call.tensors[blamed], target) == Side::kTarget) {
      for (size_t i = 0; i < call.tensors.size(); ++i) {
        if (side_of(call.tensors[i], target) != Side::kTarget) {
          blamed = static_cast<int>(i);
          break;
        }
      }
    }
    if (blamed < 0) blamed = 0;
    if (blamed_tensor != nullptr) *blamed_tensor = blamed;
    const auto& t = call.tensors[blamed];
    const bool host = side_of(t, target) == Side::kHost;
    out.push_back(make(
        finding_kind::kForeignDeviceInput, Severity::kError, call.op,
        host ? fmt::format("{} mixes device data with host data ({}); on an accelerator it fails: {}",
                           op_words(call),
                           t.origin.empty() ? "a tensor kept outside the subject's input and registered "
                                              "state, such as a plain member"
                                            : t.origin,
                           verdict.message)
             : fmt::format("{} received a tensor on {} while the target is {}: {}", op_words(call),
                           device_label(t.device), target_label, verdict.message),
        nullptr, &t));
    return out;
  }
  for (const int i : verdict.moved) {
    const auto& t = call.tensors[i];
    if (side_of(t, target) != Side::kHost || t.shape.empty()) continue;
    if (blamed_tensor != nullptr && *blamed_tensor < 0) *blamed_tensor = i;
    out.push_back(make(finding_kind::kHostToDeviceCopy, Severity::kWarning, call.op,
                       fmt::format("{} takes host data as '{}', which ATen copies to {} on every call "
                                   "(make it on the device)",
                                   op_words(call), t.argument, target_label),
                       nullptr, &t));
  }
  return out;
}

}  // namespace op_kinds

std::vector<Finding> classify_op(const OpCall& call, const c10::Device& target) {
  return op_kinds::classify(call, target, nullptr);
}

}  // namespace devparity
