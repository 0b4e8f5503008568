#include "harness/report/reporter_registry.h"

#include "harness/core/text.h"

#include <stdexcept>

namespace devparity {

ReporterRegistry& ReporterRegistry::global() {
  static ReporterRegistry registry;
  return registry;
}

void ReporterRegistry::add(const std::string& name, const std::string& description,
                           ReporterFactory factory) {
  if (!is_identifier(name)) throw std::invalid_argument("reporter name '" + name + "' is not allowed");
  if (reporters_.count(name) != 0) {
    throw std::invalid_argument("reporter '" + name + "' is already registered");
  }
  reporters_.emplace(name, Entry{description, std::move(factory)});
}

std::unique_ptr<RunListener> ReporterRegistry::make(const std::string& name,
                                                    const ReporterOptions& options) const {
  const auto it = reporters_.find(name);
  if (it == reporters_.end()) throw std::invalid_argument("no reporter called '" + name + "'");
  return it->second.factory(options);
}

std::map<std::string, std::string> ReporterRegistry::descriptions() const {
  std::map<std::string, std::string> out;
  for (const auto& [name, entry] : reporters_) out[name] = entry.description;
  return out;
}

}  // namespace devparity
