#pragma once
/// NamedRegistry<T>: name -> owned T, the storage behind the transform, check
/// and reporter registries. Names are identifiers ([A-Za-z0-9_]) so that they
/// also work in result ids and test names; duplicates are rejected
/// (Catch2's reporter registry rule).

#include "harness/base/text.h"

#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

namespace devparity {

template <typename T>
class NamedRegistry {
 public:
  /// `kind` names the entries in error messages ("transform", "check").
  explicit NamedRegistry(std::string kind) : kind_(std::move(kind)) {}

  /// Adds an entry. Throws std::invalid_argument for a null entry, a name
  /// that is not an identifier, or a name already taken.
  const T& add(const std::string& name, std::unique_ptr<T> item) {
    if (!item) throw std::invalid_argument("cannot register a null " + kind_);
    if (!is_identifier(name)) {
      throw std::invalid_argument(kind_ + " name '" + name + "' is not an identifier ([A-Za-z0-9_])");
    }
    if (items_.count(name) != 0) {
      throw std::invalid_argument(kind_ + " '" + name + "' is already registered");
    }
    const T& ref = *item;
    items_.emplace(name, std::move(item));
    return ref;
  }

  /// The entry called `name`, or nullptr.
  const T* find(const std::string& name) const {
    const auto it = items_.find(name);
    return it == items_.end() ? nullptr : it->second.get();
  }

  /// Every entry, sorted by name.
  std::vector<const T*> list() const {
    std::vector<const T*> out;
    for (const auto& entry : items_) out.push_back(entry.second.get());
    return out;
  }

  /// The registered names, sorted (for "unknown name" messages).
  std::vector<std::string> names() const {
    std::vector<std::string> out;
    for (const auto& entry : items_) out.push_back(entry.first);
    return out;
  }

 private:
  std::string kind_;
  std::map<std::string, std::unique_ptr<T>> items_;
};

}  // namespace devparity
