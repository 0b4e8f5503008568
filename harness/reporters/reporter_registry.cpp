#include "harness/reporters/reporter_registry.h"

#include "harness/report/document.h"
#include "harness/reporters/register.h"

#include <stdexcept>

namespace devparity {

ReporterRegistry& ReporterRegistry::global() {
  static ReporterRegistry registry;
  return registry;
}

void ReporterRegistry::add(const std::string& name, const std::string& description,
                           ReporterFactory factory) {
  NamedRegistry::add(name, std::make_unique<ReporterEntry>(ReporterEntry{description, std::move(factory)}));
}

bool register_reporter(const std::string& name, const std::string& description, ReporterFactory factory) noexcept {
  return register_noexcept([&] { ReporterRegistry::global().add(name, description, std::move(factory)); });
}

std::unique_ptr<RunListener> ReporterRegistry::make(const std::string& name,
                                                    const ReporterOptions& options) const {
  const auto* entry = find(name);
  if (entry == nullptr) throw std::invalid_argument("no reporter called '" + name + "'");
  return entry->factory(options);
}

bool ReporterRegistry::write_report(const std::string& name, const ReporterOptions& options,
                                    const nlohmann::json& report) const {
  const auto reporter = make(name, options);
  auto* writer = dynamic_cast<ReportCollector*>(reporter.get());
  if (writer == nullptr) return false;
  writer->write(report);
  return true;
}

}  // namespace devparity
