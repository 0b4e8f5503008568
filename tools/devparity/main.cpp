// Note [Report commands without LibTorch]
// diff, merge, html and unpack only read and write reports, yet loading
// LibTorch (and registering its thousands of operators) cost each of them
// 0.5 s and 160 MB before its first byte of work: most of diff's time on the
// default audit's report, and most of its memory (issue 41). So the command
// users type is two executables:
// - devparity (this file) links the report code compiled without LibTorch
//   (harness/CMakeLists.txt: devparity_reports) and runs those four commands;
// - every other command line (run, list, apply, jpeg-check, --help,
//   --version, and any mistake) goes to devparity-torch with the same
//   arguments, by execv: the same process id, signals, standard streams and
//   exit status, so callers and the Robustness tests see one program.
// devparity-torch has every command, report ones too, and the same table
// gives both their options (commands.h). The code they share is compiled once,
// without LibTorch (the layers' dp_torch_free sources, devparity_reports),
// into libdevparity.so and into devparity. Structure.ReportCommandsWithoutLibTorch
// keeps LibTorch out of devparity's process.

#include "harness/base/interrupt.h"
#include "tools/devparity/commands.h"

#include <fmt/format.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

#include <unistd.h>

namespace {

// Beside this executable in the build tree; installed, under libexec (the
// same relative path from the bin folder as at configure time).
std::vector<std::filesystem::path> torch_executable_places() {
  std::error_code ec;
  const auto self = std::filesystem::read_symlink("/proc/self/exe", ec);
  if (ec) return {};
  const auto dir = self.parent_path();
  return {dir / "devparity-torch", dir / DEVPARITY_LIBEXEC_FROM_BIN / "devparity-torch"};
}

}  // namespace

int main(int argc, char** argv) {
  using namespace devparity::cli;
  if (argc > 1) {
    for (const auto& c : report_commands()) {
      if (c.name == std::string(argv[1])) return run_command_line(argc, argv, report_commands(), nullptr);
    }
  }
  // Note [Signals before the handler]: held across the exec, let in by the run's handler.
  devparity::interrupt::hold();
  const auto places = torch_executable_places();
  std::string tried;
  for (const auto& path : places) {
    if (access(path.c_str(), X_OK) != 0) {
      tried += "\n  " + path.string() + ": " + std::strerror(errno);
      continue;
    }
    execv(path.c_str(), argv);  // returns only on failure
    tried += "\n  " + path.string() + ": " + std::strerror(errno);
  }
  devparity::interrupt::release();
  fmt::print(stderr, "devparity: internal error: cannot start devparity-torch, which runs every command but "
                     "diff, merge, html and unpack:{}\n",
             tried.empty() ? std::string(" /proc/self/exe is unreadable") : tried);
  return 3;
}
