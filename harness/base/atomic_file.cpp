#include "harness/base/atomic_file.h"

#include "harness/base/error.h"

#include <fmt/format.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace devparity {

void ensure_parent_directory(const std::string& path) {
  const auto parent = std::filesystem::path(path).parent_path();
  if (parent.empty()) return;
  std::error_code ec;
  std::filesystem::create_directories(parent, ec);
  if (ec) {
    throw InputError(fmt::format("{}: cannot create folder {}: {}", path, parent.string(),
                                 ec.message()));
  }
}

namespace {

// Writes all of `content` to `fd`; false with errno set on an error.
bool write_all(int fd, const std::string& content) {
  size_t written = 0;
  while (written < content.size()) {
    const ssize_t n = ::write(fd, content.data() + written, content.size() - written);
    if (n < 0) {
      if (errno == EINTR) continue;
      return false;
    }
    written += static_cast<size_t>(n);
  }
  return true;
}

// A character device or a FIFO takes the content in place: renaming a file
// over it would replace the node (/dev/null, as root) and exit 0 while the
// reader of the FIFO got nothing. A FIFO nobody reads is an error, not a hang.
void write_through(const std::string& path, const std::string& content) {
  const int fd = ::open(path.c_str(), O_WRONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
  if (fd < 0) {
    const bool no_reader = errno == ENXIO;
    throw InputError(fmt::format("{}: cannot write: {}", path,
                                 no_reader ? "a FIFO that nobody reads" : std::strerror(errno)));
  }
  const int flags = ::fcntl(fd, F_GETFL);
  if (flags >= 0) ::fcntl(fd, F_SETFL, flags & ~O_NONBLOCK);
  const bool ok = write_all(fd, content);
  const std::string why = std::strerror(errno);
  if (::close(fd) != 0 || !ok) throw InputError(fmt::format("{}: write failed: {}", path, ok ? std::strerror(errno) : why));
}

// The file a chain of links ends at (dangling or not), or `path` itself.
std::string link_target(const std::string& path) {
  namespace fs = std::filesystem;
  fs::path p = path;
  std::error_code ec;
  for (int hop = 0; fs::is_symlink(fs::symlink_status(p, ec)); ++hop) {
    if (hop == 40) throw InputError(fmt::format("{}: too many levels of links", path));
    const auto next = fs::read_symlink(p, ec);
    if (ec) throw InputError(fmt::format("{}: cannot follow the link: {}", path, ec.message()));
    p = next.is_absolute() ? next : p.parent_path() / next;
  }
  return p.string();
}

}  // namespace

OutputKind output_kind(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return OutputKind::kFile;  // made new (through a dangling link too)
  if (S_ISREG(st.st_mode)) return OutputKind::kFile;
  if (S_ISDIR(st.st_mode)) return OutputKind::kFolder;
  if (S_ISCHR(st.st_mode) || S_ISFIFO(st.st_mode)) return OutputKind::kStream;
  return OutputKind::kRefused;
}

std::string output_kind_refusal(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return "";
  if (S_ISBLK(st.st_mode)) return "is a block device; devparity writes files, never onto a disk";
  if (S_ISSOCK(st.st_mode)) return "is a socket, not a file";
  return output_kind(path) == OutputKind::kRefused ? "is not a regular file" : "";
}

void write_file_atomic(const std::string& path_given, const std::string& content) {
  switch (output_kind(path_given)) {
    case OutputKind::kStream: return write_through(path_given, content);
    case OutputKind::kFolder: throw InputError(fmt::format("{}: is a folder; name the file to write", path_given));
    case OutputKind::kRefused:
      throw InputError(fmt::format("{}: {}", path_given, output_kind_refusal(path_given)));
    case OutputKind::kFile: break;
  }
  // A link stays a link: the file it names is replaced, not the link.
  const std::string path = link_target(path_given);
  ensure_parent_directory(path);
  const std::string temp = fmt::format("{}.tmp.{}", path, static_cast<long>(::getpid()));
  const int fd = ::open(temp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) {
    throw InputError(fmt::format("{}: cannot write: {}", path_given, std::strerror(errno)));
  }
  if (!write_all(fd, content)) {
    const std::string why = std::strerror(errno);
    ::close(fd);
    ::unlink(temp.c_str());
    throw InputError(fmt::format("{}: write failed: {}", path_given, why));
  }
  if (::fsync(fd) != 0 || ::close(fd) != 0) {
    const std::string why = std::strerror(errno);
    ::unlink(temp.c_str());
    throw InputError(fmt::format("{}: cannot flush: {}", path_given, why));
  }
  if (std::rename(temp.c_str(), path.c_str()) != 0) {
    const std::string why = std::strerror(errno);
    ::unlink(temp.c_str());
    throw InputError(fmt::format("{}: cannot rename the finished file into place: {}", path_given, why));
  }
}

}  // namespace devparity
