// devparity-torch: every command, with LibTorch and the built-in transforms.
// The devparity executable runs the report commands itself and hands the
// rest to this one (Note [Report commands without LibTorch]).

#include "harness/base/error.h"
#include "harness/base/interrupt.h"
#include "harness/builtins.h"
#include "harness/device/host_memory.h"
#include "harness/run/plugin.h"
#include "tools/devparity/commands.h"

#include <fmt/format.h>

#include <cstdio>
#include <exception>
#include <string>

int main(int argc, char** argv) {
  using namespace devparity;
  // Note [Signals before the handler]: only a run lets them in later, at its handler.
  if (argc < 2 || std::string(argv[1]) != "run") interrupt::release();
  retain_freed_host_memory();  // Note [Host allocator]
  try {
    register_builtins();
  } catch (const std::exception& e) {
    fmt::print(stderr, "devparity: internal error: {}\n", torch_message(e));
    return 3;
  }
  return cli::run_command_line(argc, argv, cli::commands(), [](const cli::Options& options) {
    for (const auto& plugin : options.plugins) load_plugin(plugin);
  });
}
