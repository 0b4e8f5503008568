#include "harness/base/output_paths.h"

#include "harness/base/atomic_file.h"
#include "harness/base/error.h"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
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
  std::vector<OutputPath> logs;  // the report's REPORT.partial is written too
  for (const auto& out : outputs) {
    if (out.streamed) logs.push_back({out.option + "'s log", out.path + ".partial"});
  }
  for (const auto* list : {&outputs, static_cast<const std::vector<OutputPath>*>(&logs)}) {
    for (const auto& out : *list) {
      const auto path = resolved(out.path);
      const auto [it, fresh] = claimed.emplace(path, &out);
      if (!fresh) {
        throw UsageError(fmt::format("{} and {} both name {}: each output needs its own path", it->second->option,
                                     out.option, out.path));
      }
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
    switch (output_kind(path.string())) {
      case OutputKind::kFolder:
        throw InputError(fmt::format("{} {}: is a folder; name the file to write", out.option, out.path));
      case OutputKind::kRefused:
        throw InputError(fmt::format("{} {}: {}", out.option, out.path, output_kind_refusal(path.string())));
      case OutputKind::kStream:
        if (out.streamed) {
          throw UsageError(fmt::format("{} {}: is a device or FIFO; the run streams its report to REPORT.partial "
                                       "beside it and puts the file in place at the end: name a file",
                                       out.option, out.path));
        }
        if (::access(path.c_str(), W_OK) != 0) {
          throw InputError(fmt::format("{} {}: cannot be written: {}", out.option, out.path, std::strerror(errno)));
        }
        continue;  // written through, where it is
      case OutputKind::kFile: break;
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

namespace {

// Locks `file` (created if missing) for this process; -1 where another holds it.
// A lock file another run removed as we opened it is no lock: the path must
// still name the file locked.
int lock_file(const std::string& file, const std::string& what) {
  for (int attempt = 0; attempt < 8; ++attempt) {
    const int fd = ::open(file.c_str(), O_CREAT | O_WRONLY | O_CLOEXEC, 0644);  // never truncated: a holder keeps its log
    if (fd < 0) throw InputError(fmt::format("{}: cannot create {}: {}", what, file, std::strerror(errno)));
    if (::flock(fd, LOCK_EX | LOCK_NB) != 0) {
      ::close(fd);
      return -1;
    }
    struct stat held {}, named {};
    if (::fstat(fd, &held) == 0 && ::stat(file.c_str(), &named) == 0 && held.st_ino == named.st_ino &&
        held.st_dev == named.st_dev) {
      return fd;
    }
    ::close(fd);
  }
  throw InputError(fmt::format("{}: cannot hold {}: it keeps being removed", what, file));
}

}  // namespace

OutputClaim::OutputClaim(const OutputPath& output) {
  const auto target = resolved(output.path);
  if (output_kind(target.string()) == OutputKind::kStream) return;
  std::error_code ec;
  fs::create_directories(target.parent_path(), ec);
  const auto what = fmt::format("{} {}", output.option, output.path);
  const auto file = output.streamed ? output.path + ".partial"
                                    : (target.parent_path() / ("." + target.filename().string() + ".devparity-lock")).string();
  fd_ = lock_file(file, what);
  if (fd_ < 0) {
    throw InputError(fmt::format("{}: another devparity run is writing this {} (it holds {}); give each run its own {}",
                                 what, output.streamed ? "report" : "file", file, output.option));
  }
  if (!output.streamed) lock_ = file;
}

OutputClaim::~OutputClaim() {
  if (fd_ < 0) return;
  if (!lock_.empty()) ::unlink(lock_.c_str());  // while held: a run that opened it meanwhile sees it gone
  ::close(fd_);
}

}  // namespace devparity
