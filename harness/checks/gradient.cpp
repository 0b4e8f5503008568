// gradient: for differentiable subjects, the input gradient of a fixed scalar
// loss, sum(output * linspace(-1, 1)), compared across devices; on the
// reference row, a finite-difference check of the reference implementation
// itself in float64 on the CPU. The backward pass runs under the placement
// tracer, so a backward op that meets a tensor on another device is a
// finding here (scope "backward", then autograd's node names).

#include "harness/checks/registry.h"
#include "harness/core/capabilities.h"
#include "harness/core/compare.h"
#include "harness/core/dtype.h"
#include "harness/core/error.h"
#include "harness/core/replayed_draws.h"
#include "harness/core/rng.h"
#include "harness/core/text.h"
#include "harness/core/tolerance.h"
#include "harness/trace/scope.h"
#include "harness/trace/tracer.h"

#include <ATen/ATen.h>
#include <ATen/CPUGeneratorImpl.h>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <cmath>
#include <memory>

namespace devparity {
namespace {

constexpr int kDirections = 3;
constexpr double kStep = 1e-6;
constexpr double kFdTolerance = 1e-4;

// The fixed scalar loss: its gradient w.r.t. the output is a ramp, so every
// output element matters and none cancels another.
at::Tensor loss_of(const at::Tensor& y) {
  const auto w = at::linspace(-1.0, 1.0, y.numel(), y.options()).reshape(y.sizes());
  return (y * w).sum();
}

struct Gradient {
  at::Tensor grad;  // on the CPU, or on meta
  std::vector<Finding> findings;
  std::optional<ClassifiedError> error;
  int64_t ops_traced = 0;
};

Gradient gradient_on(const Transform& subject, const nlohmann::json& params,
                     const at::Tensor& input, const c10::Device& device, bool trace, uint64_t seed) {
  Gradient g;
  std::unique_ptr<Tracer> tracer;
  try {
    const auto x = input.to(device).detach().requires_grad_(true);
    at::Tensor y;
    {
      const ReplayedDraws draws(derive_seed(seed, "draws"), device);  // Note [Replayed draws]
      y = subject.apply(x, params);
    }
    if (!y.requires_grad()) {
      throw std::runtime_error("the output does not depend differentiably on the input");
    }
    const auto loss = loss_of(y);
    // Backward's saved tensors and gradients were made before the tracer
    // started: like anything it did not see made, device data.
    if (trace) tracer = std::make_unique<Tracer>(device);
    {
      DEVPARITY_TRACE_SCOPE("backward");
      loss.backward();
    }
    if (tracer) {
      g.findings = tracer->findings();
      g.ops_traced = tracer->ops_traced();
      tracer.reset();
    }
    const auto grad = x.grad();
    if (!grad.defined()) throw std::runtime_error("no gradient reached the input");
    g.grad = grad.device().type() == c10::DeviceType::Meta ? grad : grad.to(at::kCPU);
  } catch (const std::exception& e) {
    g.error = classify_exception(e);
    if (tracer) {
      if (g.error->op.empty()) g.error->op = tracer->failed_op().op;
      g.findings = tracer->findings();
      g.ops_traced = tracer->ops_traced();
    }
    // Backward kernels a device lacks belong in the run's summary with the
    // forward ones (meta in 1.13: where.self, logical_and).
    if (g.error->kind == FailureKind::kUnsupported && !g.error->op.empty()) {
      Capabilities::global().record_unsupported(device.type(), g.error->op);
    }
  }
  return g;
}

// Directional finite differences: <grad, v> against (L(x + hv) - L(x - hv)) / 2h.
// The point is the trial input plus a fixed jitter of 1e-3: an image's values
// sit exactly on clamps and rounding steps (0, 1, a ramp's rationals), where
// no derivative exists; jittered, such kinks have measure zero.
CheckOutcome finite_differences(const Transform& subject, const nlohmann::json& params,
                                const at::Tensor& input, uint64_t seed, CheckOutcome out) {
  auto jitter_gen = at::make_generator<at::CPUGeneratorImpl>(7);
  const auto x = input.to(at::kDouble) +
                 1e-3 * (at::rand(input.sizes(), jitter_gen, at::TensorOptions().dtype(at::kDouble)) - 0.5);
  const c10::Device cpu(c10::DeviceType::CPU);
  const auto analytic = gradient_on(subject, params, x, cpu, false, seed);
  if (analytic.error) {
    out.status = Status::kFail;
    out.message = "float64 backward on the CPU failed: " + analytic.error->message;
    return out;
  }
  auto loss = [&](const at::Tensor& at_x) {
    const ReplayedDraws draws(derive_seed(seed, "draws"), cpu);
    return loss_of(subject.apply(at_x, params)).item<double>();
  };
  auto gen = at::make_generator<at::CPUGeneratorImpl>(20261122);
  double worst = 0.0;
  auto details = nlohmann::json::array();
  for (int k = 0; k < kDirections; ++k) {
    auto v = at::randn(x.sizes(), gen, at::TensorOptions().dtype(at::kDouble));
    v = v / v.norm();
    const double numeric = (loss(x + kStep * v) - loss(x - kStep * v)) / (2.0 * kStep);
    const double exact = (analytic.grad * v).sum().item<double>();
    const double error = std::fabs(numeric - exact) / std::max(1.0, std::fabs(exact));
    worst = std::max(worst, error);
    details.push_back({{"analytic", json_number(exact)}, {"numeric", json_number(numeric)},
                       {"error", json_number(error)}});
  }
  out.describe = fmt::format("float64 directional derivatives match central differences "
                             "(h = {:g}, at the input jittered by 1e-3) within {:g}",
                             kStep, kFdTolerance);
  out.stats = {{"directions", details}, {"max_error", json_number(worst)}};
  out.status = worst <= kFdTolerance ? Status::kPass : Status::kFail;
  out.message = fmt::format("finite differences in float64 on the CPU: worst relative error "
                            "{:.3g} over {} directions",
                            worst, kDirections);
  return out;
}

Tolerance gradient_tolerance(const nlohmann::json& setting, c10::ScalarType dtype, bool exact) {
  Tolerance t = resolve_tolerance(setting, dtype);
  if (!t.is_default) return t;
  if (exact) {
    t = Tolerance{};
    t.reason = "the virtual device runs the CPU's kernels, so any difference is a bug";
  } else if (dtype == c10::ScalarType::Float) {
    t.rtol = 1e-4;
    t.atol = 1e-5;
    t.reason = "gradient default for float32: backward kernels accumulate in other orders";
  }
  return t;
}

class GradientCheck final : public Check {
 public:
  std::string name() const override { return "gradient"; }

  std::string description() const override {
    return "differentiable subjects: the input gradient of sum(output * ramp) matches the "
           "reference device's, backward ops stay on the device; finite differences check the "
           "reference itself";
  }

  void validate_setting(const nlohmann::json& setting) const override {
    validate_tolerance(setting);
  }

  bool runs_on_reference_row() const override { return true; }

  CheckOutcome run(const CheckContext& ctx) const override {
    CheckOutcome out;
    out.name = name();
    if (ctx.subject == nullptr || !ctx.subject->info().differentiable) {
      out.message = "the subject is not differentiable";
      return out;
    }
    if (!is_floating(ctx.dtype)) {
      out.message = fmt::format("no gradients for {}", dtype_name(ctx.dtype));
      return out;
    }
    if (!ctx.output.defined()) {
      out.message = "the subject did not run";
      return out;
    }
    const auto mine = gradient_on(*ctx.subject, *ctx.params, *ctx.input, *ctx.target.device, ctx.trace, ctx.seed);
    int64_t errors = 0;
    for (const auto& f : mine.findings) {
      out.findings.push_back(f.to_json());
      if (f.severity == Severity::kError) errors += f.count;
    }
    if (ctx.is_reference_row) {
      // The reference itself: finite differences, and its own backward traced.
      if (!at::isfinite(*ctx.input).all().item<bool>()) {
        out.status = errors > 0 ? Status::kFail : Status::kSkip;
        out.stats["backward_ops_traced"] = mine.ops_traced;
        out.message = errors > 0 ? fmt::format("{}: {} placement error(s) in backward", ctx.result.id, errors)
                                 : "the input holds NaN or Inf: finite differences mean nothing there; the "
                                   "other devices' gradients are compared with this one";
        return out;
      }
      auto fd = finite_differences(*ctx.subject, *ctx.params, *ctx.input, ctx.seed, out);
      fd.stats["backward_ops_traced"] = mine.ops_traced;
      if (errors > 0 && fd.status == Status::kPass) {
        fd.status = Status::kFail;
        fd.message = fmt::format("{}: {} placement error(s) in backward; first: {}", ctx.result.id,
                                 errors, mine.findings.front().describe());
      }
      return fd;
    }
    out.stats["backward_ops_traced"] = mine.ops_traced;
    if (mine.error) {
      const bool unsupported = mine.error->kind == FailureKind::kUnsupported;
      out.status = unsupported && !ctx.target.has_values() ? Status::kSkip : Status::kFail;
      out.message = fmt::format("backward on {} failed ({}): {}", ctx.target.resolved_name(),
                                failure_kind_name(mine.error->kind), mine.error->message);
      return out;
    }
    const auto ref = gradient_on(*ctx.reference_subject, *ctx.reference_params, *ctx.input,
                                 *ctx.reference_device, false, ctx.seed);
    if (ref.error) {
      out.message = "no reference gradient: " + ref.error->message;
      return out;
    }
    std::vector<std::string> problems;
    if (ref.grad.sizes() != mine.grad.sizes() || ref.grad.scalar_type() != mine.grad.scalar_type()) {
      problems.push_back(fmt::format("gradient {} {} differs from the reference's {} {}",
                                     join_shape(mine.grad.sizes().vec()),
                                     dtype_name(mine.grad.scalar_type()),
                                     join_shape(ref.grad.sizes().vec()),
                                     dtype_name(ref.grad.scalar_type())));
    }
    if (errors > 0) {
      problems.push_back(fmt::format("{} placement error(s) in backward; first: {}", errors,
                                     mine.findings.front().describe()));
    }
    if (!ctx.target.has_values() || !problems.empty()) {
      out.describe = "backward runs and its gradient has the reference's shape and dtype";
      out.status = problems.empty() ? Status::kPass : Status::kFail;
      out.message = problems.empty() ? "backward ran; gradient shape and dtype match (no values on meta)"
                                     : fmt::format("{}: {}", ctx.result.id, fmt::join(problems, "; "));
      return out;
    }
    const auto tol = gradient_tolerance(ctx.setting, ctx.dtype, ctx.expect_exact);
    out.describe = "input gradient: " + tol.describe(ctx.dtype);
    out.stats["tolerance"] = tol.to_json();
    const auto stats = compare_tensors(ref.grad, mine.grad, tol);
    out.stats.update(stats.to_json());
    if (stats.within(tol)) {
      out.status = Status::kPass;
      out.message = stats.differing == 0
                        ? "gradient identical to the reference's"
                        : fmt::format("gradient within tolerance (max |diff| {:g})", stats.max_abs);
    } else {
      out.status = Status::kFail;
      out.message = fmt::format("{}: gradient: {} of {} elements outside {}; max |diff| {:g}",
                                ctx.result.id, stats.mismatches, stats.numel, tol.describe(ctx.dtype),
                                stats.max_abs);
    }
    return out;
  }
};

}  // namespace

void register_gradient_check(CheckRegistry& registry) {
  registry.add(std::make_unique<GradientCheck>());
}

}  // namespace devparity
