#include "harness/base/dtype.h"

#include "harness/base/error.h"
#include "harness/base/text.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>

namespace devparity {
namespace {

struct DtypeName {
  const char* name;
  c10::ScalarType type;
};

const DtypeName kNames[] = {
    {"uint8", c10::ScalarType::Byte},     {"int8", c10::ScalarType::Char},
    {"int16", c10::ScalarType::Short},    {"int32", c10::ScalarType::Int},
    {"int64", c10::ScalarType::Long},     {"float16", c10::ScalarType::Half},
    {"bfloat16", c10::ScalarType::BFloat16}, {"float32", c10::ScalarType::Float},
    {"float64", c10::ScalarType::Double}, {"bool", c10::ScalarType::Bool},
};

const DtypeName kAliases[] = {
    {"byte", c10::ScalarType::Byte},   {"float", c10::ScalarType::Float},
    {"double", c10::ScalarType::Double}, {"half", c10::ScalarType::Half},
};

}  // namespace

std::string dtype_name(c10::ScalarType type) {
  for (const auto& entry : kNames) {
    if (entry.type == type) return entry.name;
  }
  return c10::toString(type);
}

std::optional<c10::ScalarType> parse_dtype(const std::string& name) {
  for (const auto& entry : kNames) {
    if (name == entry.name) return entry.type;
  }
  for (const auto& entry : kAliases) {
    if (name == entry.name) return entry.type;
  }
  return std::nullopt;
}

const std::vector<c10::ScalarType>& known_dtypes() {
  // The dtypes input generation and comparison support; a transform declares
  // which of them it runs.
  static const std::vector<c10::ScalarType> types = {
      c10::ScalarType::Byte, c10::ScalarType::Half, c10::ScalarType::BFloat16, c10::ScalarType::Float,
      c10::ScalarType::Double};
  return types;
}

std::string known_dtype_names() {
  std::vector<std::string> names;
  for (auto known : known_dtypes()) names.push_back(dtype_name(known));
  return fmt::format("{}", fmt::join(names, ", "));
}

std::vector<c10::ScalarType> parse_dtype_list(const std::string& text) {
  std::vector<c10::ScalarType> out;
  for (const auto& token : split(text, ',')) {
    if (token == "all") {
      for (auto type : known_dtypes()) {
        if (std::find(out.begin(), out.end(), type) == out.end()) out.push_back(type);
      }
      continue;
    }
    const auto type = parse_dtype(token);
    if (!type || std::find(known_dtypes().begin(), known_dtypes().end(), *type) ==
                     known_dtypes().end()) {
      throw UsageError(fmt::format("unknown dtype '{}' (known: {}, all)", token, known_dtype_names()));
    }
    if (std::find(out.begin(), out.end(), *type) == out.end()) out.push_back(*type);
  }
  if (out.empty()) throw UsageError("empty dtype list");
  return out;
}

bool is_floating(c10::ScalarType type) { return c10::isFloatingType(type); }

bool is_half_precision(c10::ScalarType type) {
  return type == c10::ScalarType::Half || type == c10::ScalarType::BFloat16;
}

}  // namespace devparity
