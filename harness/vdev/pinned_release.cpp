// The names of the pinned release modes (Note [Eager pinned release] in
// vdev/async.h), for the CLI and the Python front, with or without the
// virtual device.
#include "harness/vdev/async.h"

#include <fmt/format.h>

#include <stdexcept>

namespace devparity::vdev::async {

PinnedRelease parse_pinned_release(const std::string& name, const std::string& option) {
  if (name == "pooled") return PinnedRelease::kPooled;
  if (name == "eager") return PinnedRelease::kEager;
  throw std::invalid_argument(fmt::format("{}: expected pooled or eager, got '{}'", option, name));
}

const char* pinned_release_name(PinnedRelease release) {
  return release == PinnedRelease::kEager ? "eager" : "pooled";
}

}  // namespace devparity::vdev::async
