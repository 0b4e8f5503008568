#pragma once
/// Reading reports back (--baseline, diff, merge): the file is checked for
/// the fields those commands rely on, and a bad one is an InputError naming
/// the file, the position and the field.

#include "harness/model/results.h"

#include <nlohmann/json.hpp>

#include <map>
#include <set>
#include <string>
#include <vector>

namespace devparity {

/// Loads a report written by devparity, or rebuilds one from the
/// REPORT.partial log of a run that never finished (its summary marked
/// interrupted). Throws InputError when the file is unreadable, not JSON, of
/// another schema version, or lacks a result's id, status or checks.
nlohmann::json load_report(const std::string& path);

/// The same for the text of a report (or of a .partial log) named `path`.
nlohmann::json parse_report(const std::string& path, const std::string& text);

}  // namespace devparity
