#pragma once
/// Tolerance policies: per-dtype defaults, and case overrides that must carry
/// their reason (the report repeats it).

#include <c10/core/ScalarType.h>
#include <nlohmann/json_fwd.hpp>

#include <string>

namespace devparity {

/// When an output element matches its reference: |out - ref| <= atol + rtol * |ref|.
struct Tolerance {
  double atol = 0.0;               ///< absolute part
  double rtol = 0.0;               ///< relative part
  double mismatch_fraction = 0.0;  ///< fraction of elements allowed outside, in [0, 1]
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

/// Resolves a check's tri-state setting for one dtype: `true` gives the
/// default; an object overrides it, either for every dtype
/// ({"atol": 1, "reason": "..."}) or per dtype ({"uint8": {...}, "float32": {...}}).
/// Fields: atol, rtol, mismatch_fraction, reason (required). Throws FieldError
/// with the field's pointer (relative to `setting`).
Tolerance resolve_tolerance(const nlohmann::json& setting, c10::ScalarType dtype);

/// Validates a tolerance setting for every dtype without resolving it.
void validate_tolerance(const nlohmann::json& setting);

}  // namespace devparity
