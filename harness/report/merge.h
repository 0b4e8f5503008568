#pragma once
/// Shard reports combined into one (`devparity merge OUT IN...`).

#include "harness/model/results.h"

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

/// One report to merge: as read, and its results in full with what each says.
struct MergeInput {
  std::string path;
  nlohmann::json report;                ///< as read (its results are below)
  std::vector<nlohmann::json> results;  ///< each in full
  std::vector<TrialResult> parsed;      ///< results[i], parsed
};

/// Reads and checks `path` (read_report()) for merging, unpacking each
/// result once.
MergeInput read_merge_input(const std::string& path);

/// merge_reports() of inputs read with read_merge_input(); their results are
/// moved into the merged report.
nlohmann::json merge_inputs(std::vector<MergeInput> inputs);

}  // namespace devparity
