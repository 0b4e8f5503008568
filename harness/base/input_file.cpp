#include "harness/base/input_file.h"

#include "harness/base/error.h"

#include <fmt/format.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>

namespace devparity {
namespace {

constexpr uint64_t kMiB = uint64_t{1} << 20;
constexpr uint64_t kDefaultMaxMiB = 1024;
constexpr const char* kVariable = "DEVPARITY_MAX_INPUT_MB";
constexpr const char* kUnpackedVariable = "DEVPARITY_MAX_UNPACKED_MB";

// A bound in MiB that `variable` may set: `fallback` when it is unset or empty.
uint64_t mib_bound(const char* variable, uint64_t fallback) {
  const char* text = std::getenv(variable);
  if (text == nullptr || *text == '\0') return fallback * kMiB;
  char* end = nullptr;
  errno = 0;
  const unsigned long long mib = std::strtoull(text, &end, 10);
  if (*end != '\0' || errno != 0 || mib == 0 || mib > (UINT64_MAX / kMiB) || text[0] == '-' || text[0] == '+') {
    throw UsageError(fmt::format("{}='{}': expected a positive whole number of MiB", variable, text));
  }
  return mib * kMiB;
}

InputError too_large(const std::string& path, const std::string& size) {
  return InputError(fmt::format("{}: {}more than the {} MiB devparity reads as input (set {} to raise it)", path,
                                size, max_input_bytes() / kMiB, kVariable));
}

}  // namespace

uint64_t max_input_bytes() { return mib_bound(kVariable, kDefaultMaxMiB); }

uint64_t max_unpacked_bytes() { return mib_bound(kUnpackedVariable, kDefaultMaxMiB); }

const char* max_unpacked_variable() { return kUnpackedVariable; }

std::string read_input_file(const std::string& path) {
  const uint64_t limit = max_input_bytes();
  std::error_code ec;
  const auto status = std::filesystem::status(path, ec);
  if (!ec && std::filesystem::is_directory(status)) {
    throw InputError(fmt::format("{}: is a directory, not a file", path));
  }
  if (!ec && std::filesystem::is_regular_file(status)) {
    const auto size = std::filesystem::file_size(path, ec);
    if (!ec && size > limit) throw too_large(path, fmt::format("{} bytes, ", size));
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError(fmt::format("{}: cannot open file: {}", path, std::strerror(errno)));
  // Pipes and devices have no size: read in blocks and stop at the bound.
  std::string out;
  char block[1 << 16];
  while (in) {
    in.read(block, sizeof block);
    const auto got = static_cast<uint64_t>(in.gcount());
    if (out.size() + got > limit) throw too_large(path, "");
    out.append(block, static_cast<size_t>(got));
  }
  if (in.bad()) throw InputError(fmt::format("{}: read error", path));
  return out;
}

}  // namespace devparity
