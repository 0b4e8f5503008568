// gradient: for differentiable subjects, the input gradient of a fixed scalar
// loss, sum(output * linspace(-1, 1)), compared across devices; on the
// reference row, a finite-difference check of the reference implementation
// itself in float64 on the CPU. The backward pass runs under the placement
// tracer, so a backward op that meets a tensor on another device is a
// finding here (scope "backward", then autograd's node names).

#include "harness/base/compare.h"
#include "harness/base/dtype.h"
#include "harness/base/error.h"
#include "harness/base/rng.h"
#include "harness/base/text.h"
#include "harness/base/tolerance.h"
#include "harness/checks/registry.h"
#include "harness/trace/tracer.h"

#include <ATen/ATen.h>
#include <ATen/CPUGeneratorImpl.h>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <nlohmann/json.hpp>

#include <cmath>
#include <limits>

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

// execute() for gradients: the loss back-propagated, backward traced when `trace`.
ExecuteOptions backward(bool trace, uint64_t seed = 0) {
  ExecuteOptions options;
  options.loss = loss_of;
  options.trace_backward = trace;
  options.seed = seed;
  return options;
}

// The directional derivative of `loss` at x along v: central differences at h and h/2,
// combined so that their h^2 terms cancel (Richardson). A central difference alone is off by
// h^2 L''' / 6, and a soft rounding of fine quantisation steps has a large third derivative in
// the input's units: the differentiable JPEG at quality 99 (a step of one level, 2040 levels per
// unit of a flat block's DC coefficient) was off by 1e-4 at h = 1e-6, over the check's bound,
// while its gradient was right (the error fell as h^2). Where the loss jumps within h along v
// (Kornia's soft rounding keeps round()'s jump at half steps) the two differ by the jump over h,
// not by a truncation error: there is no derivative to compare, and the direction is redrawn.
struct Quotient {
  double value = 0.0;
  bool smooth = true;  ///< the two steps agree: no jump within h
};

template <typename Loss>
Quotient richardson(const Loss& loss, const at::Tensor& x, const at::Tensor& v) {
  auto central = [&](double h) { return (loss(x + h * v) - loss(x - h * v)) / (2.0 * h); };
  const double wide = central(kStep), narrow = central(kStep / 2.0);
  const bool agree = std::fabs(wide - narrow) <= 1e-2 * std::max(1.0, std::fabs(narrow));
  return {(4.0 * narrow - wide) / 3.0, agree || std::isnan(wide) || std::isnan(narrow)};
}

constexpr int kRedraws = 4;  // directions across a jump, redrawn at most this often each

// Directional finite differences: <grad, v> against the Richardson-extrapolated central difference.
// The point is the trial input plus a fixed jitter of 1e-3: an image's values
// sit exactly on clamps and rounding steps (0, 1, a ramp's rationals), where
// no derivative exists; jittered, such kinks have measure zero.
CheckOutcome finite_differences(const TrialReplay& replay, CheckOutcome out) {
  const auto& subject = replay.subject;
  const auto& params = replay.params;
  const auto& input = replay.input;
  const auto seed = replay.seed;
  auto jitter_gen = at::make_generator<at::CPUGeneratorImpl>(7);
  const auto x = input.to(at::kDouble) +
                 1e-3 * (at::rand(input.sizes(), jitter_gen, at::TensorOptions().dtype(at::kDouble)) - 0.5);
  const c10::Device cpu(c10::DeviceType::CPU);
  const auto analytic = execute(subject, x, params, cpu, backward(false, seed));
  if (!analytic.ran) {
    out.status = Status::kFail;
    out.message = "float64 backward on the CPU failed: " + analytic.error.message;
    return out;
  }
  ExecuteOptions at_point;
  at_point.seed = seed;
  auto loss = [&](const at::Tensor& at_x) {
    return loss_of(execute_or_throw(subject, at_x, params, cpu, at_point)).item<double>();
  };
  auto gen = at::make_generator<at::CPUGeneratorImpl>(20261122);
  double worst = 0.0;
  auto details = nlohmann::json::array();
  int64_t redrawn = 0;
  for (int k = 0; k < kDirections; ++k) {
    at::Tensor v;
    Quotient q;
    for (int attempt = 0; attempt <= kRedraws; ++attempt) {
      v = at::randn(x.sizes(), gen, at::TensorOptions().dtype(at::kDouble));
      v = v / v.norm();
      q = richardson(loss, x, v);
      if (q.smooth) break;
      if (attempt < kRedraws) ++redrawn;  // the last is judged as it is
    }
    const double numeric = q.value;
    const double exact = (analytic.gradient * v).sum().item<double>();
    const double error = std::fabs(numeric - exact) / std::max(1.0, std::fabs(exact));
    worst = std::isnan(worst) || std::isnan(error) ? std::numeric_limits<double>::quiet_NaN() : std::max(worst, error);
    details.push_back({{"analytic", json_number(exact)}, {"numeric", json_number(numeric)},
                       {"error", json_number(error)}});
  }
  out.describe = fmt::format("float64 directional derivatives match central differences "
                             "(h = {:g} and h/2, Richardson-extrapolated, at the input jittered by 1e-3) within {:g}",
                             kStep, kFdTolerance);
  out.stats = {{"directions", details}, {"max_error", json_number(worst)}, {"redrawn_across_a_jump", redrawn}};
  out.status = worst <= kFdTolerance ? Status::kPass : Status::kFail;
  out.message = std::isfinite(worst)
                    ? fmt::format("finite differences in float64 on the CPU: worst relative error "
                                  "{:.3g} over {} directions",
                                  worst, kDirections)
                    : fmt::format("finite differences in float64 on the CPU: worst relative error {} over {} "
                                  "directions (the gradient or the loss is not finite)",
                                  number_text(worst), kDirections);
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
    const auto& replay = ctx.replay_for("gradient");
    if (!replay.subject.info().differentiable) {
      out.message = "the subject is not differentiable";
      return out;
    }
    if (!is_floating(ctx.dtype)) {
      out.message = fmt::format("no gradients for {}", dtype_name(ctx.dtype));
      return out;
    }
    if (!ctx.output().defined()) {
      out.message = "the subject did not run";
      return out;
    }
    const auto mine = replay.run(*ctx.target.device, backward(replay.trace));
    if (mine.not_differentiable) {
      // So on every row, the reference's included: there is no gradient to compare.
      out.status = Status::kSkip;
      out.message = "the output does not depend differentiably on the input (no gradient on any device)";
      return out;
    }
    int64_t errors = 0;
    for (const auto& f : mine.backward_findings) {
      out.findings.push_back(f.to_json());
      if (f.severity == Severity::kError) errors += f.count;
    }
    if (ctx.is_reference_row) return check_reference(ctx, replay, mine, errors, out);
    out.stats["backward_ops_traced"] = mine.backward_ops_traced;
    if (!mine.ran) {
      const bool unsupported = mine.error.kind == FailureKind::kUnsupported;
      out.status = unsupported && !ctx.target.has_values() ? Status::kSkip : Status::kFail;
      // As the run check's: the summary's unsupported ops are read from the results.
      out.stats["error_kind"] = failure_kind_name(mine.error.kind);
      if (!mine.error.op.empty()) out.stats["op"] = mine.error.op;
      out.stats["device_type"] = c10::DeviceTypeName(ctx.target.device->type(), /*lower_case=*/true);
      out.message = fmt::format("backward on {} failed ({}): {}", ctx.target.resolved_name(),
                                failure_kind_name(mine.error.kind), mine.error.message);
      return out;
    }
    const auto ref = replay.run_reference(backward(false));
    if (!ref.ran) {
      out.message = "no reference gradient: " + ref.error.message;
      return out;
    }
    compare_with_reference(ctx, mine, ref, errors, out);
    return out;
  }

 private:
  // The reference row: finite differences check the reference itself, and its own backward is traced.
  static CheckOutcome check_reference(const CheckContext& ctx, const TrialReplay& replay, const Execution& mine,
                                      int64_t errors, CheckOutcome& out) {
    if (!at::isfinite(replay.input).all().item<bool>()) {
      out.status = errors > 0 ? Status::kFail : Status::kSkip;
      out.stats["backward_ops_traced"] = mine.backward_ops_traced;
      out.message = errors > 0 ? fmt::format("{}: {} placement error(s) in backward", ctx.result.id, errors)
                               : "the input holds NaN or Inf: finite differences mean nothing there; the "
                                 "other devices' gradients are compared with this one";
      return out;
    }
    auto fd = finite_differences(replay, out);
    fd.stats["backward_ops_traced"] = mine.backward_ops_traced;
    if (errors > 0 && fd.status == Status::kPass) {
      fd.status = Status::kFail;
      fd.message = fmt::format("{}: {} placement error(s) in backward; first: {}", ctx.result.id, errors,
                               mine.backward_findings.front().describe());
    }
    return fd;
  }

  // The device's gradient against the reference's: shape, dtype and
  // placement, then (with values) every element under the tolerance.
  static void compare_with_reference(const CheckContext& ctx, const Execution& mine, const Execution& ref,
                                     int64_t errors, CheckOutcome& out) {
    std::vector<std::string> problems;
    if (ref.gradient.sizes() != mine.gradient.sizes() || ref.gradient.scalar_type() != mine.gradient.scalar_type()) {
      problems.push_back(fmt::format("gradient {} {} differs from the reference's {} {}",
                                     join_shape(mine.gradient.sizes().vec()), dtype_name(mine.gradient.scalar_type()),
                                     join_shape(ref.gradient.sizes().vec()), dtype_name(ref.gradient.scalar_type())));
    }
    if (errors > 0) {
      problems.push_back(fmt::format("{} placement error(s) in backward; first: {}", errors,
                                     mine.backward_findings.front().describe()));
    }
    // A half precision backward rounds after each of its ops, and where the device's ops are
    // not the reference's (a GPU's, or the reference computed in float32: Note [Half precision
    // reference]) the gradients part by far more than the dtype's spacing (1/x near 0): values
    // are compared where the kernels are the same (vdev against the CPU), and in float32 and
    // float64 rows everywhere.
    // Under autocast (Note [Autocast rows]) the forward's lowered ops make it a half precision one.
    const bool values = ctx.target.has_values() && (!is_half_precision(ctx.precision()) || ctx.expect_exact);
    if (!values || !problems.empty()) {
      out.describe = "backward runs and its gradient has the reference's shape and dtype";
      out.status = problems.empty() ? Status::kPass : Status::kFail;
      out.message = !problems.empty() ? fmt::format("{}: {}", ctx.result.id, fmt::join(problems, "; "))
                    : ctx.target.has_values()
                        ? fmt::format("backward ran; gradient shape and dtype match ({} gradients are compared by "
                                      "value only against the same kernels)",
                                      ctx.autocast ? "autocast" : dtype_name(ctx.dtype))
                        : "backward ran; gradient shape and dtype match (no values on meta)";
      return;
    }
    const auto tol = gradient_tolerance(ctx.setting, ctx.precision(), ctx.expect_exact);
    out.describe = "input gradient: " + tol.describe(ctx.precision());
    out.stats["tolerance"] = tol.to_json();
    const auto stats = compare_tensors(ref.gradient, mine.gradient, tol);
    out.stats.update(stats.to_json());
    if (stats.within(tol)) {
      out.status = Status::kPass;
      out.message = stats.differing == 0 ? "gradient identical to the reference's"
                                         : fmt::format("gradient within tolerance (max |diff| {})", number_text(stats.max_abs));
    } else {
      out.status = Status::kFail;
      out.message = fmt::format("{}: gradient: {} of {} elements outside {}; max |diff| {}{}", ctx.result.id,
                                stats.mismatches, stats.numel, tol.describe(ctx.precision()), number_text(stats.max_abs),
                                stats.nan_mismatches || stats.inf_mismatches
                                    ? fmt::format(" ({} NaN and {} Inf where the other holds a number)",
                                                  stats.nan_mismatches, stats.inf_mismatches)
                                    : "");
    }
  }
};

}  // namespace

void register_gradient_check(CheckRegistry& registry) {
  registry.add(std::make_unique<GradientCheck>());
}

}  // namespace devparity
