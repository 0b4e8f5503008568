#pragma once
// Runs the devparity executable and captures its exit code and output.

#include "tests/support/temp_dir.h"

#include <cstdlib>
#include <string>
#include <sys/wait.h>

namespace devparity::testing {

struct CliResult {
  int exit_code = -1;
  std::string out;  ///< stdout
  std::string err;  ///< stderr
};

/// Exit code and both streams, for assertion messages.
inline std::string describe(const CliResult& r) {
  return "exit " + std::to_string(r.exit_code) + "\nstdout:\n" + r.out + "\nstderr:\n" + r.err;
}

/// Single-quotes an argument for /bin/sh.
inline std::string shell_quote(const std::string& s) {
  std::string out = "'";
  for (char c : s) {
    if (c == '\'') out += "'\\''";
    else out += c;
  }
  return out + "'";
}

/// Runs `<binary> <args>` (args already quoted as needed) in folder `cwd`;
/// the binary defaults to devparity.
inline CliResult run_cli(const std::string& args, const std::string& cwd,
                         const std::string& binary = DEVPARITY_BINARY) {
  TempDir capture;
  const auto out = capture.file("out"), err = capture.file("err");
  const std::string command = "cd " + shell_quote(cwd) + " && NO_COLOR=1 " +
                              shell_quote(binary) + " " + args + " >" +
                              shell_quote(out) + " 2>" + shell_quote(err);
  const int status = std::system(command.c_str());
  CliResult r;
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  r.out = read_text(out);
  r.err = read_text(err);
  return r;
}

}  // namespace devparity::testing
