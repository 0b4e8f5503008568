// Seeded cuda:N-class fault: a stateful transform whose to() moves its state
// to the target's device type without the index (the pattern of a module that
// normalises devices to torch.device(device.type)). Moved to vdev:1, its table
// lands on vdev:0: state_off_device, then a mismatch naming both devices.
// The clean twin moves to the device itself.

#include "harness/subject/register.h"
#include "harness/subject/state.h"
#include "harness/trace/scope.h"
#include "tests/faults/fault_util.h"

namespace devparity::faults {
namespace {

template <bool kFaulty>
class TypeOnlyState final : public TransformState {
 public:
  void to(const c10::Device& device) override {
    TransformState::to(kFaulty ? c10::Device(device.type()) : device);
  }
};

template <bool kFaulty>
class StateTypeTwin final : public Twin<StatefulTransform> {
 public:
  StateTypeTwin() : Twin("state_device_type_move", kFaulty, "to() that drops the device index") {}
  std::unique_ptr<TransformState> make_state(const nlohmann::json&) const override {
    auto state = std::make_unique<TypeOnlyState<kFaulty>>();
    state->register_tensor("gain", at::full({1, 3, 1, 1}, 0.8f));
    return state;
  }
  using StatefulTransform::apply;
  at::Tensor apply(const at::Tensor& x, const nlohmann::json&, TransformState& state) const override {
    DEVPARITY_TRACE_SCOPE("gain");
    return x * state.tensor("gain");
  }
};

using FaultStateDeviceTypeMove = StateTypeTwin<true>;
using CleanStateDeviceTypeMove = StateTypeTwin<false>;

}  // namespace
}  // namespace devparity::faults

DEVPARITY_REGISTER_TRANSFORM(devparity::faults::FaultStateDeviceTypeMove)
DEVPARITY_REGISTER_TRANSFORM(devparity::faults::CleanStateDeviceTypeMove)
