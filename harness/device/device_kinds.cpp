#include "harness/device/device_kinds.h"

#include "harness/device/cuda_support.h"
#include "harness/vdev/async.h"
#include "harness/vdev/vdev.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <fstream>
#include <stdexcept>

namespace devparity {
namespace {

int one(const DeviceInventory&) { return 1; }
std::string never_absent(const std::string&, int, const DeviceInventory&) { return ""; }

std::string cuda_absent(const std::string& name, int index, const DeviceInventory& inv) {
  if (index < 0 && inv.cuda_count >= 2) return "";
  if (index < 0) {
    return fmt::format("cuda:N needs two or more CUDA devices; this machine has {}{}", inv.cuda_count,
                       inv.cuda_count == 0 && !inv.cuda_compiled ? " (this build has no CUDA support)" : "");
  }
  if (inv.cuda_count == 0) {
    return inv.cuda_compiled ? "no CUDA device visible on this machine"
                             : "this build has no CUDA support (CPU LibTorch); see README, 'CUDA builds'";
  }
  if (index >= inv.cuda_count) {
    return fmt::format("{} not present: this machine has {} CUDA device(s)", name, inv.cuda_count);
  }
  return "";
}

std::string vdev_absent(const std::string& name, int index, const DeviceInventory& inv) {
  if (index < 0 && inv.vdev_count >= 2) return "";
  if (index < 0) return fmt::format("vdev:N needs two or more virtual device indices; there are {}", inv.vdev_count);
  if (!inv.vdev_compiled) return "this build has no virtual device (DEVPARITY_WITH_VDEV)";
  if (inv.vdev_count == 0) return "the virtual device is not installed in this process (devparity.install())";
  if (index >= inv.vdev_count) {
    return fmt::format("{} not present: the virtual device has {} index(es) (--vdev-count)", name, inv.vdev_count);
  }
  return "";
}

std::string meta_model(int) { return "placement only: shapes and dtypes, no values"; }
void install_vdev(const DeviceInventory& inv) { vdev::install(inv.vdev_count); }
std::string vdev_model(int) { return vdev::description(); }
std::string cpu_model(int) { return host_cpu_model(); }

DeviceKind cpu_kind() {
  DeviceKind k;
  k.family = "cpu";
  k.type = c10::DeviceType::CPU;
  k.runs_cpu_kernels = true;
  k.count = one;
  k.absent = never_absent;
  k.auto_names = [](const DeviceInventory&) { return std::vector<std::string>{"cpu"}; };
  k.model = cpu_model;
  return k;
}

DeviceKind cuda_kind() {
  DeviceKind k;
  k.family = "cuda";
  k.type = c10::DeviceType::CUDA;
  k.indexed = true;
  k.poisoned_by_device_errors = true;
  k.accelerator = true;
  k.count = [](const DeviceInventory& inv) { return inv.cuda_count; };
  k.absent = cuda_absent;
  // Kept, as absent, on machines without CUDA: every device gets a result.
  k.auto_names = [](const DeviceInventory&) { return std::vector<std::string>{"cuda:0", "cuda:N"}; };
  k.model = cuda::device_model;
  k.synchronize = cuda::synchronize;
  k.seed_generator = cuda::seed_default_generator;
  k.pinned_empty = cuda::pinned_empty;
  k.use_pool_stream = cuda::use_pool_stream;
  return k;
}

DeviceKind vdev_kind() {
  DeviceKind k;
  k.family = "vdev";
  k.type = c10::DeviceType::PrivateUse1;
  k.indexed = true;
  k.simulated = true;
  k.runs_cpu_kernels = true;
  k.accelerator = true;
  k.count = [](const DeviceInventory& inv) { return inv.vdev_count; };
  k.absent = vdev_absent;
  // Without CUDA, the simulated accelerator covers the non-zero-index path.
  k.auto_names = [](const DeviceInventory& inv) {
    return inv.cuda_count == 0 ? std::vector<std::string>{"vdev:0", "vdev:1"} : std::vector<std::string>{};
  };
  k.model = vdev_model;
  k.interleaves = vdev::async::enabled;
  k.pinned_empty = vdev::async::pinned_empty;
  k.install = install_vdev;
  k.installed = vdev::installed;
  return k;
}

DeviceKind meta_kind() {
  DeviceKind k;
  k.family = "meta";
  k.type = c10::DeviceType::Meta;
  k.has_values = false;
  k.simulated = true;
  k.count = one;
  k.absent = never_absent;
  k.auto_names = [](const DeviceInventory&) { return std::vector<std::string>{"meta"}; };
  k.model = meta_model;
  return k;
}

// Every process has the built-in kinds, whatever else registers: device
// tokens parse against this table from the first option read.
std::deque<DeviceKind>& kinds() {
  static std::deque<DeviceKind> all = {cpu_kind(), cuda_kind(), vdev_kind(), meta_kind()};
  return all;
}

}  // namespace

const std::deque<DeviceKind>& device_kinds() { return kinds(); }

void add_device_kind(DeviceKind kind) {
  const std::string family = kind.family == nullptr ? "" : kind.family;
  if (family.empty()) throw std::invalid_argument("a device kind needs a family (its device token)");
  const bool token = std::all_of(family.begin(), family.end(), [](char c) {
    return std::islower(static_cast<unsigned char>(c)) || std::isdigit(static_cast<unsigned char>(c)) || c == '_';
  });
  if (!token) {
    throw std::invalid_argument(fmt::format("device kind '{}': a family is lower-case letters, digits and _", family));
  }
  if (kind.count == nullptr || kind.absent == nullptr || kind.auto_names == nullptr || kind.model == nullptr) {
    throw std::invalid_argument(
        fmt::format("device kind '{}': count, absent, auto_names and model are required", family));
  }
  if ((kind.install == nullptr) != (kind.installed == nullptr)) {
    throw std::invalid_argument(fmt::format("device kind '{}': install and installed come together", family));
  }
  for (const auto& k : kinds()) {
    if (family == k.family) throw std::invalid_argument(fmt::format("device kind '{}' is registered twice", family));
    if (kind.type == k.type) {
      throw std::invalid_argument(fmt::format("device kind '{}': the {} device type is the '{}' kind's", family,
                                              c10::DeviceTypeName(kind.type, true), k.family));
    }
  }
  kinds().push_back(kind);
}

bool register_device_kind(DeviceKind kind) noexcept {
  return register_noexcept([&] { add_device_kind(kind); });
}

const DeviceKind& device_kind(c10::DeviceType type) {
  for (const auto& k : kinds()) {
    if (k.type == type) return k;
  }
  throw std::out_of_range(fmt::format("devparity knows no device kind for {}", c10::DeviceTypeName(type)));
}

const DeviceKind* device_kind_named(const std::string& token) {
  for (const auto& k : kinds()) {
    const std::string family = k.family;
    if (token == family || (k.indexed && token.rfind(family + ":", 0) == 0)) return &k;
  }
  return nullptr;
}

std::string host_cpu_model() {
  std::ifstream in("/proc/cpuinfo");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("model name", 0) == 0) {
      const auto colon = line.find(':');
      if (colon != std::string::npos) return line.substr(colon + 2);
    }
  }
  return "unknown";
}

}  // namespace devparity
