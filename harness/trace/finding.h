#pragma once
/// Placement findings: where a subject left its device, by op and scope.

#include <nlohmann/json_fwd.hpp>

#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

namespace devparity {

/// Finding kinds (the `kind` field of reports).
namespace finding_kind {
/// Host data (or a tensor on another device) met device data in an op whose CUDA kernel
/// refuses the mix (device/device_rules.h; a CPU scalar to `mul` is fine, to `cat` it is not).
constexpr const char* kForeignDeviceInput = "foreign_device_input";
/// The subject returned a tensor that is not on the target device.
constexpr const char* kWrongDeviceOutput = "wrong_device_output";
/// A factory called with no device, whose tensor (host data) met device data or was returned.
constexpr const char* kImplicitDeviceFactory = "implicit_device_factory";
/// A factory or to() given the target's device type without an index: it lands on the current device.
constexpr const char* kDeviceWithoutIndex = "device_without_index";
/// A factory or to() given an explicit device that is not the target: another accelerator,
/// or the CPU for a tensor that then met device data or was returned.
constexpr const char* kForeignDeviceTarget = "foreign_device_target";
/// The host waits for device data inside apply (item(), copies to the CPU, data-dependent shapes).
constexpr const char* kHostSync = "host_sync";
/// Host data moved to the target inside apply, by the subject or by ATen (host indices): a copy
/// on every call. Literals and scalars are exempt.
constexpr const char* kHostToDeviceCopy = "host_to_device_copy";
/// Registered state that is not on the target after the subject was moved there.
constexpr const char* kStateOffDevice = "state_off_device";
/// An op threw LibTorch's "same device" error (in any of its wordings).
constexpr const char* kDeviceMismatchError = "device_mismatch_error";
/// A tensor the subject keeps that is neither a parameter nor a buffer (a
/// TorchScript attribute), met by device data: moving the subject left it where it was made.
constexpr const char* kUnregisteredTensorState = "unregistered_tensor_state";
/// The subject's code branches on the device it runs on (`x.is_cuda`,
/// `x.device.type == "cpu"`): each device runs different code.
constexpr const char* kDeviceDependentCode = "device_dependent_code";
/// Two accesses of the same memory, one a write, on two vdev streams (or a
/// stream and the host) with no event, wait or sync ordering them: the
/// asynchronous virtual device's race detector (device/vdev_async.h).
constexpr const char* kUnsynchronizedAccess = "unsynchronized_access";
/// Code on the cpu-only row (no accelerator runtime) called into it:
/// pinned memory, a stream, torch.cuda's runtime (Python's
/// devparity.without_accelerator(); DALI #2396).
constexpr const char* kAcceleratorRuntime = "accelerator_runtime";
/// A random op drew on the target device, from its own generator: the
/// results differ from the CPU's by design (a note; parity is not compared).
constexpr const char* kDeviceRandom = "device_random";
/// The run check's, not placement's: the output holds NaN or Inf (a warning
/// on every row, even where every device agrees: an all-NaN output is no answer).
constexpr const char* kNonFiniteOutput = "non_finite_output";
}  // namespace finding_kind

/// How bad a finding is: errors fail the placement check; warnings fail it
/// only in strict mode; notes never do (a host transfer the subject declared
/// with DEVPARITY_HOST_HANDOVER, still reported so a reader sees it).
enum class Severity { kWarning, kError, kNote };

/// Note [Making and meeting lines]
/// A stray tensor has two lines: where it was made (a factory with no
/// device, an attribute assigned in `__init__`, a `.cpu()`) and where it met
/// device data (or was moved onto the device, or handed back). A finding's
/// `source` is the line its kind is about (the factory's for
/// implicit_device_factory, the meeting op's for foreign_device_input, the
/// attribute's for unregistered_tensor_state); `made_at` and `met_at` name
/// the other one, so that a reader never has to guess the line to change.

/// One placement problem, deduplicated by everything but `count`.
struct Finding {
  std::string kind;                 ///< a finding_kind constant
  Severity severity = Severity::kError;
  std::string op;                   ///< "aten::index.Tensor"; empty when not an op
  std::vector<std::string> scopes;  ///< enclosing record scopes, outermost first
  std::string message;              ///< one line, human
  std::string device;               ///< device of the offending tensor or argument
  std::vector<int64_t> shape;       ///< shape of the offending tensor, if any
  std::string dtype;                ///< dtype of the offending tensor, if any
  std::string source;               ///< "file.py:42" when the subject has source (TorchScript)
  /// Note [Making and meeting lines]: where the offending tensor was made,
  /// when that is not `source` ("model.py:12", an attribute's assignment).
  std::string made_at;
  /// ... and where it met device data (or was moved there, or returned),
  /// when that is not `source`.
  std::string met_at;
  int64_t count = 1;                ///< occurrences merged into this finding

  /// "jpeg > subsample > blur > gaussian_kernel: aten::arange with no device".
  std::string describe() const;
  /// Identity for deduplication.
  std::string key() const;
  nlohmann::json to_json() const;
};

/// "error", "warning" or "note".
const char* severity_name(Severity severity);
/// The severity severity_name() calls `name`; empty for any other text.
std::optional<Severity> severity_from_name(const std::string& name);

/// Findings with duplicates merged (counts summed), in first-seen order.
class FindingSet {
 public:
  /// Adds a finding, or counts it again if an identical one is present.
  void add(const Finding& finding);
  /// Adds every finding of `other`.
  void merge(const std::vector<Finding>& other);
  /// Removes the findings `drop` selects.
  template <typename Predicate>
  void erase_if(Predicate drop) {
    items_.erase(std::remove_if(items_.begin(), items_.end(), drop), items_.end());
    reindex();
  }
  /// The findings.
  const std::vector<Finding>& items() const { return items_; }

 private:
  void reindex();

  std::vector<Finding> items_;
  // Finding::key() -> position: a traced op that repeats a finding on every
  // call counts it in constant time (a scan formatted every key again).
  std::unordered_map<std::string, size_t> index_;
};

}  // namespace devparity
