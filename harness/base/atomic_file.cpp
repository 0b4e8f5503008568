#include "harness/base/atomic_file.h"

#include "harness/base/error.h"

#include <fmt/format.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fcntl.h>
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

void write_file_atomic(const std::string& path, const std::string& content) {
  ensure_parent_directory(path);
  const std::string temp = fmt::format("{}.tmp.{}", path, static_cast<long>(::getpid()));
  const int fd = ::open(temp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) {
    throw InputError(fmt::format("{}: cannot write: {}", path, std::strerror(errno)));
  }
  size_t written = 0;
  while (written < content.size()) {
    const ssize_t n = ::write(fd, content.data() + written, content.size() - written);
    if (n < 0) {
      if (errno == EINTR) continue;
      const std::string why = std::strerror(errno);
      ::close(fd);
      ::unlink(temp.c_str());
      throw InputError(fmt::format("{}: write failed: {}", path, why));
    }
    written += static_cast<size_t>(n);
  }
  if (::fsync(fd) != 0 || ::close(fd) != 0) {
    const std::string why = std::strerror(errno);
    ::unlink(temp.c_str());
    throw InputError(fmt::format("{}: cannot flush: {}", path, why));
  }
  if (std::rename(temp.c_str(), path.c_str()) != 0) {
    const std::string why = std::strerror(errno);
    ::unlink(temp.c_str());
    throw InputError(fmt::format("{}: cannot rename the finished file into place: {}", path, why));
  }
}

}  // namespace devparity
