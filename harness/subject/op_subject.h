#pragma once
/// Operator subjects: any operator registered with LibTorch's dispatcher that
/// maps an image to an image, audited like a transform; declared as
///   "subject": {"op": "mylib::enhance", "state": "mylib::enhance_state",
///               "dtypes": ["float32"], "differentiable": true, "name": "enhance"}
///
/// `op` has the schema `(Tensor image) -> Tensor`. `state`, when given, is an
/// operator `(str device) -> (Tensor[] registered, str[] registered_names,
/// Tensor[] kept, str[] kept_names)` called once per trial with the trial's
/// device: it makes the subject's state there (Python's devparity.audit
/// copies and moves an nn.Module) and returns what it holds, so that the
/// registered tensors are checked like any state and the tensors kept
/// outside it (plain attributes, which `.to()` leaves behind) are traced as
/// unregistered_tensor_state; an optional fifth result, `str[] kept_made_at`,
/// names the line that assigned each kept tensor. Python operators (torch.library) are how
/// devparity.audit hands a callable to the runner.

#include <optional>
#include <string>

namespace devparity {

class SubjectKindRegistry;

/// Adds the "op" subject kind.
void register_op_subjects(SubjectKindRegistry& registry);

/// Asked when an operator subject's call throws, before the exception goes
/// on: the message to throw instead, or nothing to rethrow as it is. The
/// Python front installs one: a Python kernel's exception leaves the
/// interpreter's error set and carries no message of its own.
using OpErrorMessage = std::optional<std::string> (*)();
void set_op_error_message(OpErrorMessage hook);

/// The hook's message for an exception just caught from an operator, or from
/// a backward that ran one's Python code (a custom autograd Function's
/// backward raised on an engine thread, and the engine set the error again on
/// the caller's); nothing without a hook or a pending error.
std::optional<std::string> op_error_message();

}  // namespace devparity
