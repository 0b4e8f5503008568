#pragma once
/// Registering a check from user code: register_check(), or
/// DEVPARITY_REGISTER_CHECK(Type), which registers a default-constructed
/// `Type` (a devparity::Check) at static-initialisation time, in an
/// executable, an OBJECT library or a plugin (as DEVPARITY_REGISTER_TRANSFORM,
/// subject/register.h; docs/extending.md).

#include "harness/base/registration.h"
#include "harness/checks/registry.h"

#include <memory>

namespace devparity {

/// Adds `check` to the process-wide registry. Never throws: a problem (a
/// null check, a name taken or reserved) is recorded and returned as false.
bool register_check(std::unique_ptr<Check> check) noexcept;

}  // namespace devparity

#define DEVPARITY_REGISTER_CHECK(Type) \
  DEVPARITY_REGISTER_AT_STARTUP(::devparity::register_check(std::make_unique<Type>()))
