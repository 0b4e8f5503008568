#include "harness/transforms/registry.h"

#include "harness/core/text.h"

#include <stdexcept>

namespace devparity {

TransformRegistry& TransformRegistry::global() {
  static TransformRegistry registry;
  return registry;
}

const Transform& TransformRegistry::add(std::unique_ptr<Transform> transform) {
  if (!transform) throw std::invalid_argument("cannot register a null transform");
  const std::string name = transform->info().name;
  if (!is_identifier(name)) {
    throw std::invalid_argument("transform name '" + name + "' is not an identifier ([A-Za-z0-9_])");
  }
  if (transforms_.count(name) != 0) {
    throw std::invalid_argument("transform '" + name + "' is already registered");
  }
  const Transform& ref = *transform;
  transforms_.emplace(name, std::move(transform));
  return ref;
}

const Transform* TransformRegistry::find(const std::string& name) const {
  const auto it = transforms_.find(name);
  return it == transforms_.end() ? nullptr : it->second.get();
}

std::vector<const Transform*> TransformRegistry::list() const {
  std::vector<const Transform*> out;
  for (const auto& entry : transforms_) out.push_back(entry.second.get());
  return out;
}

std::vector<std::string> TransformRegistry::names() const {
  std::vector<std::string> out;
  for (const auto& entry : transforms_) out.push_back(entry.first);
  return out;
}

}  // namespace devparity
