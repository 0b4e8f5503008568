#pragma once
// Tests that need a tool devparity does not ship (xmllint, Chromium, numpy):
// without it they skip, saying what to install; under CI (the CI variable
// set and not empty) a missing tool fails the test instead, so a CI machine
// that lacks one cannot pass checks that never ran.

#include <gtest/gtest.h>

#include <cstdlib>
#include <string>

namespace devparity::testing {

/// True when `tool` is a command on PATH.
inline bool have_tool(const std::string& tool) {
  return std::system(("command -v " + tool + " >/dev/null 2>&1").c_str()) == 0;
}

/// True when Debian's Python can import `module`.
inline bool python_has(const std::string& module) {
  return std::system(("/usr/bin/python3 -c 'import " + module + "' >/dev/null 2>&1").c_str()) == 0;
}

/// True when the CI environment variable is set and not empty.
inline bool under_ci() {
  const char* ci = std::getenv("CI");
  return ci != nullptr && *ci != '\0';
}

}  // namespace devparity::testing

/// Returns from the test (or SetUp) when `available` is false: a skip giving
/// `why`, or under CI a failure giving it.
#define DEVPARITY_NEEDS(available, why)                                     \
  do {                                                                      \
    if (!(available)) {                                                     \
      if (::devparity::testing::under_ci()) {                               \
        GTEST_FAIL() << "MISSING under CI (a check that needs it cannot pass unrun): " << why; \
      }                                                                     \
      GTEST_SKIP() << why;                                                  \
    }                                                                       \
  } while (false)
