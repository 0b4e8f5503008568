#include "harness/base/tolerance.h"

#include "harness/base/dtype.h"
#include "harness/base/error.h"
#include "harness/base/json_reader.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

namespace devparity {
namespace {

bool keyed_by_dtype(const nlohmann::json& setting) {
  for (const auto& item : setting.items()) {
    if (parse_dtype(item.key())) return true;
  }
  return false;
}

Tolerance read_override(const nlohmann::json& value, const std::string& pointer,
                        c10::ScalarType dtype) {
  ObjectReader reader(value, pointer);
  Tolerance t = default_tolerance(dtype);
  t.atol = reader.number("atol", t.atol, 0.0);
  t.rtol = reader.number("rtol", t.rtol, 0.0);
  t.mismatch_fraction = reader.number("mismatch_fraction", 0.0, 0.0, 1.0);
  const bool has_fraction = value.contains("mismatch_fraction") && t.mismatch_fraction > 0.0;
  const bool has_bound = value.contains("outlier_atol");
  t.outlier_atol = reader.number("outlier_atol", t.atol, t.atol);
  t.tie_epsilon = reader.number("tie_epsilon", t.tie_epsilon, 0.0, 0.5);
  t.excuse_intermediate_rounding = reader.boolean("excuse_intermediate_rounding", false);
  t.reason = reader.string("reason", std::string());
  reader.finish();
  if (has_fraction && !has_bound) {
    throw FieldError(pointer + "/mismatch_fraction",
                     "a mismatch_fraction needs \"outlier_atol\", the largest |diff| those elements may "
                     "have: without it they could differ by any amount");
  }
  if (has_bound && !has_fraction) {
    throw FieldError(pointer + "/outlier_atol",
                     "outlier_atol bounds the elements a mismatch_fraction allows; give a "
                     "mismatch_fraction above 0 with it, or raise atol instead");
  }
  if (t.tie_epsilon >= 0.5) {
    throw FieldError(pointer + "/tie_epsilon", "tie_epsilon must be below 0.5: every value is within 0.5 of a boundary");
  }
  if (t.reason.empty()) {
    throw FieldError(pointer, "a tolerance override needs a non-empty \"reason\" saying why the "
                              "default does not apply");
  }
  t.is_default = false;
  return t;
}

}  // namespace

// Note [Half precision tolerance]
// assert_close's half precision atol (1e-5) is far below the spacing of the format at 1
// (2^-10 for float16, 2^-7 for bfloat16), and an image transform's intermediate values are of
// that order: a result rounded after each op (a GPU's) and one rounded once at the end (Note
// [Half precision reference]) part by units of that spacing wherever a value near 0 was computed
// from values near 1 (x - mean, a blend, a sampled sum). The default is therefore two units of
// the spacing at 1, absolute and relative: one rounding of an intermediate value of order 1 on
// each side. Measured on the default suite (docs/checks.md): vdev's op-by-op float32 round
// trips against the whole-transform round trip stay within it.
constexpr double kFloat16Spacing = 0x1p-10;
constexpr double kBFloat16Spacing = 0x1p-7;

// `units` of a half precision dtype's spacing at 1, absolute and relative, for `why`.
Tolerance units_of_spacing(c10::ScalarType dtype, int units, const std::string& why) {
  Tolerance t;
  t.rtol = t.atol = units * (dtype == c10::ScalarType::Half ? kFloat16Spacing : kBFloat16Spacing);
  t.reason = fmt::format("{} units of {}'s spacing at 1, absolute and relative: {}", units, dtype_name(dtype), why);
  return t;
}

// Note [Autocast tolerance]
// Under autocast (Note [Autocast rows]) every op after the first lowered one computes in the
// lower precision, since its input now is, so a pipeline rounds once per op and what follows
// scales those roundings (normalize's 1/std: x4.4). Against its float32 reference a four-op
// torchvision pipeline (blur, contrast, grayscale, normalize) used up to 98% of the two-unit
// half default in bfloat16 over 30 seeds (tests/python/test_autocast.py); the autocast default
// is four units. A catastrophe of the lower precision (an overflow, a cancellation) is off by
// far more: the seeded fault's rows miss by ~100 units.
Tolerance autocast_tolerance(c10::ScalarType lower) {
  return units_of_spacing(lower, 4, "under autocast every op after the first lowered one rounds in it");
}

Tolerance default_tolerance(c10::ScalarType dtype) {
  // torch.testing.assert_close's _DTYPE_PRECISIONS (rtol, atol) but half precision's (above);
  // other dtypes exact.
  if (is_half_precision(dtype)) return units_of_spacing(dtype, 2, "an intermediate rounding on each side");
  Tolerance t;
  switch (dtype) {
    case c10::ScalarType::Float: t.rtol = 1.3e-6; t.atol = 1e-5; break;
    case c10::ScalarType::Double: t.rtol = 1e-7; t.atol = 1e-7; break;
    default: break;
  }
  return t;
}

std::string Tolerance::describe(c10::ScalarType dtype) const {
  std::string rule;
  if (atol == 0.0 && rtol == 0.0) {
    rule = "exact match";
  } else if (rtol == 0.0) {
    rule = fmt::format("|diff| <= {:g}", atol);
  } else {
    rule = fmt::format("|diff| <= {:g} + {:g}*|ref|", atol, rtol);
  }
  if (mismatch_fraction > 0.0) {
    rule += fmt::format(", and |diff| <= {:g} for up to {:g}% of elements", outlier_atol,
                        mismatch_fraction * 100.0);
  }
  if (excuse_intermediate_rounding) rule += ", +-1 from the reference's intermediate rounding allowed";
  std::string origin = "override: " + reason;
  if (is_default) {
    origin = !reason.empty() ? "default: " + reason
             : is_floating(dtype) ? "default: torch.testing.assert_close"
                                  : "default";
  }
  return fmt::format("{} for {} ({})", rule, dtype_name(dtype), origin);
}

nlohmann::json Tolerance::to_json() const {
  nlohmann::json out = {{"atol", atol}, {"rtol", rtol}, {"mismatch_fraction", mismatch_fraction},
                        {"default", is_default}};
  if (mismatch_fraction > 0.0) out["outlier_atol"] = outlier_atol;
  out["tie_epsilon"] = tie_epsilon;
  if (excuse_intermediate_rounding) out["excuse_intermediate_rounding"] = true;
  if (!reason.empty()) out["reason"] = reason;
  return out;
}

Tolerance resolve_tolerance(const nlohmann::json& setting, c10::ScalarType dtype) {
  if (setting.is_boolean() || setting.is_null()) return default_tolerance(dtype);
  if (!setting.is_object()) {
    throw FieldError("", fmt::format("expected true, false or a tolerance object, got {}",
                                     describe_json(setting)));
  }
  if (!keyed_by_dtype(setting)) return read_override(setting, "", dtype);
  for (const auto& item : setting.items()) {
    if (!parse_dtype(item.key())) {
      throw FieldError("/" + item.key(),
                       fmt::format("'{}' is not a dtype; give either one tolerance for all "
                                   "dtypes or one per dtype name",
                                   item.key()),
                       /*at_key=*/true);
    }
  }
  const auto it = setting.find(dtype_name(dtype));
  if (it == setting.end()) return default_tolerance(dtype);
  return read_override(*it, "/" + dtype_name(dtype), dtype);
}

void validate_tolerance(const nlohmann::json& setting) {
  for (auto dtype : known_dtypes()) resolve_tolerance(setting, dtype);
  if (setting.is_object() && keyed_by_dtype(setting)) {
    for (const auto& item : setting.items()) {
      resolve_tolerance(setting, *parse_dtype(item.key()));
    }
  }
}

}  // namespace devparity
