#include "harness/base/error.h"
#include "tools/devparity/commands.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <cstdio>

namespace devparity::cli {

int run_command_line(int argc, char** argv, const std::vector<Command>& table, void (*prepare)(const Options&)) {
  std::string command;
  try {
    Options options;
    if (const auto code = parse_command_line(argc, argv, table, options)) return *code;
    command = options.command;
    if (prepare != nullptr) prepare(options);
    for (const auto& c : table) {
      if (options.command == c.name) return c.run(options);
    }
    fmt::print(stderr, "devparity: error: no command given (run, list, apply, jpeg-check, diff, merge, html, unpack; see --help)\n");
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
    for (const auto& c : report_commands()) {
      if (command == c.name) {
        fmt::print(stderr, "devparity: error: a report field has an unexpected type or value: {}\n", e.what());
        return 2;
      }
    }
    fmt::print(stderr, "devparity: internal error: {}\n", e.what());
    return 3;
  } catch (const std::exception& e) {
    fmt::print(stderr, "devparity: internal error: {}\n", torch_message(e));
    return 3;
  }
}

}  // namespace devparity::cli
