#include "harness/checks/registry.h"

#include "harness/checks/register.h"

#include <stdexcept>

namespace devparity {

CheckRegistry& CheckRegistry::global() {
  static CheckRegistry registry;
  return registry;
}

const Check& CheckRegistry::add(std::unique_ptr<Check> check) {
  if (!check) throw std::invalid_argument("cannot register a null check");
  const std::string name = check->name();
  if (name == "run") throw std::invalid_argument("check name 'run' is reserved for the runner");
  return NamedRegistry::add(name, std::move(check));
}

bool register_check(std::unique_ptr<Check> check) noexcept {
  return register_noexcept([&] { CheckRegistry::global().add(std::move(check)); });
}

}  // namespace devparity
