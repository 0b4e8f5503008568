#include "harness/checks/registry.h"

#include "harness/core/text.h"

#include <stdexcept>

namespace devparity {

CheckRegistry& CheckRegistry::global() {
  static CheckRegistry registry;
  return registry;
}

const Check& CheckRegistry::add(std::unique_ptr<Check> check) {
  if (!check) throw std::invalid_argument("cannot register a null check");
  const std::string name = check->name();
  // "run" is the runner's own verdict on execution; no check may take it.
  if (!is_identifier(name) || name == "run") {
    throw std::invalid_argument("check name '" + name + "' is not allowed");
  }
  if (checks_.count(name) != 0) {
    throw std::invalid_argument("check '" + name + "' is already registered");
  }
  const Check& ref = *check;
  checks_.emplace(name, std::move(check));
  return ref;
}

const Check* CheckRegistry::find(const std::string& name) const {
  const auto it = checks_.find(name);
  return it == checks_.end() ? nullptr : it->second.get();
}

std::vector<const Check*> CheckRegistry::list() const {
  std::vector<const Check*> out;
  for (const auto& entry : checks_) out.push_back(entry.second.get());
  return out;
}

std::vector<std::string> CheckRegistry::names() const {
  std::vector<std::string> out;
  for (const auto& entry : checks_) out.push_back(entry.first);
  return out;
}

}  // namespace devparity
