#pragma once
/// The one way to run a subject on a device: execute().
///
/// The runner's trials, the gradient and stress checks, `devparity apply`,
/// the benchmarks and the tests' helpers all go through it, so that a
/// stateful subject always gets a fresh state moved to the device, random
/// ops on the device always replay the same draws (Note [Replayed draws]),
/// and placement is judged the same way everywhere.

#include "harness/base/error.h"
#include "harness/base/rounding.h"
#include "harness/trace/finding.h"
#include "harness/trace/tracer.h"

#include <ATen/core/Tensor.h>
#include <c10/core/Device.h>
#include <c10/core/ScalarType.h>
#include <nlohmann/json_fwd.hpp>

#include <cstdint>
#include <exception>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace devparity {

class Transform;

/// How execute() runs a subject.
struct ExecuteOptions {
  bool trace = false;   ///< trace apply() for placement findings
  std::string layout;   ///< memory layout of the input on the device (apply_layout)
  uint64_t seed = 0;    ///< the trial group's seed: draws made on the device replay from it
  /// Gradients: when set, the input requires grad, `loss(output)` is
  /// back-propagated after apply() and the input's gradient comes home.
  std::function<at::Tensor(const at::Tensor&)> loss;
  bool trace_backward = false;  ///< trace the backward pass (scope "backward")
  /// Leave the output where the subject put it instead of bringing it to the
  /// CPU (benchmarks, which time the device alone).
  bool keep_on_device = false;
  /// Run on a copy of the input (the default: a subject that writes into its
  /// input must not change the next device's). Off where the input is
  /// already on the device and made for this call alone (benchmarks).
  bool copy_input = true;
  /// Start the process's generators from `seed` (Note [Replayed draws]).
  /// Off for concurrent calls (the stress check): the generators are global.
  bool replay_draws = true;
  /// Keep the values an integer output had before rounding, where the
  /// subject notes them (Note [Unrounded values]): the reference's run.
  bool keep_unrounded = false;
  /// On the asynchronous vdev: the interleavings the subject runs under
  /// (Note [Interleaving sweep]); 1, the trial's own interleaving alone.
  int interleavings = 1;
  /// Which of them this run draws: 0 is the trial's own.
  int interleaving = 0;
  /// Run apply() under the device type's autocast in this dtype (Note [Autocast rows]); a
  /// device type without autocast here does not run (an unsupported error saying why).
  std::optional<c10::ScalarType> autocast;
};

/// One run of a subject on one device.
struct Execution {
  bool ran = false;              ///< apply() (and backward, when asked) completed
  at::Tensor output;             ///< on the CPU, or the meta tensor itself
  c10::Device output_device{c10::DeviceType::CPU};  ///< where the subject left it
  ClassifiedError error;         ///< why it did not run
  std::exception_ptr thrown;     ///< what it threw, as thrown
  double duration_ms = 0.0;      ///< apply() alone, synchronised on CUDA
  bool traced = false;           ///< findings and ops_traced are meaningful
  std::vector<Finding> findings; ///< placement findings of apply() and of the state
  int64_t ops_traced = 0;
  std::vector<DeviceDraw> device_draws;  ///< random ops that drew on the device itself
  /// On the asynchronous vdev: the seed of the interleaving its streams ran
  /// in (replays the run), and that there was one.
  bool interleaved = false;
  uint64_t interleaving_seed = 0;
  /// Under perturbed numerics (Note [Perturbed numerics]): the switches on,
  /// and how many op calls each gave other values than the CPU's kernel.
  std::vector<std::string> perturbation;
  std::map<std::string, int64_t> perturbed;
  /// On vdev under CUDA's arithmetic (Note [CUDA's arithmetic on vdev]): how
  /// many op calls each model gave other values than the CPU's kernel.
  std::map<std::string, int64_t> cuda_moved;
  /// Whether vdev ran other arithmetic than the CPU's kernels (a switch on, or a model moved values).
  bool other_arithmetic() const { return !perturbation.empty() || !cuda_moved.empty(); }
  Unrounded unrounded;           ///< with ExecuteOptions::keep_unrounded, where known
  /// On the CPU in float16 or bfloat16 where LibTorch's CPU has no kernel for the dtype: what
  /// ran in float32 instead and why (Note [Half precision reference]); empty otherwise.
  std::string round_trip;
  // With ExecuteOptions::loss:
  at::Tensor gradient;                    ///< the input's gradient, on the CPU or meta
  /// Backward was asked of an output that does not require grad (a subject
  /// built on round() or a comparison): true of every row alike, so the
  /// gradient check skips instead of failing.
  bool not_differentiable = false;
  std::vector<Finding> backward_findings; ///< placement findings of backward
  int64_t backward_ops_traced = 0;
};

/// The graph executor's optimisation setting a subject's call runs under
/// (Note [Unoptimised subject calls]; the report's
/// environment.torchscript.graph_executor_optimize).
inline constexpr bool kSubjectGraphExecutorOptimize = false;

/// Runs `subject` with `params` (what its sample() returned) on a copy of
/// `input` on `device`, TorchScript unoptimised (Note [Unoptimised subject
/// calls]). Never throws for the subject's errors: they are classified into
/// Execution::error, a device mismatch also becomes a finding.
Execution execute(const Transform& subject, const at::Tensor& input, const nlohmann::json& params,
                  const c10::Device& device, const ExecuteOptions& options = {});

/// execute() without tracing, for callers that want the output or the error:
/// returns the output, rethrowing the subject's exception as it was.
at::Tensor execute_or_throw(const Transform& subject, const at::Tensor& input,
                            const nlohmann::json& params, const c10::Device& device,
                            const ExecuteOptions& options = {});

}  // namespace devparity
