#pragma once
/// The transforms devparity knows by name. Built-ins are added explicitly by
/// register_builtins(); user code may use DEVPARITY_REGISTER_TRANSFORM
/// (subject/register.h) from an object library or an executable.

#include "harness/base/named_registry.h"
#include "harness/subject/transform.h"

#include <memory>

namespace devparity {

/// Name -> transform; the name is the transform's info().name.
class TransformRegistry : public NamedRegistry<Transform> {
 public:
  TransformRegistry() : NamedRegistry("transform") {}
  /// The process-wide registry.
  static TransformRegistry& global();
  /// Adds a transform under its own name (see NamedRegistry::add).
  const Transform& add(std::unique_ptr<Transform> transform);
};

}  // namespace devparity
