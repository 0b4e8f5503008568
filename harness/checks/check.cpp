#include "harness/checks/check.h"

#include <stdexcept>
#include <string>

namespace devparity {

Execution TrialReplay::run(const c10::Device& device, ExecuteOptions options) const {
  options.seed = seed;
  options.autocast = autocast;
  return execute(subject, input, params, device, options);
}

Execution TrialReplay::run_reference(ExecuteOptions options) const {
  if (!reference_device) throw std::logic_error("the reference device is absent");
  options.seed = seed;
  return execute(reference_subject, input, reference_params, *reference_device, options);
}

c10::ScalarType CheckContext::precision() const {
  return autocast && dtype == c10::ScalarType::Float ? *autocast : dtype;
}

const at::Tensor& CheckContext::output() const {
  static const at::Tensor kNone;
  return execution.ran ? execution.output : kNone;
}

const TrialReplay& CheckContext::replay_for(const char* check) const {
  if (replay == nullptr) throw std::logic_error(std::string("the ") + check + " check needs to replay the trial");
  return *replay;
}

}  // namespace devparity
