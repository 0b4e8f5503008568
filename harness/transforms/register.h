#pragma once
/// DEVPARITY_REGISTER_TRANSFORM(Type): registers a default-constructed `Type`
/// (a devparity::Transform) at static-initialisation time.
///
/// For user code and tests only. Static libraries drop object files nobody
/// references, taking such registrations with them: compile the file into the
/// executable or into an OBJECT library. Built-ins are registered explicitly
/// in register_builtins() for that reason.

#include "harness/transforms/registry.h"

#include <memory>

#define DEVPARITY_CONCAT_INNER(a, b) a##b
#define DEVPARITY_CONCAT(a, b) DEVPARITY_CONCAT_INNER(a, b)

#define DEVPARITY_REGISTER_TRANSFORM(Type)                                       \
  namespace {                                                                    \
  const ::devparity::Transform& DEVPARITY_CONCAT(devparity_registered_, __LINE__) = \
      ::devparity::TransformRegistry::global().add(std::make_unique<Type>());    \
  }
