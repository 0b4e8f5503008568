#include "harness/base/output_paths.h"

#include "harness/base/error.h"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <fmt/format.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <map>

namespace devparity {
namespace {

namespace fs = std::filesystem;

// The path as the file system will resolve it, for comparing two outputs.
fs::path resolved(const std::string& path) {
  std::error_code ec;
  auto p = fs::weakly_canonical(fs::absolute(path, ec), ec);
  return ec ? fs::absolute(path).lexically_normal() : p;
}

// A probe file created and removed in the nearest folder of `folder` that
// exists (nothing is made before the run needs it): what `access()` would
// miss shows here.
void probe(const OutputPath& out, fs::path folder) {
  while (!fs::exists(folder) && folder.has_parent_path() && folder.parent_path() != folder) {
    folder = folder.parent_path();
  }
  if (!fs::is_directory(folder)) {
    throw InputError(fmt::format("{} {}: cannot be written: {} is not a folder", out.option, out.path,
                                 folder.string()));
  }
  const auto file = folder / fmt::format(".devparity-probe-{}", ::getpid());
  const int fd = ::open(file.c_str(), O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC, 0600);
  if (fd < 0) {
    throw InputError(fmt::format("{} {}: cannot write in {}: {}", out.option, out.path, folder.string(),
                                 std::strerror(errno)));
  }
  ::close(fd);
  ::unlink(file.c_str());
}

}  // namespace

void check_output_paths(const std::vector<OutputPath>& outputs) {
  std::map<fs::path, const OutputPath*> claimed;
  for (const auto& out : outputs) {
    const auto path = resolved(out.path);
    const auto [it, fresh] = claimed.emplace(path, &out);
    if (!fresh) {
      throw UsageError(fmt::format("{} and {} both name {}: each output needs its own path", it->second->option,
                                   out.option, out.path));
    }
  }
  for (const auto& out : outputs) {
    const auto path = resolved(out.path);
    if (out.folder) {
      if (fs::exists(path) && !fs::is_directory(path)) {
        throw InputError(fmt::format("{} {}: is a file, not a folder", out.option, out.path));
      }
      probe(out, path);
      continue;
    }
    if (fs::is_directory(path)) {
      throw InputError(fmt::format("{} {}: is a folder; name the file to write", out.option, out.path));
    }
    probe(out, path.has_parent_path() ? path.parent_path() : fs::path("."));
  }
}

void check_not_an_input(const OutputPath& output, const std::vector<std::string>& inputs) {
  std::error_code ec;
  for (const auto& input : inputs) {
    if (fs::equivalent(input, output.path, ec) || resolved(input) == resolved(output.path)) {
      throw UsageError(fmt::format("{} {} is also an input ({}); write it elsewhere", output.option, output.path, input));
    }
  }
}

ReportClaim::ReportClaim(const std::string& report) {
  const auto partial = report + ".partial";
  std::error_code ec;
  fs::create_directories(resolved(report).parent_path(), ec);
  // Opened without truncating: a run that holds it keeps its results.
  fd_ = ::open(partial.c_str(), O_CREAT | O_WRONLY | O_CLOEXEC, 0644);
  if (fd_ < 0) throw InputError(fmt::format("{}: cannot write the report (cannot create {}: {})", report, partial, std::strerror(errno)));
  if (::flock(fd_, LOCK_EX | LOCK_NB) != 0) {
    ::close(fd_);
    fd_ = -1;
    throw InputError(fmt::format("{}: another devparity run is writing this report (it holds {}); give each run "
                                 "its own --report",
                                 report, partial));
  }
}

ReportClaim::~ReportClaim() {
  if (fd_ >= 0) ::close(fd_);
}

}  // namespace devparity
