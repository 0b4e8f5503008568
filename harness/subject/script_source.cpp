#include "harness/subject/script_source.h"

#include "harness/base/text.h"

#include <fmt/format.h>
#include <torch/csrc/jit/ir/constants.h>
#include <torch/csrc/jit/api/function_impl.h>
#include <torch/csrc/jit/api/module.h>
#include <torch/csrc/jit/ir/ir.h>
#include <torch/csrc/jit/runtime/interpreter.h>

#include <optional>
#include <set>
#include <tuple>

namespace devparity::torchscript {
namespace {

// Ops that answer "which device is this?" with a boolean.
const std::set<std::string>& device_predicates() {
  static const std::set<std::string> names = {
      "prim::is_cuda", "prim::is_cpu",    "prim::is_xpu", "prim::is_meta", "prim::is_mps",
      "prim::is_ipu",  "prim::is_vulkan", "prim::is_hpu", "prim::is_ort",  "prim::is_mlc"};
  return names;
}

// Whether `value` is a tensor's device or something derived from it (its
// type, its name).
bool from_device(const torch::jit::Value* value, int depth = 0) {
  if (depth > 4) return false;
  const auto* node = value->node();
  const std::string kind = node->kind().toQualString();
  if (kind == "prim::device") return true;
  if (kind == "prim::type" || kind == "aten::str" || kind == "prim::str") {
    for (const auto* input : node->inputs()) {
      if (from_device(input, depth + 1)) return true;
    }
  }
  return false;
}

// A node's source line, or, for nodes the archive kept none for (an
// attribute read such as `img.is_cuda`), the line of the code that uses its
// result, then of the block around it.
std::string node_location(const torch::jit::Node* node) {
  auto where = location(node->sourceRange());
  for (const auto* output : node->outputs()) {
    for (const auto& use : output->uses()) {
      if (where.empty()) where = location(use.user->sourceRange());
    }
  }
  for (const auto* block = node->owningBlock(); where.empty() && block != nullptr && block->owningNode() != nullptr;
       block = block->owningNode()->owningBlock()) {
    where = location(block->owningNode()->sourceRange());
  }
  return where;
}

void scan_block(const torch::jit::Block* block, const std::string& function,
                std::vector<Finding>& out, std::set<std::string>& seen) {
  for (const auto* node : block->nodes()) {
    for (const auto* inner : node->blocks()) scan_block(inner, function, out, seen);
    const std::string kind = node->kind().toQualString();
    std::string what;
    if (device_predicates().count(kind) != 0) {
      what = fmt::format("{} asks which device a tensor is on", kind);
    } else if (kind == "aten::eq" || kind == "aten::ne") {
      int device_operands = 0;
      for (const auto* input : node->inputs()) device_operands += from_device(input) ? 1 : 0;
      // Two tensors' devices compared is a consistency guard, not a branch
      // on which device this is.
      if (device_operands == 1) what = "compares a tensor's device with a fixed value";
    }
    if (what.empty()) continue;
    Finding f;
    f.kind = finding_kind::kDeviceDependentCode;
    f.severity = Severity::kWarning;
    f.op = kind;
    f.scopes = {function};
    f.source = node_location(node);
    f.message = fmt::format("{} {}: each device runs different code, and no simulated device can "
                            "vouch for the branch it does not take (a warning; a case makes it an "
                            "error with placement's \"severity\")",
                            function, what);
    if (seen.insert(f.key()).second) out.push_back(f);
  }
}

}  // namespace

namespace {

std::optional<std::tuple<std::string, size_t, size_t>> file_line_col(const torch::jit::SourceRange& range) {
  auto flc = range.file_line_col();
  if (const auto original = range.findSourceRangeThatGenerated()) {
    if (auto o = original->file_line_col()) flc = o;
  }
  if (!flc || std::get<0>(*flc).empty()) return std::nullopt;
  return std::make_tuple(std::get<0>(*flc), std::get<1>(*flc), std::get<2>(*flc));
}

// A device the code spells out: a constant, or torch.device("...") of one.
std::optional<c10::Device> constant_device(const torch::jit::Value* value) {
  if (const auto v = torch::jit::toIValue(value)) {
    if (v->isDevice()) return v->toDevice();
    if (v->isString()) return c10::Device(v->toStringRef());
    return std::nullopt;
  }
  const auto* node = value->node();
  if (std::string(node->kind().toQualString()) == "aten::device" && node->inputs().size() == 1) {
    if (const auto name = torch::jit::toIValue(node->inputs()[0]); name && name->isString()) {
      return c10::Device(name->toStringRef());
    }
  }
  return std::nullopt;
}

// What a node does with devices, for the scan.
struct DeviceUse {
  bool factory = false;     // a `device` argument and no tensor argument
  bool move = false;        // to(..., device, ...) or cpu()
  bool deviceless = false;  // a factory with its device left out
  bool on_host = false;     // the device is the CPU, spelled out
};

DeviceUse device_use(const torch::jit::Node* node) {
  DeviceUse use;
  const std::string kind = node->kind().toQualString();
  if (kind == "aten::cpu") {
    use.move = use.on_host = true;
    return use;
  }
  const auto* schema = node->maybeSchema();
  if (schema == nullptr) return use;
  const auto& args = schema->arguments();
  int device = -1;
  bool tensors = false;
  for (size_t i = 0; i < args.size(); ++i) {
    if (args[i].name() == "device") device = static_cast<int>(i);
    if (args[i].type()->str().find("Tensor") != std::string::npos) tensors = true;
  }
  if (device < 0 || static_cast<size_t>(device) >= node->inputs().size()) return use;
  use.factory = !tensors;
  use.move = tensors && (kind == "aten::to" || kind == "aten::_to_copy");
  if (!use.factory && !use.move) return use;
  const auto* value = node->inputs()[device];
  const auto none = torch::jit::toIValue(value);
  use.deviceless = use.factory && none && none->isNone();
  try {
    const auto named = constant_device(value);
    use.on_host = named && named->is_cpu();
  } catch (const std::exception&) {
  }
  return use;
}

void scan_factories(const torch::jit::Block* block, FactorySites& out) {
  for (const auto* node : block->nodes()) {
    for (const auto* inner : node->blocks()) scan_factories(inner, out);
    const auto use = device_use(node);
    if (!use.factory && !use.move) continue;
    const auto where = site(node->sourceRange());
    if (where.empty()) continue;
    if (use.factory) out.all.insert(where);
    if (use.deviceless) out.deviceless.insert(where);
    if (use.on_host) out.on_host.insert(where);
  }
}

}  // namespace

std::string location(const torch::jit::SourceRange& range) {
  const auto flc = file_line_col(range);
  return flc ? fmt::format("{}:{}", std::get<0>(*flc), std::get<1>(*flc)) : "";
}

std::string site(const torch::jit::SourceRange& range) {
  const auto flc = file_line_col(range);
  return flc ? fmt::format("{}:{}:{}", std::get<0>(*flc), std::get<1>(*flc), std::get<2>(*flc)) : "";
}

SourcePoint current_location() {
  // currentCallstack() lists the innermost frame first (it reverses the
  // interpreter's frames): walking it from the end would name the call in
  // forward for every op of every helper.
  const auto stack = torch::jit::currentCallstack();
  SourcePoint out;
  for (auto it = stack.begin(); it != stack.end(); ++it) {
    const auto flc = file_line_col(it->range);
    if (!flc) continue;
    if (out.site.empty()) out.site = fmt::format("{}:{}:{}", std::get<0>(*flc), std::get<1>(*flc), std::get<2>(*flc));
    if (!inside_torch(std::get<0>(*flc))) {
      out.user = fmt::format("{}:{}", std::get<0>(*flc), std::get<1>(*flc));
      break;
    }
  }
  return out;
}

FactorySites factory_sites(const torch::jit::Module& module) {
  FactorySites out;
  const auto unit = module._ivalue()->compilation_unit();
  for (auto* function : unit->get_functions()) {
    auto* graph_function = torch::jit::tryToGraphFunction(*function);
    if (graph_function == nullptr) continue;
    scan_factories(graph_function->graph()->block(), out);
  }
  return out;
}

std::vector<Finding> device_dependent_code(const torch::jit::Module& module) {
  std::vector<Finding> out;
  std::set<std::string> seen;
  const auto unit = module._ivalue()->compilation_unit();
  for (auto* function : unit->get_functions()) {
    auto* graph_function = torch::jit::tryToGraphFunction(*function);
    if (graph_function == nullptr) continue;
    scan_block(graph_function->graph()->block(), function->name(), out, seen);
  }
  return out;
}

}  // namespace devparity::torchscript
