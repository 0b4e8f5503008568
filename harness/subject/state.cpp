#include "harness/subject/state.h"

#include <ATen/ATen.h>

#include <stdexcept>

namespace devparity {

void TransformState::register_tensor(const std::string& name, at::Tensor tensor) {
  for (auto& entry : tensors_) {
    if (entry.first == name) {
      entry.second = std::move(tensor);
      return;
    }
  }
  tensors_.emplace_back(name, std::move(tensor));
}

const at::Tensor& TransformState::tensor(const std::string& name) const {
  for (const auto& entry : tensors_) {
    if (entry.first == name) return entry.second;
  }
  throw std::out_of_range("no registered state tensor '" + name + "'");
}

void TransformState::to(const c10::Device& device) {
  // Note [Registered state]: replace, never set_data.
  for (auto& entry : tensors_) entry.second = entry.second.to(device);
}

void TransformState::audit(const c10::Device&, std::vector<Finding>&) const {}

void TransformState::seed_trace(TraceSeeds& seeds) const {
  for (const auto& entry : tensors_) seeds.device_data.push_back(entry.second);
}

std::unique_ptr<TransformState> StatefulTransform::make_state(const nlohmann::json& params,
                                                              c10::ScalarType) const {
  return make_state(params);
}

at::Tensor StatefulTransform::apply(const at::Tensor& input, const nlohmann::json& params) const {
  auto state = make_state(params, input.scalar_type());
  state->to(input.device());
  return apply(input, params, *state);
}

}  // namespace devparity
