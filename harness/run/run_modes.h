#pragma once
/// How a run judges placement and where its trials run, as types; the names
/// are the options' values (--placement, --isolate) and the report's.

#include "harness/base/named_values.h"

#include <string>

namespace devparity {

/// --placement.
enum class Placement {
  kWarn,    ///< placement errors fail, warnings are reported (a case may ask for strict)
  kStrict,  ///< placement warnings fail too, in every case
  kOff,     ///< no op tracing: the placement check is skipped
};

/// --isolate: what one worker process runs.
enum class Isolation {
  kNone,   ///< every trial in this process
  kTrial,  ///< one trial per worker
  kCase,   ///< one case per worker
};

inline constexpr NamedValue<Placement> kPlacementNames[] = {
    {Placement::kWarn, "warn"}, {Placement::kStrict, "strict"}, {Placement::kOff, "off"}};
inline constexpr NamedValue<Isolation> kIsolationNames[] = {
    {Isolation::kNone, ""}, {Isolation::kTrial, "trial"}, {Isolation::kCase, "case"}};

/// The placement mode `name`; throws UsageError "`what` 'name': expected warn, strict or off".
Placement parse_placement(const std::string& name, const std::string& what);
/// The isolation `name` ("" is none); throws UsageError as parse_placement.
Isolation parse_isolation(const std::string& name, const std::string& what);

}  // namespace devparity
