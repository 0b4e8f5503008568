#pragma once
/// The tracer: while a Tracer lives, every op dispatched on this thread is
/// observed through a thread-local at::RecordFunction callback, and the
/// top-level ones (called by the subject, not by other ops) are classified
/// into placement findings against the trial's target device.
///
/// Note [What the tracer sees]
/// Only top-level ops are judged: ATen's own ops call others internally, on
/// whatever device they choose, and that is not the subject's doing. Named
/// scopes (TraceScope, TorchScript functions) do not count as ops; they make
/// up each finding's scope chain. When an op throws, the RecordFunction's end
/// callback runs during unwinding; the tracer remembers that op, so a
/// "same device" error can be blamed on it although LibTorch's message does
/// not name it.

#include "harness/trace/finding.h"

#include <c10/core/Device.h>
#include <c10/core/ScalarType.h>

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace devparity {

/// A tensor argument as the classifier sees it (buildable by hand in tests:
/// CPU builds cannot make CUDA tensors).
struct TensorInfo {
  c10::Device device{c10::DeviceType::CPU};
  std::vector<int64_t> shape;
  c10::ScalarType dtype = c10::ScalarType::Float;
};

/// One top-level op call.
struct OpCall {
  std::string op;                     ///< qualified: "aten::to.dtype_layout"
  std::vector<TensorInfo> tensors;    ///< tensor arguments in order, lists flattened
  bool has_device_argument = false;   ///< the schema has a `device` argument
  std::optional<c10::Device> device;  ///< its value when given
  bool factory = false;               ///< the schema takes no tensor at all
};

/// The findings for one top-level op call made while the target is `target`
/// (scopes are filled in by the tracer). Pure: tested directly.
std::vector<Finding> classify_op(const OpCall& call, const c10::Device& target);

/// Names the subject's source line while an op runs ("file.py:42"), for
/// subjects that have source (TorchScript); "" when there is none.
using SourceLocator = std::string (*)();
/// Installs the locator findings are stamped with (process-wide; the
/// TorchScript subject kind installs its own when registered).
void set_source_locator(SourceLocator locator);

/// Observes the ops of this thread (and of the threads LibTorch runs its work
/// on, such as autograd's) while it lives. One at a time per process.
class Tracer {
 public:
  /// Starts observing; findings are judged against `target`.
  explicit Tracer(const c10::Device& target);
  ~Tracer();
  Tracer(const Tracer&) = delete;
  Tracer& operator=(const Tracer&) = delete;

  /// The findings so far, deduplicated.
  std::vector<Finding> findings() const;
  /// The top-level op an exception left, with its scopes and, in `device`,
  /// the devices its tensors were on ("vdev:1 and vdev:0"; op empty if none).
  const Finding& failed_op() const;
  /// Top-level ops observed.
  int64_t ops_traced() const;
  /// Tensor arguments seen on top-level ops (the self-test's evidence).
  int64_t tensors_seen() const;

  /// Checks that callbacks see op inputs. A translation unit compiled without
  /// NDEBUG against a release LibTorch reads RecordFunction with the wrong
  /// layout and loses them silently; this throws std::runtime_error then.
  static void self_test();

  /// Per-tracer bookkeeping (opaque; the callbacks reach it thread-locally).
  struct State;

 private:
  std::unique_ptr<State> state_;
  uint64_t handle_ = 0;
};

}  // namespace devparity
