#include "harness/rules/op_arguments.h"

#include <ATen/core/function_schema.h>

namespace devparity {
namespace {

void add(const c10::IValue& v, std::string_view name, bool output, std::vector<ArgumentTensor>& out) {
  if (v.isTensor()) {
    if (v.toTensor().defined()) out.push_back({v.toTensor(), name, output});
  } else if (v.isTensorList()) {
    for (const auto& t : v.toTensorVector()) {
      if (t.defined()) out.push_back({t, name, output});
    }
  } else if (v.isList()) {
    for (const auto& e : v.toListRef()) add(e, name, output, out);
  }
}

}  // namespace

std::string op_name(const c10::FunctionSchema& schema) {
  return schema.overload_name().empty() ? schema.name() : schema.name() + "." + schema.overload_name();
}

std::vector<ArgumentTensor> argument_tensors(const c10::FunctionSchema& schema,
                                             c10::ArrayRef<c10::IValue> arguments) {
  std::vector<ArgumentTensor> out;
  const auto& formal = schema.arguments();
  out.reserve(formal.size());
  for (size_t i = 0; i < arguments.size() && i < formal.size(); ++i) {
    const auto* alias = formal[i].alias_info();
    add(arguments[i], formal[i].name(), alias != nullptr && alias->isWrite(), out);
  }
  return out;
}

}  // namespace devparity
