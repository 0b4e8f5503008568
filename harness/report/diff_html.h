#pragma once
/// The diff as a page (`devparity diff OLD NEW --html OUT.html`): what changed between two
/// reports, with the device x case matrix coloured by change (new failures, statistics that
/// moved, other status changes, fixes, results in one report alone, unchanged) and the diff's
/// tables under it. One self-contained file, no script; every string from a report is escaped.

#include "harness/report/diff.h"

#include <nlohmann/json_fwd.hpp>

#include <string>

namespace devparity {

/// The page for `diff`.
std::string diff_html(const ReportDiff& diff);

}  // namespace devparity
