#pragma once
/// Checks by name. Built-ins are added by register_builtins(); tests and user
/// code may add their own with CheckRegistry::global().add().

#include "harness/base/named_registry.h"
#include "harness/checks/check.h"

#include <memory>

namespace devparity {

/// Name -> check; the name is the check's name().
class CheckRegistry : public NamedRegistry<Check> {
 public:
  CheckRegistry() : NamedRegistry("check") {}
  /// The process-wide registry.
  static CheckRegistry& global();
  /// Adds a check under its own name. "run", the runner's own verdict on
  /// execution, is reserved.
  const Check& add(std::unique_ptr<Check> check);
};

/// Adds the parity check (checks/parity.cpp).
void register_parity_check(CheckRegistry& registry);
/// Adds the gradient check (checks/gradient.cpp).
void register_gradient_check(CheckRegistry& registry);
/// Adds the placement check (checks/placement.cpp).
void register_placement_check(CheckRegistry& registry);
/// Adds the jpeg check (checks/jpeg.cpp).
void register_jpeg_check(CheckRegistry& registry);
/// Adds the stress check (checks/stress.cpp).
void register_stress_check(CheckRegistry& registry);

}  // namespace devparity
