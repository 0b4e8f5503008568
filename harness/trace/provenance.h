#pragma once
/// Where host data came from (internal to trace/): the origin the tracer
/// records with each host storage, and the finding that blames its maker when
/// it meets device data or is handed back.

#include "harness/trace/finding.h"

#include <c10/core/Device.h>

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace devparity::tracing {

// Where host data came from, for the findings that blame its maker.
struct Origin {
  enum class Made { kDefaultFactory, kHostFactory, kCopiedHome, kKeptState, kUnknown } made = Made::kUnknown;
  std::string op;                   // the subject's op that made it; kKeptState: the attribute
  std::string source;
  std::string site;
  std::vector<std::string> scopes;
  bool declared = false;            // made inside a declared host hand-over: host data on purpose
  bool moved_module = true;         // kKeptState: its module was moved (Tracer::keep)
};

/// "made by aten::arange with no device at ramp.py:12", ...; empty when unknown.
std::string describe(const Origin& o);

/// The finding that blames the maker of host data that met device data (or
/// was returned): `what` says where it ended up; `left_on`, where kept state
/// was. None for an origin it cannot blame.
std::optional<Finding> origin_finding(const Origin& o, const c10::Device& target, const std::string& what,
                                      const c10::Device& left_on = c10::Device(c10::DeviceType::CPU));

}  // namespace devparity::tracing
