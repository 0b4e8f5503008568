#include "harness/base/json_reader.h"

#include "harness/base/error.h"
#include "harness/base/json_source.h"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>

namespace devparity {
namespace {

std::string range_text(double lo, double hi) {
  const bool has_lo = lo > -std::numeric_limits<double>::max();
  const bool has_hi = hi < std::numeric_limits<double>::max();
  if (has_lo && has_hi) return fmt::format(" in [{}, {}]", lo, hi);
  if (has_lo) return fmt::format(" >= {}", lo);
  if (has_hi) return fmt::format(" <= {}", hi);
  return "";
}

std::string range_text(int64_t lo, int64_t hi) {
  const bool has_lo = lo > std::numeric_limits<int64_t>::min();
  const bool has_hi = hi < std::numeric_limits<int64_t>::max();
  if (has_lo && has_hi) return fmt::format(" in [{}, {}]", lo, hi);
  if (has_lo) return fmt::format(" >= {}", lo);
  if (has_hi) return fmt::format(" <= {}", hi);
  return "";
}

}  // namespace

int64_t read_integer(const nlohmann::json& v, const std::string& ptr, int64_t lo, int64_t hi) {
  bool ok = v.is_number_integer();
  int64_t out = 0;
  if (ok) {
    if (v.is_number_unsigned() && v.get<uint64_t>() > static_cast<uint64_t>(INT64_MAX)) {
      ok = false;
    } else {
      out = v.get<int64_t>();
    }
  } else if (v.is_number_float()) {
    // 3.0 is accepted as 3; 3.5 is not an integer.
    const double d = v.get<double>();
    ok = std::isfinite(d) && std::floor(d) == d && std::fabs(d) < 9e15;
    if (ok) out = static_cast<int64_t>(d);  // only in range: the conversion is undefined otherwise
  }
  if (!ok || out < lo || out > hi) {
    throw FieldError(ptr, fmt::format("expected an integer{}, got {}", range_text(lo, hi),
                                      describe_json(v)));
  }
  return out;
}

uint64_t read_unsigned(const nlohmann::json& v, const std::string& ptr) {
  if (v.is_number_unsigned()) return v.get<uint64_t>();
  if (v.is_number_integer() && v.get<int64_t>() >= 0) return static_cast<uint64_t>(v.get<int64_t>());
  throw FieldError(ptr, fmt::format("expected an integer in [0, 2^64 - 1], got {}", describe_json(v)));
}

std::string describe_json(const nlohmann::json& value) {
  if (value.is_object()) return "an object";
  if (value.is_array()) return fmt::format("an array of {} element(s)", value.size());
  if (value.is_null()) return "null";
  std::string text = value.dump();
  if (text.size() > 40) text = text.substr(0, 37) + "...";
  return text;
}

double read_number(const nlohmann::json& v, const std::string& ptr, double lo, double hi) {
  if (!v.is_number() || !std::isfinite(v.get<double>()) || v.get<double>() < lo ||
      v.get<double>() > hi) {
    throw FieldError(ptr, fmt::format("expected a number{}, got {}", range_text(lo, hi),
                                      describe_json(v)));
  }
  return v.get<double>();
}

ObjectReader::ObjectReader(const nlohmann::json& value, std::string pointer)
    : value_(&value), pointer_(std::move(pointer)) {
  if (!value.is_object() && !value.is_null()) {
    throw FieldError(pointer_, fmt::format("expected an object, got {}", describe_json(value)));
  }
}

std::string ObjectReader::pointer(const std::string& key) const {
  return pointer_append(pointer_, key);
}

bool ObjectReader::has(const std::string& key) { return get(key) != nullptr; }

const nlohmann::json* ObjectReader::get(const std::string& key) {
  known_.insert(key);
  if (!value_->is_object()) return nullptr;
  const auto it = value_->find(key);
  return it == value_->end() ? nullptr : &*it;
}

const nlohmann::json& ObjectReader::require(const std::string& key, const std::string& expected) {
  const auto* v = get(key);
  if (v == nullptr) {
    throw FieldError(pointer_, fmt::format("missing required field '{}' ({})", key, expected));
  }
  return *v;
}

std::string ObjectReader::string(const std::string& key, std::optional<std::string> fallback,
                                 const std::vector<std::string>& choices) {
  const auto* v = get(key);
  const std::string expected =
      choices.empty() ? "a string" : fmt::format("one of \"{}\"", fmt::join(choices, "\", \""));
  if (v == nullptr) {
    if (fallback) return *fallback;
    throw FieldError(pointer_, fmt::format("missing required field '{}' ({})", key, expected));
  }
  if (!v->is_string() ||
      (!choices.empty() &&
       std::find(choices.begin(), choices.end(), v->get<std::string>()) == choices.end())) {
    throw FieldError(pointer(key), fmt::format("expected {}, got {}", expected, describe_json(*v)));
  }
  return v->get<std::string>();
}

bool ObjectReader::boolean(const std::string& key, std::optional<bool> fallback) {
  const auto* v = get(key);
  if (v == nullptr) {
    if (fallback) return *fallback;
    throw FieldError(pointer_, fmt::format("missing required field '{}' (true or false)", key));
  }
  if (!v->is_boolean()) {
    throw FieldError(pointer(key), fmt::format("expected true or false, got {}", describe_json(*v)));
  }
  return v->get<bool>();
}

int64_t ObjectReader::integer(const std::string& key, std::optional<int64_t> fallback, int64_t lo,
                              int64_t hi) {
  const auto* v = get(key);
  if (v == nullptr) {
    if (fallback) return *fallback;
    throw FieldError(pointer_, fmt::format("missing required field '{}' (an integer{})", key,
                                           range_text(lo, hi)));
  }
  return read_integer(*v, pointer(key), lo, hi);
}

double ObjectReader::number(const std::string& key, std::optional<double> fallback, double lo,
                            double hi) {
  const auto* v = get(key);
  if (v == nullptr) {
    if (fallback) return *fallback;
    throw FieldError(pointer_, fmt::format("missing required field '{}' (a number{})", key,
                                           range_text(lo, hi)));
  }
  return read_number(*v, pointer(key), lo, hi);
}

namespace {

// An array of `count` (or, with 0, one or more) elements, each read by
// read_one(value, pointer, lo, hi).
template <typename T, typename ReadOne>
std::vector<T> read_array(const nlohmann::json& v, const std::string& ptr, size_t count,
                          const char* noun, T lo, T hi, ReadOne read_one) {
  if (!v.is_array() || (count > 0 && v.size() != count) || v.empty()) {
    throw FieldError(ptr, fmt::format("expected an array of {} {}{}, got {}",
                                      count ? std::to_string(count) : std::string("one or more"),
                                      noun, range_text(lo, hi), describe_json(v)));
  }
  std::vector<T> out;
  for (size_t i = 0; i < v.size(); ++i) out.push_back(read_one(v[i], ptr + "/" + std::to_string(i), lo, hi));
  return out;
}

}  // namespace

std::vector<int64_t> ObjectReader::integers(const std::string& key, size_t count, int64_t lo,
                                            int64_t hi) {
  const auto& v = require(key, "an array of integers");
  return read_array<int64_t>(v, pointer(key), count, "integers", lo, hi, read_integer);
}

std::vector<double> ObjectReader::numbers(const std::string& key, size_t count, double lo,
                                          double hi) {
  const auto& v = require(key, "an array of numbers");
  return read_array<double>(v, pointer(key), count, "numbers", lo, hi, read_number);
}

std::pair<double, double> ObjectReader::pair(const std::string& key, std::pair<double, double> fallback, double lo,
                                             double hi) {
  const auto* v = get(key);
  if (v == nullptr) return fallback;
  if (v->is_number()) {
    const double x = number(key, std::nullopt, lo, hi);
    return {x, x};
  }
  const auto values = numbers(key, 0, lo, hi);
  if (values.size() == 1) return {values[0], values[0]};
  if (values.size() != 2) throw FieldError(pointer(key), "expected a number or [x, y]");
  return {values[0], values[1]};
}

std::vector<std::string> ObjectReader::strings(const std::string& key) {
  const auto& v = require(key, "an array of strings");
  if (!v.is_array()) {
    throw FieldError(pointer(key), fmt::format("expected an array of strings, got {}",
                                               describe_json(v)));
  }
  std::vector<std::string> out;
  for (size_t i = 0; i < v.size(); ++i) {
    if (!v[i].is_string()) {
      throw FieldError(pointer(key) + "/" + std::to_string(i),
                       fmt::format("expected a string, got {}", describe_json(v[i])));
    }
    out.push_back(v[i].get<std::string>());
  }
  return out;
}

void ObjectReader::finish() const {
  if (!value_->is_object()) return;
  for (const auto& item : value_->items()) {
    if (known_.count(item.key()) == 0) {
      throw FieldError(pointer(item.key()),
                       fmt::format("unknown field '{}' (known: {})", item.key(),
                                   fmt::join(known_, ", ")),
                       /*at_key=*/true);
    }
  }
}

}  // namespace devparity
