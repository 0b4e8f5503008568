#include "harness/run/run_modes.h"

#include "harness/base/error.h"

#include <fmt/format.h>

namespace devparity {

Placement parse_placement(const std::string& name, const std::string& what) {
  if (const auto p = value_named(kPlacementNames, name)) return *p;
  throw UsageError(fmt::format("{} '{}': expected one of {}", what, name, names_of(kPlacementNames)));
}

Isolation parse_isolation(const std::string& name, const std::string& what) {
  if (const auto i = value_named(kIsolationNames, name)) return *i;
  throw UsageError(fmt::format("{} '{}': expected trial or case", what, name));
}

}  // namespace devparity
