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

/// Finding kinds (the `kind` field of reports): what each means, its usual
/// severity and the check that reports it are one row each of
/// finding_kinds() (trace/finding_kinds.cpp); these are the names code uses.
namespace finding_kind {
constexpr const char* kForeignDeviceInput = "foreign_device_input";
constexpr const char* kWrongDeviceOutput = "wrong_device_output";
constexpr const char* kImplicitDeviceFactory = "implicit_device_factory";
constexpr const char* kDeviceWithoutIndex = "device_without_index";
constexpr const char* kForeignDeviceTarget = "foreign_device_target";
constexpr const char* kHostSync = "host_sync";
constexpr const char* kHostToDeviceCopy = "host_to_device_copy";
constexpr const char* kStateOffDevice = "state_off_device";
constexpr const char* kDeviceMismatchError = "device_mismatch_error";
constexpr const char* kUnregisteredTensorState = "unregistered_tensor_state";
constexpr const char* kDeviceDependentCode = "device_dependent_code";
constexpr const char* kUnsynchronizedAccess = "unsynchronized_access";
constexpr const char* kAcceleratorRuntime = "accelerator_runtime";
constexpr const char* kDeviceRandom = "device_random";
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
