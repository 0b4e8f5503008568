#pragma once
/// A check looks at one trial's outputs and returns a verdict with evidence.
/// Checks are registered by name (checks/registry.h) and switched per case
/// with a tri-state setting: false (off), true (defaults) or an object
/// (explicit settings such as a tolerance).

#include "harness/device/device.h"
#include "harness/model/results.h"
#include "harness/subject/execution.h"
#include "harness/subject/input_source.h"
#include "harness/subject/transform.h"
#include "harness/trace/finding.h"
#include "harness/trace/tracer.h"

#include <ATen/core/Tensor.h>
#include <c10/core/ScalarType.h>

#include <optional>
#include <string>

namespace devparity {

class ArtifactStore;

/// How a check runs the trial's subject, or its reference, again (the
/// gradient and stress checks): everything the trial was made from, and
/// execute() on top of it.
struct TrialReplay {
  const Transform& subject;            ///< the trial's subject
  const nlohmann::json& params;        ///< its sampled parameters
  const nlohmann::json& given;         ///< the case's parameters, before sampling
  const at::Tensor& input;             ///< the trial's input, on the CPU
  const InputSource& input_source;     ///< where the input came from
  uint64_t seed = 0;                   ///< the trial group's seed
  bool trace = true;                   ///< placement tracing is on
  const Transform& reference_subject;  ///< the reference's subject
  const nlohmann::json& reference_params;       ///< the reference's parameters
  std::optional<c10::Device> reference_device;  ///< where the reference runs
  std::optional<c10::ScalarType> autocast;      ///< the rows' autocast dtype (Note [Autocast rows])

  /// The subject on `device`, with the trial's seed and `options` (under the rows' autocast).
  Execution run(const c10::Device& device, ExecuteOptions options = {}) const;
  /// The reference subject on the reference device (outside autocast).
  Execution run_reference(ExecuteOptions options = {}) const;
};

/// What a check sees of one trial: what every check reads is given when it
/// is made, the rest is set by member name.
struct CheckContext {
  CheckContext(const TrialResult& result, const DeviceTarget& target, const Execution& execution,
               const nlohmann::json& setting)
      : result(result), target(target), execution(execution), setting(setting) {}

  const TrialResult& result;     ///< identity of the trial (id, subject, dtype, device)
  const DeviceTarget& target;    ///< the device the subject ran on
  const Execution& execution;    ///< this trial's run: output (on the CPU, or on meta),
                                 ///< where the subject left it, placement findings
  const nlohmann::json& setting; ///< the case's setting for this check: true or an object
  c10::ScalarType dtype = c10::ScalarType::Float;  ///< input dtype
  at::Tensor reference;          ///< reference output, on the CPU (undefined when absent)
  const TrialReplay* replay = nullptr;  ///< null where the trial cannot be replayed (unit tests)
  /// The output must equal the reference exactly by default: the target runs
  /// the reference device's own kernels (the virtual device against the CPU).
  bool expect_exact = false;
  bool is_reference_row = false;  ///< this trial is the reference itself
  /// The run makes warnings fail in every case (`--placement strict`): a
  /// check with a strict mode of its own takes it, whatever the case set.
  bool strict = false;
  /// Where failing checks save evidence (.npy); null when the run keeps none.
  ArtifactStore* artifacts = nullptr;
  /// The reference output's values before rounding (Note [Unrounded
  /// values]); null or unknown where the reference did not note them.
  const Unrounded* reference_unrounded = nullptr;

  /// The row ran under autocast in this dtype (Note [Autocast rows]); none: it did not.
  std::optional<c10::ScalarType> autocast;

  /// The precision the row computed in, which picks its default tolerance: the autocast dtype
  /// for a float32 input under autocast (autocast lowers float32 alone), else the input's.
  c10::ScalarType precision() const;
  /// The trial's output; undefined when the subject did not complete.
  const at::Tensor& output() const;
  /// Placement findings; null when not traced.
  const std::vector<Finding>* findings() const { return execution.traced ? &execution.findings : nullptr; }
  /// Random ops that drew on the trial's device itself (Note [Replayed draws]); null when not traced.
  const std::vector<DeviceDraw>* device_draws() const {
    return execution.traced ? &execution.device_draws : nullptr;
  }
  /// The replay handle; throws std::logic_error naming `check` when absent.
  const TrialReplay& replay_for(const char* check) const;
};

/// Interface of a check.
class Check {
 public:
  virtual ~Check() = default;
  /// Unique name used in case files and reports ([A-Za-z0-9_]).
  virtual std::string name() const = 0;
  /// One line for `devparity list`.
  virtual std::string description() const = 0;
  /// Throws FieldError (pointer relative to the setting) when a case's setting is invalid.
  virtual void validate_setting(const nlohmann::json& setting) const = 0;
  /// The verdict for one trial. May throw; the runner reports that as an error.
  virtual CheckOutcome run(const CheckContext& context) const = 0;
  /// True when the check compares outputs: it runs only when both the
  /// trial's output and the reference output exist, and not on the reference
  /// row. False: it runs on every trial that was attempted.
  virtual bool compares_outputs() const { return true; }
  /// True when the check also has something to say about the reference row
  /// (the gradient check's finite differences).
  virtual bool runs_on_reference_row() const { return false; }
  /// Whether the check has anything to say about `subject`; a case turns on
  /// only the checks that apply (by default: image outputs).
  virtual bool applies_to(const TransformInfo& subject) const { return subject.output == "image"; }
  /// True: on in every case it applies to unless turned off. False: only
  /// where a case asks for it (costly checks such as stress).
  virtual bool on_by_default() const { return true; }
};

}  // namespace devparity
