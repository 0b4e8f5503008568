#pragma once
/// Error types that decide devparity's exit codes, and the classification of
/// exceptions thrown by subjects.

#include <cstdint>
#include <stdexcept>
#include <string>

namespace devparity {

/// Bad command-line usage (exit code 2). The message names the bad token.
class UsageError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// A bad input file or bad parameters (exit code 2). The message says what and
/// where (file:line:column and field when known).
class InputError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// A field of a JSON object (a case file, or a subject's params) is wrong.
/// `pointer` is the JSON pointer of the field relative to the object the
/// reader was given ("/size/1"); callers that know where the object came from
/// turn it into file:line:column.
class FieldError : public InputError {
 public:
  FieldError(std::string pointer, const std::string& message, bool at_key = false)
      : InputError(message), pointer_(std::move(pointer)), at_key_(at_key) {}
  /// JSON pointer of the offending field, relative to the object read.
  const std::string& pointer() const { return pointer_; }
  /// True when the field's name is the problem (an unknown field), so the
  /// position to report is the key's, not the value's.
  bool at_key() const { return at_key_; }

 private:
  std::string pointer_;
  bool at_key_;
};

/// Thrown by a subject that cannot run a dtype, device or parameter
/// combination by design; the trial is reported as skipped with this reason.
class Unsupported : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// What kind of failure an exception thrown by a subject represents.
enum class FailureKind {
  kUnsupported,     ///< no kernel for this device/dtype ("Could not run 'aten::x' ... 'Meta'")
  kDeviceMismatch,  ///< tensors on different devices met in one op
  kOutOfMemory,     ///< an allocation failed (host or device); the run goes on
  kDeviceError,     ///< the device itself failed (a CUDA error): its context is unusable
  kException,       ///< anything else
};

/// An exception thrown by a subject, classified by its message.
struct ClassifiedError {
  FailureKind kind = FailureKind::kException;
  std::string message;  ///< first line of the original text (backtrace removed)
  std::string op;       ///< "aten::index_select" when the message names one
  /// "file.py:42": the innermost source line of a TorchScript traceback, if any.
  std::string source;
  /// Which of LibTorch's wordings matched ("same_device", "missing_kernel",
  /// see Note [Device error wordings]); empty for other errors.
  std::string wording;
  /// kOutOfMemory: the size the failed allocation asked for; -1 when unknown.
  int64_t requested_bytes = -1;
};

/// Classifies an exception from a subject by the structure of LibTorch's
/// message: its device-check wordings become kDeviceMismatch; the
/// dispatcher's "Could not run 'op' with arguments from the 'B' backend" and
/// meta's "no data" become kUnsupported (a skip on meta).
ClassifiedError classify_exception(const std::exception& e);

/// Same classification from message text alone.
ClassifiedError classify_message(const std::string& text);

/// Name of a FailureKind as written in reports.
const char* failure_kind_name(FailureKind kind);

/// The message of a LibTorch exception without its "Exception raised from"
/// backtrace, trimmed.
std::string torch_message(const std::exception& e);

}  // namespace devparity
