#pragma once
/// Strict, typed reading of JSON objects (case files and subject params):
/// every accessor names what it expected, every field read is remembered, and
/// finish() rejects the fields nobody asked for.

#include <nlohmann/json_fwd.hpp>

#include <cstdint>
#include <limits>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

namespace devparity {

/// Reads one JSON object. Errors are FieldError with the field's pointer,
/// relative to what the reader was built with.
class ObjectReader {
 public:
  /// `value` must be an object (null reads as an empty object). `pointer` is
  /// the object's own JSON pointer, prefixed to every error.
  explicit ObjectReader(const nlohmann::json& value, std::string pointer = "");
  /// The reader keeps a pointer to the value: temporaries would dangle.
  ObjectReader(nlohmann::json&& value, std::string pointer = "") = delete;

  /// True when the field is present (and marks it as known).
  bool has(const std::string& key);
  /// The raw field, or nullptr when absent.
  const nlohmann::json* get(const std::string& key);
  /// The raw field; throws when absent.
  const nlohmann::json& require(const std::string& key, const std::string& expected);

  /// A string field, one of `choices` when not empty.
  std::string string(const std::string& key, std::optional<std::string> fallback,
                     const std::vector<std::string>& choices = {});
  /// A boolean field.
  bool boolean(const std::string& key, std::optional<bool> fallback);
  /// An integer field in [lo, hi].
  int64_t integer(const std::string& key, std::optional<int64_t> fallback,
                  int64_t lo = std::numeric_limits<int64_t>::min(),
                  int64_t hi = std::numeric_limits<int64_t>::max());
  /// A finite number in [lo, hi].
  double number(const std::string& key, std::optional<double> fallback,
                double lo = -std::numeric_limits<double>::max(),
                double hi = std::numeric_limits<double>::max());
  /// An array of integers in [lo, hi], with `count` elements when count > 0.
  std::vector<int64_t> integers(const std::string& key, size_t count, int64_t lo, int64_t hi);
  /// An array of finite numbers in [lo, hi], with `count` elements when count > 0.
  std::vector<double> numbers(const std::string& key, size_t count, double lo, double hi);
  /// An array of strings.
  std::vector<std::string> strings(const std::string& key);
  /// A number x, meaning (x, x), or a list of one (repeated) or two, each in
  /// [lo, hi]. Absent: `fallback`.
  std::pair<double, double> pair(const std::string& key, std::pair<double, double> fallback, double lo, double hi);

  /// Throws FieldError for the first field no accessor asked for.
  void finish() const;

  /// The pointer of a field of this object.
  std::string pointer(const std::string& key) const;
  /// The object being read.
  const nlohmann::json& value() const { return *value_; }

 private:
  const nlohmann::json* value_;
  std::string pointer_;
  std::set<std::string> known_;
};

/// Short description of a JSON value for messages: `"abc"`, `3.5`, `an object`.
std::string describe_json(const nlohmann::json& value);

/// Reads a number from a JSON value; throws FieldError at `pointer` otherwise.
double read_number(const nlohmann::json& value, const std::string& pointer, double lo, double hi);

/// Reads an integer in [lo, hi] (3.0 counts as 3); throws FieldError at
/// `pointer` otherwise, never converting a number out of range.
int64_t read_integer(const nlohmann::json& value, const std::string& pointer, int64_t lo, int64_t hi);

/// Reads an integer in [0, 2^64 - 1], as seeds are written; throws
/// FieldError at `pointer` otherwise.
uint64_t read_unsigned(const nlohmann::json& value, const std::string& pointer);

}  // namespace devparity
