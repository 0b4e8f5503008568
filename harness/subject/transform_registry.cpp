#include "harness/subject/transform_registry.h"

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

}  // namespace devparity

#include "harness/subject/register.h"

#include <mutex>

namespace devparity {
namespace {

std::mutex g_errors_mutex;
std::vector<std::string>& registration_errors() {
  static std::vector<std::string> errors;
  return errors;
}

}  // namespace

bool register_transform(std::unique_ptr<Transform> transform) noexcept {
  try {
    TransformRegistry::global().add(std::move(transform));
    return true;
  } catch (const std::exception& e) {
    try {
      std::lock_guard<std::mutex> lock(g_errors_mutex);
      registration_errors().push_back(e.what());
    } catch (...) {
    }
    return false;
  }
}

std::vector<std::string> take_registration_errors() {
  std::lock_guard<std::mutex> lock(g_errors_mutex);
  std::vector<std::string> out;
  out.swap(registration_errors());
  return out;
}

}  // namespace devparity
