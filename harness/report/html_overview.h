#pragma once
/// The top of the HTML report: a device x case matrix (each cell the worst
/// status of its trials, with counts) and the failures grouped by cause
/// (model/failure_groups.h), each problem once with its trials folded under it.

#include "harness/model/results.h"

#include <nlohmann/json_fwd.hpp>

#include <cstddef>
#include <functional>
#include <map>
#include <sstream>
#include <string>
#include <vector>

namespace devparity {

/// Its CSS, for the page's style sheet.
extern const char* const kOverviewStyle;

/// The device x case matrix of `results`, `report`'s (whose run gives the devices' order).
void write_matrix(std::ostringstream& s, const nlohmann::json& report, const std::vector<TrialResult>& results);

/// A case x device table (`attributes` inside its <table> tag): a header row of the devices,
/// a row per case whose cells `cell` writes (the <td> itself) for each case and device; where
/// it writes nothing (returns false) the cell is an empty one.
void write_case_device_table(std::ostringstream& s, const std::string& attributes,
                             const std::vector<std::string>& cases, const std::vector<std::string>& devices,
                             const std::function<bool(const std::string& c, const std::string& device)>& cell);

/// The problems among `results`; `detail_of` maps a trial id to its failure
/// section's number (#detail-N), where it has one.
void write_problems(std::ostringstream& s, const std::vector<TrialResult>& results,
                    const std::map<std::string, size_t>& detail_of);

}  // namespace devparity
