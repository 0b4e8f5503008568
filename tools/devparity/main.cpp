// devparity: command-line entry point. Maps errors to the exit codes of
// DESIGN.md: 2 for bad usage or bad input, 3 for internal errors.

#include "harness/builtins.h"
#include "harness/core/error.h"
#include "harness/core/host_memory.h"
#include "harness/core/plugin.h"
#include "tools/devparity/commands.h"

#include <fmt/format.h>

#include <cstdio>

int main(int argc, char** argv) {
  using namespace devparity;
  retain_freed_host_memory();  // Note [Host allocator]
  try {
    register_builtins();
    cli::Options options;
    if (const auto code = cli::parse_command_line(argc, argv, options)) return *code;
    for (const auto& plugin : options.plugins) load_plugin(plugin);
    if (options.command == "run") return cli::cmd_run(options);
    if (options.command == "list") return cli::cmd_list(options);
    if (options.command == "apply") return cli::cmd_apply(options);
    if (options.command == "jpeg-check") return cli::cmd_jpeg_check(options);
    if (options.command == "diff") return cli::cmd_diff(options);
    if (options.command == "merge") return cli::cmd_merge(options);
    if (options.command == "html") return cli::cmd_html(options);
    fmt::print(stderr, "devparity: error: no command given (run, list, apply, jpeg-check, diff, merge, html; see --help)\n");
    return 2;
  } catch (const UsageError& e) {
    fmt::print(stderr, "devparity: error: {}\n", e.what());
    return 2;
  } catch (const InputError& e) {
    fmt::print(stderr, "devparity: error: {}\n", e.what());
    return 2;
  } catch (const std::exception& e) {
    fmt::print(stderr, "devparity: internal error: {}\n", torch_message(e));
    return 3;
  }
}
