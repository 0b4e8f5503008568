#include "tools/devparity/commands.h"

namespace devparity::cli {

const std::vector<Command>& commands() {
  static const std::vector<Command> table = [] {
    std::vector<Command> all = {{"run", add_run_command, cmd_run},
                                {"list", add_list_command, cmd_list},
                                {"apply", add_apply_command, cmd_apply},
                                {"jpeg-check", add_jpeg_check_command, cmd_jpeg_check}};
    for (const auto& c : report_commands()) all.push_back(c);
    return all;
  }();
  return table;
}

}  // namespace devparity::cli
