#include "tests/support/schema.h"

#include "harness/report/report_file.h"

#include <gtest/gtest.h>

#include <valijson/adapters/nlohmann_json_adapter.hpp>
#include <valijson/schema.hpp>
#include <valijson/schema_parser.hpp>
#include <valijson/validator.hpp>

#include <fstream>
#include <map>
#include <memory>
#include <stdexcept>

namespace devparity::testing {

nlohmann::json read_report_file(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw std::runtime_error("cannot open the report " + path);
  const auto written = nlohmann::json::parse(in);
  EXPECT_EQ(report_schema_errors(written), std::vector<std::string>{}) << path;
  return load_report(path);
}

std::string source_path(const std::string& relative) {
  return std::string(DEVPARITY_SOURCE_DIR) + "/" + relative;
}

std::vector<std::string> schema_errors(const nlohmann::json& document,
                                       const std::string& schema_path) {
  static std::map<std::string, std::pair<nlohmann::json, std::unique_ptr<valijson::Schema>>> cache;
  auto& entry = cache[schema_path];
  if (!entry.second) {
    std::ifstream in(source_path(schema_path));
    if (!in) throw std::runtime_error("cannot open schema " + schema_path);
    entry.first = nlohmann::json::parse(in);
    entry.second = std::make_unique<valijson::Schema>();
    valijson::SchemaParser parser;
    valijson::adapters::NlohmannJsonAdapter schema_adapter(entry.first);
    parser.populateSchema(schema_adapter, *entry.second);
  }
  valijson::Validator validator;
  valijson::ValidationResults results;
  valijson::adapters::NlohmannJsonAdapter adapter(document);
  std::vector<std::string> errors;
  if (!validator.validate(*entry.second, adapter, &results)) {
    valijson::ValidationResults::Error error;
    while (results.popError(error)) {
      std::string where;
      for (const auto& part : error.context) where += part;
      errors.push_back(where + ": " + error.description);
    }
  }
  return errors;
}

}  // namespace devparity::testing
