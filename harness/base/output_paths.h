#pragma once
/// What a run will write, checked before it starts: a run whose JUnit file
/// or artifacts folder cannot be written must say so before its first
/// trial, not lose its evidence at the end; two outputs naming one file would
/// overwrite each other; two runs writing one report at once would leave one
/// run's report beside the other's artifacts.

#include <string>
#include <vector>

namespace devparity {

/// One output: the option that names it ("--junit"), its path, and whether
/// it is a folder (artifacts) or a file.
struct OutputPath {
  std::string option;
  std::string path;
  bool folder = false;
  /// The run's report, streamed to PATH.partial beside it while the run lasts:
  /// it must be a file (a device has no "beside").
  bool streamed = false;
};

/// Refuses (UsageError) two outputs that name one file or folder, and
/// (InputError, naming the option and the path) one that cannot be written:
/// its nearest existing folder refuses a probe file, or is a file, or a file
/// path is a folder (a folder path a file), or it is a block device or a
/// socket (a character device or FIFO is written through, except where
/// `streamed`). Makes nothing.
void check_output_paths(const std::vector<OutputPath>& outputs);

/// Refuses (UsageError) an output that is one of the command's inputs (the
/// same file, by any path): the command would destroy what it reads.
void check_not_an_input(const OutputPath& output, const std::vector<std::string>& inputs);

/// An exclusive claim on an output for one run, held until destroyed: a
/// second run claiming the same output while one holds it gets an
/// InputError naming the option and the path. The report is claimed by a
/// lock on REPORT.partial (the file the run streams to); any other file by a
/// lock on a hidden .NAME.devparity-lock beside it, removed when released; a
/// device or FIFO is not claimed (writers to /dev/null do not clash).
class OutputClaim {
 public:
  explicit OutputClaim(const OutputPath& output);
  ~OutputClaim();
  OutputClaim(const OutputClaim&) = delete;
  OutputClaim& operator=(const OutputClaim&) = delete;

 private:
  int fd_ = -1;
  std::string lock_;  // removed when released; empty for the report's log
};

}  // namespace devparity
