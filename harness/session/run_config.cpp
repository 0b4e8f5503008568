#include "harness/session/run_config.h"

#include "harness/base/dtype.h"
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

std::string RunConfig::report_folder() const { return std::filesystem::path(report).parent_path().string(); }

std::vector<std::string> RunConfig::dtype_names() const {
  std::vector<std::string> out;
  if (plan.dtypes) {
    for (auto t : *plan.dtypes) out.push_back(dtype_name(t));
  }
  return out;
}

std::string RunConfig::artifacts_folder() const {
  return artifacts.empty() ? std::filesystem::path(report).stem().string() + "-artifacts" : artifacts;
}

Color parse_color(const std::string& name, const std::string& what) {
  if (const auto c = value_named(kColorNames, name)) return *c;
  throw UsageError(fmt::format("{} '{}': expected one of {}", what, name, names_of(kColorNames)));
}

}  // namespace devparity
