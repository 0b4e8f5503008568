#include "harness/device/device_kinds.h"

#include "harness/device/cuda_support.h"
#include "harness/vdev/async.h"
#include "harness/vdev/vdev.h"

#include <fmt/format.h>

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

const std::vector<DeviceKind> kKinds = {
    {"cpu", c10::DeviceType::CPU, false, true, false, true, false, false, one, never_absent,
     [](const DeviceInventory&) { return std::vector<std::string>{"cpu"}; }, cpu_model, nullptr, nullptr, nullptr,
     nullptr, nullptr, nullptr, nullptr},
    {"cuda", c10::DeviceType::CUDA, true, true, false, false, true, true,
     [](const DeviceInventory& inv) { return inv.cuda_count; }, cuda_absent,
     // Kept, as absent, on machines without CUDA: every device gets a result.
     [](const DeviceInventory&) { return std::vector<std::string>{"cuda:0", "cuda:N"}; }, cuda::device_model, nullptr,
     cuda::synchronize, cuda::seed_default_generator, cuda::pinned_empty, cuda::use_pool_stream, nullptr, nullptr},
    {"vdev", c10::DeviceType::PrivateUse1, true, true, true, true, false, true,
     [](const DeviceInventory& inv) { return inv.vdev_count; }, vdev_absent,
     // Without CUDA, the simulated accelerator covers the non-zero-index path.
     [](const DeviceInventory& inv) {
       return inv.cuda_count == 0 ? std::vector<std::string>{"vdev:0", "vdev:1"} : std::vector<std::string>{};
     },
     vdev_model, vdev::async::enabled, nullptr, nullptr, vdev::async::pinned_empty, nullptr, install_vdev,
     vdev::installed},
    {"meta", c10::DeviceType::Meta, false, false, true, false, false, false, one, never_absent,
     [](const DeviceInventory&) { return std::vector<std::string>{"meta"}; }, meta_model, nullptr, nullptr, nullptr,
     nullptr, nullptr, nullptr, nullptr},
};

}  // namespace

const std::vector<DeviceKind>& device_kinds() { return kKinds; }

const DeviceKind& device_kind(c10::DeviceType type) {
  for (const auto& k : kKinds) {
    if (k.type == type) return k;
  }
  throw std::out_of_range(fmt::format("devparity knows no device kind for {}", c10::DeviceTypeName(type)));
}

const DeviceKind* device_kind_named(const std::string& token) {
  for (const auto& k : kKinds) {
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
