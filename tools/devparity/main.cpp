// devparity: command-line entry point. Maps errors to the exit codes of
// DESIGN.md: 2 for bad usage or bad input, 3 for internal errors.

#include "harness/base/error.h"
#include "harness/builtins.h"
#include "harness/device/host_memory.h"
#include "harness/run/plugin.h"
#include "tools/devparity/commands.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <cstdio>

int main(int argc, char** argv) {
  using namespace devparity;
  retain_freed_host_memory();  // Note [Host allocator]
  std::string command;
  try {
    register_builtins();
    cli::Options options;
    if (const auto code = cli::parse_command_line(argc, argv, options)) return *code;
    command = options.command;
    for (const auto& plugin : options.plugins) load_plugin(plugin);
    for (const auto& c : cli::commands()) {
      if (options.command == c.name) return c.run(options);
    }
    fmt::print(stderr, "devparity: error: no command given (run, list, apply, jpeg-check, diff, merge, html; see --help)\n");
    return 2;
  } catch (const UsageError& e) {
    fmt::print(stderr, "devparity: error: {}\n", e.what());
    return 2;
  } catch (const InputError& e) {
    fmt::print(stderr, "devparity: error: {}\n", e.what());
    return 2;
  } catch (const nlohmann::json::exception& e) {
    // Reports read back (diff, merge, html, unpack) pass read_report()'s checks of
    // the fields every command relies on; a field deeper down of an
    // unexpected type is still the input's fault.
    if (command == "diff" || command == "merge" || command == "html" || command == "unpack") {
      fmt::print(stderr, "devparity: error: a report field has an unexpected type or value: {}\n", e.what());
      return 2;
    }
    fmt::print(stderr, "devparity: internal error: {}\n", e.what());
    return 3;
  } catch (const std::exception& e) {
    fmt::print(stderr, "devparity: internal error: {}\n", torch_message(e));
    return 3;
  }
}
