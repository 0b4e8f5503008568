#pragma once
// Validates JSON documents against the project's schemas with valijson.

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace devparity::testing {

/// Errors of `document` against the schema file at `schema_path` (relative to
/// the source tree); empty when valid. Each error is "pointer: description".
std::vector<std::string> schema_errors(const nlohmann::json& document,
                                       const std::string& schema_path);

/// The report schema's errors for `report`.
inline std::vector<std::string> report_schema_errors(const nlohmann::json& report) {
  return schema_errors(report, "reports/schema/report.schema.json");
}

/// The report file at `path` as devparity reads it back (every result in
/// full), after checking the file as written (packed) against the report
/// schema: a schema error fails the calling test.
nlohmann::json read_report_file(const std::string& path);

/// A path inside the source tree.
std::string source_path(const std::string& relative);

}  // namespace devparity::testing
