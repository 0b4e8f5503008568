// parity: the device's output against the reference output.
//
// With values: shape and dtype must match, then every element is compared
// under the tolerance policy (base/tolerance.h) and the statistics of
// base/compare.h go into the report. On meta, which carries no values, only
// shape, dtype and device are compared.

#include "harness/base/compare.h"
#include "harness/base/dtype.h"
#include "harness/base/error.h"
#include "harness/base/json_reader.h"
#include "harness/base/text.h"
#include "harness/base/tolerance.h"
#include "harness/checks/registry.h"
#include "harness/model/artifacts.h"

#include <ATen/ATen.h>
#include <fmt/format.h>
#include <fmt/ranges.h>

namespace devparity {
namespace {

std::string format_index(const std::vector<int64_t>& index) {
  return fmt::format("[{}]", fmt::join(index, ","));
}

// The setting: a tolerance (base/tolerance.h) plus "device_random": "skip"
// (the default: a trial that draws on its device is not comparable) or
// "compare" (compare anyway: the subject's device draws are meant to match).
struct ParitySetting {
  nlohmann::json tolerance = true;
  bool compare_device_draws = false;
};

ParitySetting read_setting(const nlohmann::json& setting) {
  ParitySetting out;
  out.tolerance = setting;
  if (!setting.is_object() || !setting.contains("device_random")) return out;
  const auto& value = setting.at("device_random");
  if (!value.is_string() || (value != "skip" && value != "compare")) {
    throw FieldError("/device_random", fmt::format("expected \"skip\" or \"compare\", got {}",
                                                   describe_json(value)));
  }
  out.compare_device_draws = value == "compare";
  out.tolerance.erase("device_random");
  if (out.tolerance.empty()) out.tolerance = true;
  return out;
}

// Shape, dtype and output device against the reference's: what can be
// compared without values (all of it on meta).
std::vector<std::string> structural_problems(const CheckContext& ctx) {
  const auto& ref = ctx.reference;
  const auto& got = ctx.output();
  std::vector<std::string> problems;
  if (ref.sizes() != got.sizes()) {
    problems.push_back(fmt::format("shape {} differs from the reference's {}", join_shape(got.sizes().vec()),
                                   join_shape(ref.sizes().vec())));
  }
  // Note [Autocast rows]: an op autocast lowers may leave its output in the autocast dtype.
  const bool lowered = ctx.autocast && got.scalar_type() == *ctx.autocast;
  if (ref.scalar_type() != got.scalar_type() && !lowered) {
    problems.push_back(fmt::format("dtype {} differs from the reference's {}", dtype_name(got.scalar_type()),
                                   dtype_name(ref.scalar_type())));
  }
  if (ctx.execution.output_device != *ctx.target.device) {
    problems.push_back(fmt::format("output is on {}, expected {}", device_label(ctx.execution.output_device),
                                   ctx.target.resolved_name()));
  }
  return problems;
}

// Note [Replayed draws]: the device's own generator is not the CPU's, so a
// trial that draws on the device is not comparable unless the case says so.
bool skip_device_draws(const CheckContext& ctx, const ParitySetting& setting, CheckOutcome& out) {
  if (ctx.device_draws() == nullptr || ctx.device_draws()->empty() || setting.compare_device_draws) return false;
  const auto& first = ctx.device_draws()->front();
  out.status = Status::kSkip;
  out.describe = "not comparable: the subject draws random numbers on the device";
  out.stats["device_draws"] = static_cast<int64_t>(ctx.device_draws()->size());
  out.message = fmt::format(
      "not comparable: the subject draws random numbers on {} ({}{}{}), and a device's "
      "generator differs from the CPU's by design (set parity's \"device_random\": \"compare\" "
      "to compare anyway)",
      ctx.target.resolved_name(), first.op, first.source.empty() ? "" : " at " + first.source,
      ctx.device_draws()->size() > 1 ? fmt::format(" and {} more", ctx.device_draws()->size() - 1) : "");
  return true;
}

// "; 40 of 52 +-1 differences at rounding ties of the reference (half up,
// within 0.001), 12 from its intermediate rounding (allowed)" and the
// sampling ties, when the reference noted them; nothing otherwise.
std::string rounding_summary(const CompareStats& stats, const Tolerance& tol, const CheckContext& ctx) {
  std::string text;
  const int64_t plus_minus_one = stats.rounding_ties + stats.intermediate_rounding + stats.off_by_one_elsewhere;
  if (stats.ties_judged && plus_minus_one > 0) {
    const Unrounded& u = *ctx.reference_unrounded;
    text = fmt::format("; {} of {} +-1 differences at rounding ties of the reference ({}, within {:g}{})",
                       stats.rounding_ties, plus_minus_one, rounding_name(u.rounding), tol.tie_epsilon,
                       u.error_bound > 0.0  ? fmt::format(" + its error bound {:.2g}", u.error_bound)
                       : u.error.defined() ? " + its weights' error at each element"
                                           : "");
    if (stats.intermediate_judged) {
      text += fmt::format(", {} from the reference's intermediate rounding ({})", stats.intermediate_rounding,
                          tol.excuse_intermediate_rounding ? "allowed" : "judged by the tolerance");
    }
  }
  if (stats.sampling_ties > 0) {
    text += fmt::format("; {} elements differ where the reference sampled at an exact midpoint (nearest; "
                        "a tie in the choice of source, not counted as mismatches)",
                        stats.sampling_ties);
  }
  return text;
}

// The failure: artifacts of the three images (within the budget) and a
// message with the mismatch statistics.
void fail_on_values(const CheckContext& ctx, const at::Tensor& got, const Tolerance& tol, const CompareStats& stats,
                    CheckOutcome& out) {
  const auto& ref = ctx.reference;
  out.status = Status::kFail;
  if (ctx.artifacts != nullptr && ref.sizes() == got.sizes()) {
    out.artifacts = ctx.artifacts->save(ctx.result.id,
                                        {{"reference", ref}, {"output", got}, {"abs_diff", abs_difference(got, ref)}});
    if (out.artifacts.empty()) {
      out.stats["artifacts_skipped"] =
          fmt::format("over the artifact budget of {} bytes", ctx.artifacts->budget_bytes());
    }
  }
  std::string where;
  if (!stats.worst_index.empty()) {
    where = fmt::format("; {} at {}: {} vs reference {}",
                        stats.nan_mismatches || stats.inf_mismatches ? "first NaN/Inf mismatch" : "worst",
                        format_index(stats.worst_index), number_text(stats.worst_output),
                        number_text(stats.worst_reference));
  }
  // NaN and Inf lead: a finite max |diff| beside them would read as a small error.
  std::string special;
  if (stats.nan_mismatches || stats.inf_mismatches) {
    special = fmt::format("{} NaN and {} Inf where the other holds a number (finite pairs: max |diff| {}); ",
                          stats.nan_mismatches, stats.inf_mismatches, number_text(stats.finite_max_abs));
  }
  std::string beyond;
  if (tol.mismatch_fraction > 0.0 && stats.beyond_outlier_bound > 0) {
    beyond = fmt::format("; {} beyond the outlier bound {:g}", stats.beyond_outlier_bound, tol.outlier_atol);
  }
  out.message = fmt::format(
      "{}: {}{} of {} elements ({:.3g}%) outside {}{}; max |diff| {}{}{}; mismatches {} ({} "
      "pixels, largest cluster {})",
      ctx.result.id, special, stats.mismatches, stats.numel, stats.mismatch_fraction * 100.0,
      tol.describe(ctx.precision()), beyond, number_text(stats.max_abs), where, rounding_summary(stats, tol, ctx),
      stats.mismatched.pattern, stats.mismatched.pixels, stats.mismatched.largest_cluster);
}

class ParityCheck final : public Check {
 public:
  std::string name() const override { return "parity"; }

  std::string description() const override {
    return "output matches the reference device's output within the tolerance policy (on meta: "
           "shape, dtype and device only)";
  }

  void validate_setting(const nlohmann::json& setting) const override {
    validate_tolerance(read_setting(setting).tolerance);
  }

  CheckOutcome run(const CheckContext& ctx) const override {
    CheckOutcome out;
    out.name = name();
    const auto& ref = ctx.reference;
    const auto& got = ctx.output();
    out.stats["reference_shape"] = ref.sizes().vec();
    out.stats["output_shape"] = got.sizes().vec();
    out.stats["reference_dtype"] = dtype_name(ref.scalar_type());
    out.stats["output_dtype"] = dtype_name(got.scalar_type());
    const auto problems = structural_problems(ctx);
    if (!ctx.target.has_values()) {
      out.describe = "shape, dtype and device match the reference (meta has no values)";
      out.status = problems.empty() ? Status::kPass : Status::kFail;
      out.message = problems.empty()
                        ? fmt::format("shape {} and dtype {} match; values not compared on meta",
                                      join_shape(got.sizes().vec()), dtype_name(got.scalar_type()))
                        : fmt::format("{}: {}", ctx.result.id, fmt::join(problems, "; "));
      return out;
    }
    const auto setting = read_setting(ctx.setting);
    if (skip_device_draws(ctx, setting, out)) return out;
    Tolerance tol = resolve_tolerance(setting.tolerance, ctx.precision());
    if (tol.is_default && ctx.precision() != ctx.dtype) tol = autocast_tolerance(ctx.precision());
    if (ctx.expect_exact && tol.is_default) {
      tol = Tolerance{};
      tol.reason = "the virtual device runs the CPU's kernels, so any difference is a bug";
    }
    out.describe = tol.describe(ctx.precision());
    if (ctx.autocast) out.stats["autocast"] = dtype_name(*ctx.autocast);
    out.stats["tolerance"] = tol.to_json();
    if (!problems.empty()) {
      out.status = Status::kFail;
      out.message = fmt::format("{}: {}", ctx.result.id, fmt::join(problems, "; "));
      return out;
    }
    // The virtual device runs the CPU's kernels: a tie decided the other way
    // there is as much a bug as any other difference.
    // Values in the reference's dtype: an autocast row's lowered output widens exactly.
    const auto values = got.scalar_type() == ref.scalar_type() ? got : got.to(ref.scalar_type());
    const auto stats = compare_tensors(ref, values, tol, ctx.expect_exact ? nullptr : ctx.reference_unrounded);
    out.stats.update(stats.to_json());
    if (!stats.within(tol)) {
      fail_on_values(ctx, values, tol, stats, out);
    } else {
      out.status = Status::kPass;
      out.message = stats.differing == 0
                        ? "identical to the reference"
                        : fmt::format("{} of {} elements differ (max |diff| {}, {} pixels, {}){}; within tolerance",
                                      stats.differing, stats.numel, number_text(stats.max_abs),
                                      stats.differences.pixels, stats.differences.pattern,
                                      rounding_summary(stats, tol, ctx));
    }
    return out;
  }
};

}  // namespace

void register_parity_check(CheckRegistry& registry) {
  registry.add(std::make_unique<ParityCheck>());
}

}  // namespace devparity
