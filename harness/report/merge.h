#pragma once
/// Shard reports combined into one (`devparity merge OUT IN...`).

#include <nlohmann/json.hpp>

#include <string>
#include <utility>
#include <vector>

namespace devparity {

/// Merges reports given as (path, report). Refuses, with an InputError naming
/// both files, reports from different devparity versions or report schemas,
/// and a result id present in two reports. The summary is recomputed from the
/// results; run.merged_from lists the inputs (with their shards) and the
/// environment is the first report's (each input's is kept in
/// run.merged_environments when they differ). When the inputs are not a
/// whole run (an input did not finish, or a shard of an I/N split is not
/// among them) the summary is marked interrupted with one line per gap in
/// summary.interrupted.gaps. Throws InputError for inputs of different
/// splits (1/3 and 1/4).
nlohmann::json merge_reports(const std::vector<std::pair<std::string, nlohmann::json>>& reports);

}  // namespace devparity
