#pragma once
// The base of the end-to-end tests: a fresh folder per test, the executable
// run in it, and its reports read back schema-checked.

#include "tests/support/cli.h"
#include "tests/support/schema.h"
#include "tests/support/temp_dir.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace devparity::testing {

class CliFixture : public ::testing::Test {
 protected:
  /// devparity `args` in the test's folder.
  CliResult cli(const std::string& args) { return run_cli(args, dir_.path()); }
  /// The report `name` in the test's folder; a schema error fails the test.
  nlohmann::json report(const std::string& name) {
    return read_report_file(dir_.file(name));
  }
  TempDir dir_;
};

}  // namespace devparity::testing
