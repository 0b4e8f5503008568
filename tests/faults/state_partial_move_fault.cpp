// Seeded placement fault: a stateful transform whose own to() moves only part
// of its registered state (kornia/kornia PR #3825: a container's .to()
// bypassed the augmentation's override and left its RNG state behind). After
// the runner moves it to meta, 'lut' is still on the CPU: state_off_device.
// The clean twin's to() calls the base, which moves everything.

#include "harness/subject/register.h"
#include "harness/subject/state.h"
#include "harness/trace/scope.h"
#include "tests/faults/fault_util.h"

namespace devparity::faults {
namespace {

template <bool kFaulty>
class PartialState final : public TransformState {
 public:
  void to(const c10::Device& device) override {
    if (!kFaulty) {
      TransformState::to(device);
      return;
    }
    // The seeded bug: only the gain is moved.
    register_tensor("gain", tensor("gain").to(device));
  }
};

template <bool kFaulty>
class StateTwin final : public Twin<StatefulTransform> {
 public:
  StateTwin() : Twin("state_partial_move", kFaulty, "to() that moves only part of its state") {}
  std::unique_ptr<TransformState> make_state(const nlohmann::json&) const override {
    auto state = std::make_unique<PartialState<kFaulty>>();
    state->register_tensor("gain", at::full({1}, 0.9f));
    state->register_tensor("lut", at::linspace(0.0, 1.0, 5));
    return state;
  }
  using StatefulTransform::apply;
  at::Tensor apply(const at::Tensor& x, const nlohmann::json&, TransformState& state) const override {
    DEVPARITY_TRACE_SCOPE("tone");
    // Gain, then a mild curve from the look-up table's endpoints.
    const auto& lut = state.tensor("lut");
    return x * state.tensor("gain") * (lut.narrow(0, 4, 1) - lut.narrow(0, 0, 1));
  }
};

using FaultStatePartialMove = StateTwin<true>;
using CleanStatePartialMove = StateTwin<false>;

}  // namespace
}  // namespace devparity::faults

DEVPARITY_REGISTER_TRANSFORM(devparity::faults::FaultStatePartialMove)
DEVPARITY_REGISTER_TRANSFORM(devparity::faults::CleanStatePartialMove)
