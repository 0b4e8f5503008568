#pragma once
/// Reading reports back (--baseline, diff, merge): the file is checked for
/// the fields those commands rely on, and a bad one is an InputError naming
/// the file, the position and the field.

#include "harness/model/results.h"

#include <nlohmann/json.hpp>

#include <functional>
#include <map>
#include <set>
#include <string>
#include <vector>

namespace devparity {

/// Each result in full as the reader checks it, with what it says parsed.
using CheckedResultSink = std::function<void(nlohmann::json result, const TrialResult& parsed)>;

/// Reads a report written by devparity, in the form it was written (schema 1,
/// or 2 packed: Note [Packed report]; for_each_result() reads either), or
/// rebuilds one from the REPORT.partial log of a run that never finished (its
/// summary marked interrupted). Throws InputError naming the file, the
/// position and the field when it is unreadable, not JSON, of another schema
/// version, or a result lacks its id, status or checks. Each result, checked,
/// goes to `sink` if given: the check unpacks every result anyway, so a reader
/// that wants them all in full (diff's digest, merge) gets them in that pass.
nlohmann::json read_report(const std::string& path, const CheckedResultSink& sink = {});

/// read_report() with every result in full under "results" (unpack_report()).
nlohmann::json load_report(const std::string& path);

/// read_report() for the text of a report (or of a .partial log) named `path`.
nlohmann::json parse_report(const std::string& path, const std::string& text, const CheckedResultSink& sink = {});

}  // namespace devparity
