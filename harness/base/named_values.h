#pragma once
/// Enums with names: one table per enum gives the name of each value, the
/// value of each name and the list of choices for messages, so that an
/// option's spelling is written once.

#include <optional>
#include <string>
#include <string_view>

namespace devparity {

template <typename E>
struct NamedValue {
  E value;
  const char* name;
};

/// The name of `value` in `table` ("" when the table lacks it).
template <typename E, size_t N>
const char* name_of(const NamedValue<E> (&table)[N], E value) {
  for (const auto& row : table) {
    if (row.value == value) return row.name;
  }
  return "";
}

/// The value named `name` in `table`, if any.
template <typename E, size_t N>
std::optional<E> value_named(const NamedValue<E> (&table)[N], std::string_view name) {
  for (const auto& row : table) {
    if (name == row.name) return row.value;
  }
  return std::nullopt;
}

/// "warn, strict, off": the table's names in order, for messages.
template <typename E, size_t N>
std::string names_of(const NamedValue<E> (&table)[N]) {
  std::string out;
  for (const auto& row : table) out += (out.empty() ? "" : ", ") + std::string(row.name);
  return out;
}

}  // namespace devparity
