#pragma once
/// One group of the plan (one case variant, input and dtype) run in this
/// process: the input and the parameters are made once on the CPU and
/// replayed on every device; the reference output, and the subject's own run
/// on the reference device, are made on first need.

#include "harness/checks/check.h"
#include "harness/suite/plan.h"

#include <memory>
#include <optional>
#include <string>

namespace devparity {

class GroupRun {
 public:
  /// `interleavings`: ExecuteOptions::interleavings for the subject's runs.
  GroupRun(const TrialGroup& group, bool trace, int interleavings = 1);

  const TrialGroup& group() const { return group_; }
  /// Why the input or the parameters could not be made; empty when they were.
  const std::string& setup_error() const { return setup_error_; }
  /// The input, on the CPU; undefined when the setup failed.
  const at::Tensor& input() const { return input_; }

  /// The reference output's execution; null when the setup failed or the
  /// reference device is absent.
  const Execution* reference();
  /// The subject's own run on the reference device (the reference itself
  /// unless the case names another reference subject).
  const Execution* subject_on_reference();
  /// The subject's run for `trial` (on the reference device, the run above).
  const Execution& run(const Trial& trial, Execution& scratch);

  /// A row for `trial` with its identity, input and parameters filled in.
  TrialResult result_for(const Trial& trial) const;
  /// How checks run the trial again.
  TrialReplay replay() const;

 private:
  Execution execute_on(const Transform& subject, const nlohmann::json& params, const c10::Device& device,
                       bool is_reference = false) const;

  const TrialGroup& group_;
  const bool trace_;
  const int interleavings_;
  const std::shared_ptr<const InputSource> source_;
  std::string setup_error_;
  at::Tensor input_;
  nlohmann::json params_, reference_params_;
  std::optional<Execution> reference_, own_on_reference_;
};

}  // namespace devparity
