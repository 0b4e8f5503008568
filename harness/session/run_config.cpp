#include "harness/session/run_config.h"

#include "harness/base/error.h"

#include <fmt/format.h>

#include <filesystem>

namespace devparity {

std::string RunConfig::reporter_path(const std::string& name) const {
  for (const auto& r : reporters) {
    if (r.name == name) return r.path;
  }
  return "";
}

std::string RunConfig::artifacts_folder() const {
  return artifacts.empty() ? std::filesystem::path(report).stem().string() + "-artifacts" : artifacts;
}

Color parse_color(const std::string& name, const std::string& what) {
  if (const auto c = value_named(kColorNames, name)) return *c;
  throw UsageError(fmt::format("{} '{}': expected one of {}", what, name, names_of(kColorNames)));
}

}  // namespace devparity
