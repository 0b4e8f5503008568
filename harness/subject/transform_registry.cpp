#include "harness/subject/transform_registry.h"

#include "harness/subject/register.h"

#include <stdexcept>

namespace devparity {

TransformRegistry& TransformRegistry::global() {
  static TransformRegistry registry;
  return registry;
}

const Transform& TransformRegistry::add(std::unique_ptr<Transform> transform) {
  if (!transform) throw std::invalid_argument("cannot register a null transform");
  const std::string name = transform->info().name;
  return NamedRegistry::add(name, std::move(transform));
}

bool register_transform(std::unique_ptr<Transform> transform) noexcept {
  return register_noexcept([&] { TransformRegistry::global().add(std::move(transform)); });
}

}  // namespace devparity
