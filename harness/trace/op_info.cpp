#include "harness/trace/op_info.h"

#include "harness/trace/op_classification.h"

#include <ATen/core/dispatch/Dispatcher.h>

#include <memory>
#include <mutex>
#include <unordered_map>
#include <vector>

namespace devparity::tracing {

using op_kinds::is_devparity_op;
using op_kinds::is_move;
using op_kinds::is_random;
using op_kinds::is_syncing;

namespace {

OpInfo* make_info(const c10::OperatorName& name) {
  auto info = std::make_unique<OpInfo>();
  info->name = name.name + (name.overload_name.empty() ? "" : "." + name.overload_name);
  info->base = name.name;
  if (const auto handle = c10::Dispatcher::singleton().findSchema(name)) {
    const auto& schema = handle->schema();
    info->schema = &schema;
    const auto& args = schema.arguments();
    if (!schema.is_vararg()) info->num_arguments = static_cast<int>(args.size());
    if (!schema.is_varret()) info->num_returns = static_cast<int>(schema.returns().size());
    bool any_tensor = false;
    for (size_t i = 0; i < args.size(); ++i) {
      if (args[i].name() == "device") info->device_index = static_cast<int>(i);
      if (args[i].type()->str().find("Tensor") != std::string::npos) any_tensor = true;
      if (args[i].alias_info() != nullptr && args[i].alias_info()->isWrite()) info->writes = true;
    }
    // In-place ops that change a tensor's metadata, not its data (torch.tensor's own detach_).
    for (const char* metadata : {"aten::detach_", "aten::requires_grad_", "aten::squeeze_", "aten::unsqueeze_",
                                 "aten::transpose_", "aten::t_", "aten::as_strided_", "aten::swapdims_",
                                 "aten::swapaxes_", "aten::rename_"}) {
      if (info->base == metadata) info->writes = false;
    }
    info->factory = !any_tensor;
  }
  info->rule = &device_rules::rule_for(info->name);
  info->composite = info->rule->kind == device_rules::Kind::kComposite;
  // A custom operator with no kernel but a composite one (a Python callable
  // that devparity.audit made an operator) checks nothing itself either.
  if (!info->rule->known) {
    if (const auto handle = c10::Dispatcher::singleton().findSchema(name)) {
      info->composite = handle->hasKernelForDispatchKey(c10::DispatchKey::CompositeImplicitAutograd) &&
                        !handle->hasKernelForDispatchKey(c10::DispatchKey::CPU);
    }
  }
  info->random = is_random(info->base);
  info->syncing = is_syncing(info->base);
  info->move = is_move(info->base) || info->base == "aten::copy_";
  static std::mutex mutex;
  static std::vector<std::unique_ptr<OpInfo>> all;  // alive for the process
  std::lock_guard<std::mutex> lock(mutex);
  all.push_back(std::move(info));
  return all.back().get();
}

}  // namespace

// Op metadata by the schema's name pointer, which is stable and distinct
// per overload (RecordFunction::name() of a dispatcher op).
const OpInfo* op_info(const at::RecordFunction& fn) {
  thread_local std::unordered_map<const char*, const OpInfo*> cache;
  const char* key = fn.name();
  const auto it = cache.find(key);
  if (it != cache.end()) return it->second;
  const auto name = fn.operator_name();
  if (!name) return nullptr;  // not a dispatcher op: its name is not stable either
  // devparity's own ops, and the operator devparity.audit() makes of a
  // Python callable, are scopes: the callable's ops are the subject's.
  if (is_devparity_op(name->name)) return nullptr;
  static std::mutex mutex;
  static std::unordered_map<std::string, OpInfo*> by_name;
  OpInfo* info = nullptr;
  {
    std::lock_guard<std::mutex> lock(mutex);
    const auto qualified = name->name + "." + name->overload_name;
    auto& slot = by_name[qualified];
    if (slot == nullptr) slot = make_info(*name);
    info = slot;
  }
  cache.emplace(key, info);
  return info;
}

}  // namespace devparity::tracing
