#pragma once
/// State for stateful transforms: the tensors a transform keeps between calls
/// (coefficient tables, kernels, learned parameters).
///
/// Note [Registered state]
/// A tensor registered here follows the subject to every device the runner
/// moves it to; a tensor kept anywhere else (a plain member) stays where it
/// was made, which is the real colour-jitter bug on cuda:1. Moving replaces
/// each registered tensor with its copy on the device, because LibTorch 1.13
/// cannot change a tensor's device in place for meta (`set_data`: incompatible
/// tensor type), and apply() must read state through tensor() on every call:
/// a handle cached before the move still points at the old device.

#include "harness/subject/transform.h"
#include "harness/trace/finding.h"
#include "harness/trace/tracer.h"

#include <c10/core/Device.h>

#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace devparity {

/// The registered tensors of one subject instance.
class TransformState {
 public:
  virtual ~TransformState() = default;

  /// Registers `tensor` as `name`, replacing any tensor of that name.
  void register_tensor(const std::string& name, at::Tensor tensor);
  /// The registered tensor `name`; throws std::out_of_range when absent.
  const at::Tensor& tensor(const std::string& name) const;
  /// Every registered tensor, in registration order.
  const std::vector<std::pair<std::string, at::Tensor>>& tensors() const { return tensors_; }

  /// Moves every registered tensor to `device` by replacing it. Subclasses
  /// that keep more (generators, sub-states) override and call this.
  virtual void to(const c10::Device& device);

  /// Adds findings about state the registry does not hold (a TorchScript
  /// module's unregistered tensor attributes, code that branches on the
  /// device), judged for a run on `target`, after the move.
  virtual void audit(const c10::Device& target, std::vector<Finding>& out) const;

  /// Tells the tracer what this state knows (Note [Device data and host
  /// data]): its registered tensors are device data; subclasses add what
  /// their code says (a TorchScript module's device-less factory sites).
  virtual void seed_trace(TraceSeeds& seeds) const;

 private:
  std::vector<std::pair<std::string, at::Tensor>> tensors_;
};

/// A transform with state. The runner makes a fresh state on the CPU for
/// every trial (construction), moves it to the trial's device (`.to()`),
/// verifies where every registered tensor ended up, then calls apply().
class StatefulTransform : public Transform {
 public:
  /// Builds the state for `params` (what sample() returned), on the CPU.
  virtual std::unique_ptr<TransformState> make_state(const nlohmann::json& params) const = 0;
  /// The same for an input of `input_dtype` (subjects whose state depends on
  /// it, such as extra tensor arguments, override this one).
  virtual std::unique_ptr<TransformState> make_state(const nlohmann::json& params,
                                                     c10::ScalarType input_dtype) const;

  /// Runs with `state`, already moved to `input`'s device.
  virtual at::Tensor apply(const at::Tensor& input, const nlohmann::json& params,
                           TransformState& state) const = 0;

  /// Without a runner: makes the state, moves it to the input's device, runs.
  at::Tensor apply(const at::Tensor& input, const nlohmann::json& params) const override;
};

}  // namespace devparity
