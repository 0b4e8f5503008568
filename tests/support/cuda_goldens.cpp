#include "tests/support/cuda_goldens.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <cstdlib>

#include <unistd.h>

namespace devparity::testing {

std::string cuda_goldens_dir() {
  namespace fs = std::filesystem;
  if (const char* dir = getenv("DEVPARITY_CUDA_GOLDENS_DIR"); dir != nullptr && *dir != '\0') {
    return std::string(dir) + "/";
  }
  const char* shared = getenv("DEVPARITY_SHARED");
  return unpacked(fs::path(shared != nullptr ? shared : DEVPARITY_SOURCE_DIR "/../shared") / "cuda-goldens" /
                      "cuda_sweep1.txz",
                  "sweep1");
}

std::string unpacked(const std::filesystem::path& archive, const std::string& folder) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (!fs::exists(archive, ec)) return "";
  // Named by the archive's name and size, so a new archive is unpacked afresh.
  const auto target = fs::path(DEVPARITY_BINARY_DIR) /
                      fmt::format("{}-{}", archive.stem().string(), fs::file_size(archive));
  if (!fs::exists(target / folder / "manifest.json", ec)) {
    const auto scratch = fs::path(target.string() + fmt::format(".unpacking-{}", ::getpid()));
    fs::create_directories(scratch);
    const auto command = fmt::format("cd '{}' && '{}' -E tar xf '{}'", scratch.string(), DEVPARITY_CMAKE,
                                     fs::absolute(archive).string());
    EXPECT_EQ(std::system(command.c_str()), 0) << command;
    fs::rename(scratch, target, ec);  // a concurrent test may have won: its copy is as good
    fs::remove_all(scratch, ec);
  }
  return (target / folder).string() + "/";
}

}  // namespace devparity::testing
