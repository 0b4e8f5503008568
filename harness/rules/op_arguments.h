#pragma once
/// The tensors an op receives, read from its schema and its boxed arguments:
/// what both the virtual device's fallback and the tracer judge.

#include <ATen/core/Tensor.h>
#include <ATen/core/ivalue.h>
#include <c10/util/ArrayRef.h>

#include <string>
#include <string_view>
#include <vector>

namespace c10 {
struct FunctionSchema;
}  // namespace c10

namespace devparity {

/// One defined tensor among an op's arguments.
struct ArgumentTensor {
  at::Tensor tensor;
  std::string_view argument;  ///< the schema's name ("self", "indices", "out"); lives as long as the schema
  bool output = false;   ///< the op writes it (in-place self, out=)
};

/// "aten::add.Tensor": the schema's name and overload, as rules and switches name ops.
std::string op_name(const c10::FunctionSchema& schema);

/// The defined tensors of `arguments` (the op's arguments, in schema order),
/// tensor lists and lists of optional tensors flattened, in order.
std::vector<ArgumentTensor> argument_tensors(const c10::FunctionSchema& schema,
                                             c10::ArrayRef<c10::IValue> arguments);

}  // namespace devparity
