#pragma once
/// What the tracer needs from an op's schema, looked up once per op and
/// cached by the schema's name pointer (internal to trace/).

#include "harness/rules/device_rules.h"

#include <ATen/record_function.h>
#include <c10/core/Device.h>

#include <string>

namespace devparity::tracing {

struct OpInfo {
  std::string name;                           // "aten::mul.Tensor"
  std::string base;                           // "aten::mul"
  const c10::FunctionSchema* schema = nullptr;
  int device_index = -1;                      // position of the `device` argument
  bool factory = false;                       // no tensor argument at all
  bool composite = false;                     // checks nothing itself (Note [What the tracer sees])
  bool random = false;
  bool move = false;
  bool syncing = false;
  bool writes = false;                        // writes an argument in place (an out= or `_` op)
  const device_rules::OpRule* rule = nullptr;  // its device rule
  int num_arguments = -1;                     // -1: unknown or variadic
  int num_returns = -1;
};

/// The op `fn` records, or null when it is not a dispatcher op or is one of
/// devparity's own (scopes: a Python callable audit() made an operator).
const OpInfo* op_info(const at::RecordFunction& fn);

}  // namespace devparity::tracing
