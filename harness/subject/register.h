#pragma once
/// The public registration API for transforms written outside devparity:
/// register_transform(), or DEVPARITY_REGISTER_TRANSFORM(Type), which
/// registers a default-constructed `Type` (a devparity::Transform) at
/// static-initialisation time.
///
/// Use them in an executable, an OBJECT library, or a plugin (a shared
/// library loaded by `devparity run --plugin libmine.so`; see
/// examples/plugin). Static libraries drop object files nobody references,
/// taking such registrations with them. Built-ins are registered explicitly
/// in register_builtins() for that reason.

#include "harness/base/registration.h"
#include "harness/subject/transform_registry.h"

#include <memory>
#include <string>
#include <vector>

namespace devparity {

/// Adds `transform` to the process-wide registry. Never throws: a problem
/// (a null transform, a name already taken) is recorded (base/registration.h),
/// returned as false, and reported by whoever loads the plugin.
bool register_transform(std::unique_ptr<Transform> transform) noexcept;

}  // namespace devparity

#define DEVPARITY_REGISTER_TRANSFORM(Type) \
  DEVPARITY_REGISTER_AT_STARTUP(::devparity::register_transform(std::make_unique<Type>()))
