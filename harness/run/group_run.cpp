#include "harness/run/group_run.h"

#include "harness/base/dtype.h"
#include "harness/base/error.h"
#include "harness/suite/inputs.h"
#include "harness/subject/transform.h"

#include <ATen/CPUGeneratorImpl.h>

namespace devparity {

GroupRun::GroupRun(const TrialGroup& group, bool trace, int interleavings)
    : group_(group), trace_(trace), interleavings_(interleavings), source_(input_source(group.input)) {
  try {
    input_ = source_->make(group.dtype, group.seed);
    auto gen = at::make_generator<at::CPUGeneratorImpl>(group.seed);
    params_ = group.subject->sample(group.given, input_.sizes(), gen);
    auto ref_gen = at::make_generator<at::CPUGeneratorImpl>(group.seed);
    reference_params_ = group.reference_subject->sample(group.reference_given, input_.sizes(), ref_gen);
  } catch (const std::exception& e) {
    setup_error_ = torch_message(e);
  }
}

Execution GroupRun::execute_on(const Transform& subject, const nlohmann::json& params,
                               const c10::Device& device, bool is_reference) const {
  ExecuteOptions options;
  options.keep_unrounded = is_reference;
  // Note [Autocast rows]: the reference outside autocast, every row under it.
  if (!is_reference) options.autocast = group_.spec->autocast;
  options.trace = trace_;
  options.layout = group_.input.layout;
  options.seed = group_.seed;
  options.interleavings = interleavings_;
  return execute(subject, input_, params, device, options);
}

const Execution* GroupRun::reference() {
  if (!setup_error_.empty() || !group_.reference_device.available()) return nullptr;
  if (!reference_) {
    // The reference keeps what it noted (its values before rounding, its
    // sampling ties), for parity's ties.
    reference_ = execute_on(*group_.reference_subject, reference_params_, *group_.reference_device.device,
                            /*is_reference=*/true);
  }
  return &*reference_;
}

const Execution* GroupRun::subject_on_reference() {
  if (!group_.compares_reference_row()) return reference();
  if (!setup_error_.empty() || !group_.reference_device.available()) return nullptr;
  if (!own_on_reference_) {
    own_on_reference_ = execute_on(*group_.subject, params_, *group_.reference_device.device);
  }
  return &*own_on_reference_;
}

const Execution& GroupRun::run(const Trial& trial, Execution& scratch) {
  if (trial.target.device == group_.reference_device.device) return *subject_on_reference();
  scratch = execute_on(*group_.subject, params_, *trial.target.device);
  return scratch;
}

TrialResult GroupRun::result_for(const Trial& trial) const {
  auto r = result_of(group_, trial);
  if (!params_.is_null()) r.params = params_;
  if (group_.compares_reference_row()) {
    r.reference_params = reference_params_.is_null() ? group_.reference_given : reference_params_;
  }
  return r;
}

TrialReplay GroupRun::replay() const {
  return TrialReplay{*group_.subject,   params_,           group_.given, input_,
                     *source_,          group_.seed,       trace_,       *group_.reference_subject,
                     reference_params_, group_.reference_device.device, group_.spec->autocast};
}

}  // namespace devparity
