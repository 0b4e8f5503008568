#include "harness/subject/execution.h"

#include "harness/base/dtype.h"
#include "harness/base/rng.h"
#include "harness/device/autocast.h"
#include "harness/device/device.h"
#include "harness/device/device_kinds.h"
#include "harness/rules/half_gaps.h"
#include "harness/subject/layout.h"
#include "harness/subject/op_subject.h"
#include "harness/subject/interleaving_sweep.h"
#include "harness/subject/state.h"
#include "harness/subject/transform.h"
#include "harness/trace/replayed_draws.h"
#include "harness/trace/scope.h"
#include "harness/vdev/async.h"
#include "harness/vdev/cuda_arithmetic.h"
#include "harness/vdev/perturb.h"

#include <ATen/ATen.h>
#include <torch/csrc/jit/runtime/graph_executor.h>
#include <c10/core/DeviceGuard.h>
#include <fmt/format.h>

#include <chrono>
#include <memory>
#include <optional>
#include <regex>

namespace devparity {
namespace {

// A backward that failed on a device's autograd thread: that thread lets go of
// the failed graph (and of a Python exception it holds, whose release takes the
// interpreter lock) only at the end of its loop, which may come after this
// thread moved on - under load, after the interpreter began to finalize, which
// ends a thread taking the lock through C++ frames (std::terminate). A trivial
// backward on the same device runs on the same thread after that end.
void settle_device_thread(const c10::Device& device) {
  if (device.is_cpu() || device.is_meta()) return;
  try {
    at::zeros({1}, at::TensorOptions().device(device)).requires_grad_(true).sum().backward();
  } catch (const std::exception&) {  // the device itself is what failed: nothing to wait for
  }
}

using Clock = std::chrono::steady_clock;

// Registered state that did not follow the subject to `device`.
void check_state(const TransformState& state, const c10::Device& device, const char* when,
                 FindingSet& out) {
  for (const auto& [name, tensor] : state.tensors()) {
    if (!tensor.defined() || tensor.device() == device) continue;
    Finding f;
    f.kind = finding_kind::kStateOffDevice;
    f.message = fmt::format("registered state '{}' is on {} {} {}", name, device_label(tensor.device()),
                            when, device_label(device));
    f.device = device_label(tensor.device());
    f.shape = tensor.sizes().vec();
    f.dtype = dtype_name(tensor.scalar_type());
    out.add(f);
  }
}

Finding mismatch_finding(const ClassifiedError& err, const Finding& failed_op) {
  Finding f;
  f.kind = finding_kind::kDeviceMismatchError;
  f.op = err.op;
  f.scopes = failed_op.scopes;
  f.message = err.message;
  // The message quotes the interpreter's traceback: its line is the source,
  // so that the two agree; the tracer's otherwise.
  f.source = err.source.empty() ? failed_op.source : err.source;
  // The tracer saw the failing op's tensors; LibTorch's wordings do not all
  // name both devices.
  f.device = failed_op.device;
  static const std::regex devices(R"(two devices, ([^ ]+) and ([^ !]+))");
  std::smatch m;
  if (f.device.empty() && std::regex_search(err.message, m, devices)) {
    f.device = m.str(1) + " and " + m.str(2);
  }
  return f;
}

// Note [Making and meeting lines]: the line that made the tensor an error
// met at `source`, as the tracer's foreign_device_input there names it.
std::string stray_made_at(const std::vector<Finding>& found, const std::string& source) {
  for (const auto& f : found) {
    if (f.kind == finding_kind::kForeignDeviceInput && f.source == source && !f.made_at.empty()) return f.made_at;
  }
  return "";
}

Finding wrong_device_output(const at::Tensor& y, const c10::Device& device) {
  Finding f;
  f.kind = finding_kind::kWrongDeviceOutput;
  f.message = fmt::format("the subject returned its result on {}; the target is {}",
                          device_label(y.device()), device_label(device));
  f.device = device_label(y.device());
  f.shape = y.sizes().vec();
  f.dtype = dtype_name(y.scalar_type());
  return f;
}

// Note [Asynchronous virtual device]: what the race detector found, as
// placement errors of the run.
Finding race_finding(const vdev::async::Race& race, const c10::Device& device, uint64_t seed) {
  Finding f;
  f.kind = finding_kind::kUnsynchronizedAccess;
  f.op = race.later.op.rfind("aten::", 0) == 0 ? race.later.op : std::string();
  f.message = fmt::format("{} (interleaving seed {})", race.describe(), seed);
  f.device = device_label(device);
  f.source = race.later.site;
  return f;
}

at::Tensor home(const at::Tensor& t) {
  return t.device().type() == c10::DeviceType::Meta ? t : t.to(at::kCPU);
}

// Note [Unoptimised subject calls]
// The graph executor's optimisations fold constants and inline: after its
// first profiled call a scripted factory (torch.full([1], 2.0) in a
// TorchScript subject, or in the scripted code an audited Python callable
// calls) becomes a CPU constant the tracer never sees again, so a placement
// fault shows on the first trial only and the trials of one case are judged
// on different code. A subject's call runs with them off. The flag is the
// calling thread's (thread_local in LibTorch) and is put back after the call:
// the process's own TorchScript (a library's tests, the code after
// devparity.audit()) keeps its setting, and a subject called on any thread
// runs unoptimised. A Python trace (devparity.trace, the pytest plugin's
// traced tests) runs its block the same way (devparity/_trace.py).
class UnoptimizedCalls {
 public:
  UnoptimizedCalls() : was_(torch::jit::getGraphExecutorOptimize()) { torch::jit::setGraphExecutorOptimize(false); }
  ~UnoptimizedCalls() { torch::jit::setGraphExecutorOptimize(was_); }
  UnoptimizedCalls(const UnoptimizedCalls&) = delete;
  UnoptimizedCalls& operator=(const UnoptimizedCalls&) = delete;

 private:
  bool was_;
};

// One execute() call: the tracer covers apply() (and backward) only, since
// the copies made here are not the subject's.
class Run {
 public:
  Run(const Transform& subject, const c10::Device& device, const ExecuteOptions& options)
      : subject_(subject), device_(device), options_(options),
        stateful_(dynamic_cast<const StatefulTransform*>(&subject)) {
    e_.traced = options.trace;
  }

  Execution operator()(const at::Tensor& input, const nlohmann::json& params) {
    // The whole run, copies in and out included, in one interleaving: the
    // caller reading the output on its stream is part of the contract.
    // Note [Current device]: another index is current, as it is for a
    // library whose caller works on several devices.
    c10::OptionalDeviceGuard current;
    if (const auto other = other_current_device(device_)) current.reset_device(*other);
    std::optional<vdev::async::Session> streams;
    if (const auto& kind = device_kind(device_.type()); kind.interleaves != nullptr && kind.interleaves()) {
      e_.interleaved = true;
      const auto interleaving = interleaving_of(options_.seed, options_.interleaving);
      e_.interleaving_seed = interleaving.seed;
      streams.emplace(interleaving.seed, interleaving.schedule);
    }
    // Note [Perturbed numerics]: on a simulated device with values, whose
    // kernels are devparity's.
    std::optional<vdev::perturb::Scope> perturbed;
    const auto& kind = device_kind(device_.type());
    const bool own_kernels = kind.simulated && kind.runs_cpu_kernels;
    if (own_kernels) {
      e_.perturbation = vdev::perturb::session();
      if (!e_.perturbation.empty()) perturbed.emplace(e_.perturbation);
      vdev::cuda_arithmetic::take_moved();  // Note [CUDA's arithmetic on vdev]: this trial's alone
    }
    try {
      refuse_autocast_where_unavailable();
      const auto x = prepare(input, params);
      const auto y = forward(x, params);
      if (options_.loss) backward(x, y);
      e_.output = options_.keep_on_device ? y : home(y);
      if (streams) races(streams->finish());
      e_.ran = true;
    } catch (const std::exception& ex) {
      failed(ex);
    }
    if (streams) {
      try {
        races(streams->finish());  // after an error: what ran before it
      } catch (const std::exception&) {
      }
    }
    if (perturbed) e_.perturbed = perturbed->moved();
    if (own_kernels) e_.cuda_moved = vdev::cuda_arithmetic::take_moved();
    e_.findings = found_.items();
    return std::move(e_);
  }

 private:
  void refuse_autocast_where_unavailable() const {
    if (!options_.autocast) return;
    if (const auto why = autocast_unavailable(device_.type(), *options_.autocast); !why.empty()) {
      throw Unsupported("no autocast: " + why);
    }
  }

  // A fresh state moved to the device, and a copy of the input there (a
  // copy even on the CPU: a subject that writes into its input must not
  // change the next device's).
  at::Tensor prepare(const at::Tensor& input, const nlohmann::json& params) {
    if (stateful_ != nullptr) {
      state_ = stateful_->make_state(params, input.scalar_type());
      state_->to(device_);
      check_state(*state_, device_, "after the move to", found_);
      std::vector<Finding> audited;
      state_->audit(device_, audited);
      found_.merge(audited);
    }
    auto x = apply_layout(input.to(device_, input.scalar_type(), /*non_blocking=*/false, options_.copy_input),
                          options_.layout);
    if (options_.loss) x = x.detach().requires_grad_(true);
    if (options_.trace) {
      // Note [Device data and host data]: the input and the registered state.
      TraceSeeds seeds;
      seeds.device_data.push_back(x);
      if (state_) state_->seed_trace(seeds);
      tracer_ = std::make_unique<Tracer>(device_, std::move(seeds));
    }
    return x;
  }

  at::Tensor forward(const at::Tensor& x, const nlohmann::json& params) {
    std::optional<UnroundedCapture> unrounded;  // Note [Unrounded values]
    if (options_.keep_unrounded) unrounded.emplace();
    const auto start = Clock::now();
    at::Tensor y;
    {
      std::optional<ReplayedDraws> draws;  // Note [Replayed draws]
      if (options_.replay_draws) draws.emplace(derive_seed(options_.seed, "draws"), device_);
      std::optional<AutocastScope> autocast;  // Note [Autocast rows]
      if (options_.autocast) autocast.emplace(device_.type(), *options_.autocast);
      const UnoptimizedCalls unoptimized;
      y = stateful_ != nullptr ? stateful_->apply(x, params, *state_) : subject_.apply(x, params);
    }
    if (const auto sync = device_kind(device_.type()).synchronize) sync(device_.index());
    e_.duration_ms = std::chrono::duration<double, std::milli>(Clock::now() - start).count();
    const bool reported = tracer_ && tracer_->returned(y);
    stop_tracing();
    if (unrounded) e_.unrounded = unrounded->of(y);  // after the trace: its copy home is ours
    if (state_) check_state(*state_, device_, "after apply on", found_);
    if (!y.defined()) throw std::runtime_error("the subject returned an undefined tensor");
    e_.output_device = y.device();
    if (y.device() != device_ && !reported) found_.add(wrong_device_output(y, device_));
    return y;
  }

  // Backward's saved tensors and gradients were made before its tracer
  // started: like anything it did not see made, device data.
  void backward(const at::Tensor& x, const at::Tensor& y) {
    if (!y.requires_grad()) {
      e_.not_differentiable = true;
      throw std::runtime_error("the output does not depend differentiably on the input");
    }
    in_backward_ = true;
    const auto loss = options_.loss(y);
    if (options_.trace_backward) backward_tracer_ = std::make_unique<Tracer>(device_);
    try {
      DEVPARITY_TRACE_SCOPE("backward");
      loss.backward();
    } catch (const std::exception&) {
      stop_backward_tracing();
      settle_device_thread(device_);
      if (const auto message = op_error_message()) throw std::runtime_error(*message);
      throw;
    }
    stop_backward_tracing();
    const auto grad = x.grad();
    if (!grad.defined()) throw std::runtime_error("no gradient reached the input");
    e_.gradient = home(grad);
  }

  void races(const std::vector<vdev::async::Race>& found) {
    for (const auto& race : found) found_.add(race_finding(race, device_, e_.interleaving_seed));
  }

  void failed(const std::exception& ex) {
    e_.error = classify_exception(ex);
    e_.thrown = std::current_exception();
    const auto* tracer = tracer_ ? tracer_.get() : backward_tracer_.get();
    if (tracer != nullptr && e_.error.op.empty()) e_.error.op = tracer->failed_op().op;
    // A mismatch in backward is the gradient's finding, not apply()'s.
    if (!in_backward_ && e_.error.kind == FailureKind::kDeviceMismatch) {
      auto mismatch = mismatch_finding(e_.error, tracer_ ? tracer_->failed_op() : Finding{});
      if (tracer_) mismatch.made_at = stray_made_at(tracer_->findings(), mismatch.source);
      found_.add(mismatch);
    }
    stop_tracing();
    stop_backward_tracing();
  }

  void stop_tracing() {
    if (!tracer_) return;
    found_.merge(tracer_->findings());
    e_.ops_traced = tracer_->ops_traced();
    e_.device_draws = tracer_->device_draws();
    tracer_.reset();
  }

  void stop_backward_tracing() {
    if (!backward_tracer_) return;
    e_.backward_findings = backward_tracer_->findings();
    e_.backward_ops_traced = backward_tracer_->ops_traced();
    backward_tracer_.reset();
  }

  const Transform& subject_;
  const c10::Device device_;
  const ExecuteOptions& options_;
  const StatefulTransform* stateful_;
  std::unique_ptr<TransformState> state_;
  std::unique_ptr<Tracer> tracer_, backward_tracer_;
  FindingSet found_;
  bool in_backward_ = false;
  Execution e_;
};

}  // namespace

// Note [Half precision reference]
// LibTorch's CPU lacks float16 and bfloat16 kernels a GPU has (1.13 most of all: upsampling,
// grid sampling, convolution), so a half precision reference raised where the GPU runs. On the
// CPU such a run is made again in float32 from the same half input and its output rounded to
// the dtype: a GPU's half kernels compute in float32 and round their results too, so this is
// the GPU's arithmetic rounded once at the end instead of after each op, within the half
// dtype's tolerance (docs/checks.md). The trial says it (Execution::round_trip, the report's
// "round_trip"); the simulated device fills its gaps op by op instead (Note [Half precision on
// the virtual device]).
bool lacks_half_kernel(const Execution& e, c10::ScalarType dtype) {
  return !e.ran && device_rules::lacks_dtype_kernel(e.error.message, c10::toString(dtype));
}

Execution execute(const Transform& subject, const at::Tensor& input, const nlohmann::json& params,
                  const c10::Device& device, const ExecuteOptions& options) {
  auto e = Run(subject, device, options)(input, params);
  if (device.is_cpu() && !options.autocast && is_half_precision(input.scalar_type()) &&
      lacks_half_kernel(e, input.scalar_type())) {
    const auto dtype = input.scalar_type();
    auto wide = Run(subject, device, options)(input.to(at::kFloat), params);
    if (!wide.ran) return e;  // float32 fails too: the half run's own error stands
    wide.output = wide.output.to(dtype);
    if (wide.gradient.defined()) wide.gradient = wide.gradient.to(dtype);
    wide.round_trip = fmt::format("computed in float32 and rounded to {}: this LibTorch's CPU has no {} kernel{} ({})",
                                  dtype_name(dtype), dtype_name(dtype),
                                  e.error.op.empty() ? std::string() : " for " + e.error.op, e.error.message);
    return wide;
  }
  if (e.interleaved && e.ran && options.interleaving == 0 && options.interleavings > 1) {
    sweep_interleavings(subject, input, params, device, options, e);
  }
  return e;
}

at::Tensor execute_or_throw(const Transform& subject, const at::Tensor& input,
                            const nlohmann::json& params, const c10::Device& device,
                            const ExecuteOptions& options) {
  auto e = execute(subject, input, params, device, options);
  if (!e.ran) std::rethrow_exception(e.thrown);
  return e.output;
}

}  // namespace devparity
