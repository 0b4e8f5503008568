#include "tools/devparity/commands.h"

namespace devparity::cli {

const std::vector<Command>& report_commands() {
  static const std::vector<Command> table = {{"diff", add_diff_command, cmd_diff},
                                             {"merge", add_merge_command, cmd_merge},
                                             {"html", add_html_command, cmd_html},
                                             {"unpack", add_unpack_command, cmd_unpack}};
  return table;
}

}  // namespace devparity::cli
