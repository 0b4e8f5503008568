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
/// run.merged_environments when they differ).
nlohmann::json merge_reports(const std::vector<std::pair<std::string, nlohmann::json>>& reports);

}  // namespace devparity
