#pragma once
/// One function per subcommand; each returns the process exit code.

#include "tools/devparity/options.h"

namespace devparity::cli {

/// `devparity run`.
int cmd_run(const Options& options);
/// `devparity list`.
int cmd_list(const Options& options);
/// `devparity apply`.
int cmd_apply(const Options& options);
/// `devparity jpeg-check`.
int cmd_jpeg_check(const Options& options);
/// `devparity diff`.
int cmd_diff(const Options& options);
/// `devparity merge`.
int cmd_merge(const Options& options);
/// `devparity html`.
int cmd_html(const Options& options);

}  // namespace devparity::cli
