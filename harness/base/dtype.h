#pragma once
/// Dtype names as written in case files, reports and on the command line
/// (numpy spelling: uint8, float32, ...).

#include <c10/core/ScalarType.h>

#include <optional>
#include <string>
#include <vector>

namespace devparity {

/// The name of a dtype: "uint8", "float32", ...
std::string dtype_name(c10::ScalarType type);

/// Parses a dtype name; nullopt when unknown. Accepts numpy names and the
/// aliases "float" (float32), "double" (float64), "half" (float16), "byte" (uint8).
std::optional<c10::ScalarType> parse_dtype(const std::string& name);

/// Every dtype devparity knows how to generate inputs for and compare.
const std::vector<c10::ScalarType>& known_dtypes();

/// "uint8, float16, bfloat16, float32, float64": known_dtypes() for messages and help.
std::string known_dtype_names();

/// Parses a comma-separated list ("uint8,float32", or "all" for known_dtypes()).
/// Throws UsageError naming the bad token.
std::vector<c10::ScalarType> parse_dtype_list(const std::string& text);

/// True for float16/bfloat16/float32/float64.
bool is_floating(c10::ScalarType type);

/// True for float16 and bfloat16 (docs/half-precision.md).
bool is_half_precision(c10::ScalarType type);

}  // namespace devparity
