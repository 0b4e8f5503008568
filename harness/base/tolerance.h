#pragma once
/// Tolerance policies: per-dtype defaults, and case overrides that must carry
/// their reason (the report repeats it).

#include <c10/core/ScalarType.h>
#include <nlohmann/json_fwd.hpp>

#include <string>

namespace devparity {

/// The default distance from a rounding boundary, in the output's units,
/// within which a +-1 difference of an integer output is a rounding tie. Over
/// the default suite's resize_strategy_cross every +-1 already lies within
/// fixed point's own error bound (4.9e-4 for bilinear); 1e-3 is that order,
/// and a thousandth of a level is far below any real difference.
constexpr double kDefaultTieEpsilon = 1e-3;

/// When an output element matches its reference: |out - ref| <= atol + rtol * |ref|.
/// A case may allow a fraction of elements outside that, but only within a
/// second bound it states (outlier_atol): nothing is allowed to differ by any
/// amount. For integer outputs whose reference noted its values before
/// rounding, a +-1 difference at a rounding tie (the unrounded value within
/// tie_epsilon, plus the reference's own error bound, of the boundary between
/// the two integers) is a rounding tie: counted, never a mismatch.
struct Tolerance {
  double atol = 0.0;               ///< absolute part
  double rtol = 0.0;               ///< relative part
  double mismatch_fraction = 0.0;  ///< fraction of elements allowed outside, in [0, 1]
  double outlier_atol = 0.0;       ///< the bound on |diff| for those (given with a fraction)
  double tie_epsilon = kDefaultTieEpsilon;  ///< rounding ties: distance from the boundary
  /// Note [Intermediate rounding]: whether a +-1 that the reference's own
  /// intermediate rounding explains is allowed (it is always counted).
  bool excuse_intermediate_rounding = false;
  std::string reason;              ///< why an override differs from the default
  bool is_default = true;          ///< false when a case overrode it

  /// "|diff| <= 1e-05 + 1.3e-06*|ref| for float32 (default: torch.testing.assert_close)".
  std::string describe(c10::ScalarType dtype) const;
  /// The policy as written in reports.
  nlohmann::json to_json() const;
};

/// The default for a dtype: float dtypes as torch.testing.assert_close
/// (float32: rtol 1.3e-6, atol 1e-5), integers exact.
Tolerance default_tolerance(c10::ScalarType dtype);

/// The default for a row run under autocast in `lower` (float16 or bfloat16) against a
/// reference made outside it (Note [Autocast tolerance]).
Tolerance autocast_tolerance(c10::ScalarType lower);

/// Resolves a check's tri-state setting for one dtype: `true` gives the
/// default; an object overrides it, either for every dtype
/// ({"atol": 1, "reason": "..."}) or per dtype ({"uint8": {...}, "float32": {...}}).
/// Fields: atol, rtol, mismatch_fraction with outlier_atol (both or neither;
/// outlier_atol >= atol), tie_epsilon (in [0, 0.5)), excuse_intermediate_rounding,
/// reason (required). Throws FieldError
/// with the field's pointer (relative to `setting`).
Tolerance resolve_tolerance(const nlohmann::json& setting, c10::ScalarType dtype);

/// Validates a tolerance setting for every dtype without resolving it.
void validate_tolerance(const nlohmann::json& setting);

}  // namespace devparity
