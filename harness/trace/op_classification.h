#pragma once
/// One op call as the tracer judges it (OpCall, TensorInfo) and the pure
/// classifier that turns it into findings; op_kinds holds what the tracer
/// asks of an op's name. Split from the tracer's callbacks (tracer.cpp),
/// which build the calls and add scopes, sources and origins.

#include "harness/rules/device_rules.h"
#include "harness/trace/finding.h"

#include <c10/core/Device.h>
#include <c10/core/ScalarType.h>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace devparity {

/// A tensor argument as the classifier sees it (buildable by hand in tests:
/// CPU builds cannot make CUDA tensors).
struct TensorInfo {
  c10::Device device{c10::DeviceType::CPU};  ///< where its data is
  std::vector<int64_t> shape;
  c10::ScalarType dtype = c10::ScalarType::Float;
  std::string argument;    ///< the schema's name for it ("self"); "" in hand-built calls
  bool output = false;     ///< the op writes it (in-place self, out=)
  /// Host data although on the target: the cpu row's host-born tensors
  /// (Note [Device data and host data]).
  bool host_data = false;
  /// For host data, how it came to be ("made by aten::arange with no device
  /// at ramp.py:12"); empty when the tracer did not see it made.
  std::string origin;
};

/// One op call as judged.
struct OpCall {
  std::string op;                     ///< the subject's op: "aten::matmul"
  std::string kernel;                 ///< the op judged, when a composite's: "aten::mm"
  std::vector<TensorInfo> tensors;    ///< tensor arguments in schema order, lists flattened
  bool has_device_argument = false;   ///< the schema has a `device` argument
  std::optional<c10::Device> device;  ///< its value when given
  bool factory = false;               ///< the schema takes no tensor at all
  /// The subject's code names the CPU as the device (a host site): the
  /// result is host data even when the target is the CPU.
  bool names_host = false;
  /// The judged op's rule when the caller has it (the tracer caches it per
  /// op); null: looked up by name.
  const device_rules::OpRule* rule = nullptr;
  /// Where an index-less device argument lands: the current device of its
  /// type when the op ran (Note [Current device]); unknown when absent.
  std::optional<c10::Device> current;
  /// The target was inferred from the data, not given: an explicit device
  /// with another index is the code's own choice (a test that uses two
  /// devices on purpose), judged where its tensors meet.
  bool target_inferred = false;
};

/// The findings of one op call made while the target is `target`: device
/// arguments that miss the target, host data meeting device data where CUDA
/// refuses it (or moving it there), host syncs on device data. Scopes,
/// sources and the origins of host data are the tracer's to add. Pure:
/// tested directly.
std::vector<Finding> classify_op(const OpCall& call, const c10::Device& target);

namespace op_kinds {

bool starts_with(std::string_view text, std::string_view prefix);
/// devparity's own ops and audit()'s operators: scopes, not the subject's ops.
bool is_devparity_op(std::string_view name);
/// Ops whose result the host must wait for (values or data-dependent shapes).
bool is_syncing(std::string_view base);
/// Ops that draw from a random generator.
bool is_random(std::string_view base);
/// Ops that move or convert a tensor: judged by where they put it.
bool is_move(std::string_view base);

/// Where a tensor's data is, for the subject's code (Note [Device data and host data]).
enum class Side { kTarget, kHost, kForeign };
Side side_of(const TensorInfo& t, const c10::Device& target);
/// "aten::matmul (at its aten::mm)" when a composite's callee was judged.
std::string op_words(const OpCall& call);
/// Where a move puts its result; unknown when it cannot tell.
std::optional<Side> move_destination(const OpCall& call, const c10::Device& target);
/// A finding of `kind` about `op`, with the device (and the tensor's shape
/// and dtype) it names.
Finding make(const char* kind, Severity severity, const std::string& op, std::string message,
             const c10::Device* device = nullptr, const TensorInfo* tensor = nullptr);
/// classify_op, also saying which tensor a foreign_device_input blames.
std::vector<Finding> classify(const OpCall& call, const c10::Device& target, int* blamed_tensor);

}  // namespace op_kinds
}  // namespace devparity
