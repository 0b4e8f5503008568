#pragma once
/// The transforms devparity knows by name. Built-ins are added explicitly by
/// register_builtins(); user code may use DEVPARITY_REGISTER_TRANSFORM
/// (transforms/register.h) from an object library or an executable.

#include "harness/transforms/transform.h"

#include <map>
#include <memory>
#include <string>
#include <vector>

namespace devparity {

/// Name -> transform. Names are unique identifiers.
class TransformRegistry {
 public:
  /// The process-wide registry.
  static TransformRegistry& global();

  /// Adds a transform. Throws std::invalid_argument for a name that is not an
  /// identifier ([A-Za-z0-9_]) or that is already registered.
  const Transform& add(std::unique_ptr<Transform> transform);

  /// The transform called `name`, or nullptr.
  const Transform* find(const std::string& name) const;

  /// Every transform, sorted by name.
  std::vector<const Transform*> list() const;

  /// The registered names, sorted (for "unknown subject" messages).
  std::vector<std::string> names() const;

 private:
  std::map<std::string, std::unique_ptr<Transform>> transforms_;
};

}  // namespace devparity
