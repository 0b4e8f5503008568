#include "harness/report/report_file.h"

#include "harness/core/error.h"
#include "harness/core/json_reader.h"
#include "harness/core/json_source.h"
#include "harness/report/document.h"

#include <fmt/format.h>

namespace devparity {

nlohmann::json load_report(const std::string& path) {
  auto doc = load_json_file(path);
  const auto& v = doc.value;
  auto fail = [&](const std::string& pointer, const std::string& what) {
    throw InputError(doc.error(pointer, what + " (is this a devparity report?)"));
  };
  if (!v.is_object()) fail("", "expected a report object, got " + describe_json(v));
  if (!v.contains("schema_version") || v["schema_version"] != kReportSchemaVersion) {
    fail("/schema_version", fmt::format("report schema version {} expected, got {}", kReportSchemaVersion,
                                        v.contains("schema_version") ? v["schema_version"].dump() : "none"));
  }
  for (const char* key : {"tool", "run", "environment", "summary"}) {
    if (!v.contains(key) || !v[key].is_object()) fail(std::string("/") + key, "expected an object");
  }
  if (!v.contains("results") || !v["results"].is_array()) fail("/results", "expected an array of results");
  for (size_t i = 0; i < v["results"].size(); ++i) {
    const auto& r = v["results"][i];
    const auto p = "/results/" + std::to_string(i);
    if (!r.is_object()) fail(p, "expected a result object");
    for (const char* key : {"id", "status", "case", "device", "dtype"}) {
      if (!r.contains(key) || !r[key].is_string()) fail(p + "/" + key, "expected a string");
    }
    if (!r.contains("checks") || !r["checks"].is_array()) fail(p + "/checks", "expected an array");
  }
  return std::move(doc.value);
}

std::map<std::string, std::set<std::string>> failing_checks(const nlohmann::json& report) {
  std::map<std::string, std::set<std::string>> out;
  for (const auto& r : report.at("results")) {
    const auto status = r.at("status").get<std::string>();
    if (status != "fail" && status != "error") continue;
    auto& checks = out[r.at("id").get<std::string>()];
    for (const auto& c : r.at("checks")) {
      if (c.value("status", "") == status) checks.insert(c.value("name", ""));
    }
  }
  return out;
}

}  // namespace devparity
