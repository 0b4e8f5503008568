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
};

/// Refuses (UsageError) two outputs that name one file or folder, and
/// (InputError, naming the option and the path) one that cannot be written:
/// its nearest existing folder refuses a probe file, or is a file, or a file
/// path is a folder (a folder path a file). Makes nothing.
void check_output_paths(const std::vector<OutputPath>& outputs);

/// Refuses (UsageError) an output that is one of the command's inputs (the
/// same file, by any path): the command would destroy what it reads.
void check_not_an_input(const OutputPath& output, const std::vector<std::string>& inputs);

/// An exclusive claim on a report path for one run, held until destroyed:
/// a lock on REPORT.partial (the file the run streams to). A second run
/// claiming the same report while one holds it gets an InputError.
class ReportClaim {
 public:
  explicit ReportClaim(const std::string& report);
  ~ReportClaim();
  ReportClaim(const ReportClaim&) = delete;
  ReportClaim& operator=(const ReportClaim&) = delete;

 private:
  int fd_ = -1;
};

}  // namespace devparity
