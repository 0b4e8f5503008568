#pragma once
/// Checks by name. Built-ins are added by register_builtins(); tests and user
/// code may add their own with CheckRegistry::global().add().

#include "harness/checks/check.h"

#include <map>
#include <memory>
#include <string>
#include <vector>

namespace devparity {

/// Name -> check.
class CheckRegistry {
 public:
  /// The process-wide registry.
  static CheckRegistry& global();
  /// Adds a check; throws std::invalid_argument on a bad or duplicate name.
  const Check& add(std::unique_ptr<Check> check);
  /// The check called `name`, or nullptr.
  const Check* find(const std::string& name) const;
  /// Every check, sorted by name.
  std::vector<const Check*> list() const;
  /// Registered names, sorted.
  std::vector<std::string> names() const;

 private:
  std::map<std::string, std::unique_ptr<Check>> checks_;
};

/// Adds the parity check (checks/parity.cpp).
void register_parity_check(CheckRegistry& registry);

}  // namespace devparity
