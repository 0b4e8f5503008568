#include "harness/torchscript/script_source.h"

#include <fmt/format.h>
#include <torch/csrc/jit/api/function_impl.h>
#include <torch/csrc/jit/api/module.h>
#include <torch/csrc/jit/ir/ir.h>
#include <torch/csrc/jit/runtime/interpreter.h>

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
    f.op = kind;
    f.scopes = {function};
    f.source = location(node->sourceRange());
    f.message = fmt::format("{} {}: each device runs different code, so no device's result "
                            "vouches for another's",
                            function, what);
    if (seen.insert(f.key()).second) out.push_back(f);
  }
}

}  // namespace

std::string location(const torch::jit::SourceRange& range) {
  auto flc = range.file_line_col();
  if (const auto original = range.findSourceRangeThatGenerated()) {
    if (auto o = original->file_line_col()) flc = o;
  }
  if (!flc || std::get<0>(*flc).empty()) return "";
  return fmt::format("{}:{}", std::get<0>(*flc), std::get<1>(*flc));
}

std::string current_location() {
  // currentCallstack() lists the outermost frame first.
  const auto stack = torch::jit::currentCallstack();
  for (auto it = stack.rbegin(); it != stack.rend(); ++it) {
    auto where = location(it->range);
    if (!where.empty()) return where;
  }
  return "";
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
