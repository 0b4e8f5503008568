#include "harness/device/device.h"

#include "harness/base/error.h"
#include "harness/base/text.h"
#include "harness/device/cuda_support.h"
#include "harness/device/vdev.h"
#include "harness/device/vdev_async.h"

#include <ATen/ATen.h>

#include <fmt/format.h>

#include <algorithm>
#include <cctype>

namespace devparity {
namespace {

constexpr const char* kGrammar =
    "cpu, meta, cuda, cuda:<index>, cuda:N, vdev, vdev:<index>, vdev:N, auto";

std::optional<int> parse_index(const std::string& text) {
  if (text.empty() || text.size() > 4) return std::nullopt;
  for (char c : text) {
    if (!std::isdigit(static_cast<unsigned char>(c))) return std::nullopt;
  }
  return std::stoi(text);
}

DeviceTarget cuda_target(const std::string& name, int index, const DeviceInventory& inv) {
  DeviceTarget target;
  target.name = name;
  if (inv.cuda_count == 0) {
    target.absent_reason =
        inv.cuda_compiled
            ? "no CUDA device visible on this machine"
            : "this build has no CUDA support (CPU LibTorch); see README, 'CUDA builds'";
  } else if (index >= inv.cuda_count) {
    target.absent_reason = fmt::format("{} not present: this machine has {} CUDA device(s)",
                                       name, inv.cuda_count);
  } else {
    target.device = c10::Device(c10::DeviceType::CUDA, static_cast<c10::DeviceIndex>(index));
  }
  return target;
}

DeviceTarget vdev_target(const std::string& name, int index, const DeviceInventory& inv) {
  DeviceTarget target;
  target.name = name;
  if (inv.vdev_count == 0) {
    target.absent_reason = "this build has no virtual device (DEVPARITY_WITH_VDEV)";
  } else if (index >= inv.vdev_count) {
    target.absent_reason = fmt::format("{} not present: the virtual device has {} index(es) "
                                       "(--vdev-count)",
                                       name, inv.vdev_count);
  } else {
    target.device = vdev::device(index);
  }
  return target;
}

using MakeTarget = DeviceTarget (*)(const std::string&, int, const DeviceInventory&);

// An indexed family: "<family>" (index 0), "<family>:<k>", "<family>:N" (the
// highest index, when there are two or more). nullopt when `token` is not one.
std::optional<DeviceTarget> resolve_family(const std::string& token, const std::string& family,
                                           int count, MakeTarget make, const DeviceInventory& inv,
                                           const std::string& counted, const std::string& note) {
  if (token == family) return make(family + ":0", 0, inv);
  if (token.rfind(family + ":", 0) != 0) return std::nullopt;
  const std::string rest = token.substr(family.size() + 1);
  if (rest == "N") {
    if (count < 2) {
      DeviceTarget target;
      target.name = family + ":N";
      target.absent_reason =
          fmt::format("{}:N needs two or more {} {}{}", family, counted, count, note);
      return target;
    }
    return make(family + ":N", count - 1, inv);
  }
  if (const auto index = parse_index(rest)) return make(token, *index, inv);
  return std::nullopt;
}

}  // namespace

DeviceInventory DeviceInventory::probe() {
  DeviceInventory inv;
  inv.cuda_compiled = cuda::compiled();
  inv.cuda_count = cuda::device_count();
  inv.vdev_count = vdev::device_count();
  return inv;
}

std::optional<c10::Device> other_current_device(const c10::Device& device) {
  if (!device.has_index()) return std::nullopt;
  int count = 0;
  if (device.type() == c10::DeviceType::PrivateUse1) count = vdev::device_count();
  if (device.is_cuda()) count = cuda::device_count();
  if (count < 2) return std::nullopt;
  return c10::Device(device.type(), static_cast<c10::DeviceIndex>((device.index() + 1) % count));
}

std::string device_label(const c10::Device& device) {
  if (device.type() == c10::DeviceType::PrivateUse1) {
    return device.has_index() ? "vdev:" + std::to_string(static_cast<int>(device.index())) : "vdev";
  }
  return device.str();
}

bool DeviceTarget::simulated() const {
  return name == "meta" || name.rfind("vdev", 0) == 0;
}

std::string DeviceTarget::resolved_name() const {
  return device ? device_label(*device) : name;
}

std::vector<std::string> auto_device_names(const DeviceInventory& inventory) {
  std::vector<std::string> names = {"cpu", "cuda:0", "cuda:N"};
  // Without CUDA, the simulated accelerator covers the non-zero-index path.
  if (inventory.cuda_count == 0) {
    names.push_back("vdev:0");
    names.push_back("vdev:1");
  }
  names.push_back("meta");
  return names;
}

DeviceTarget resolve_device(const std::string& token, const DeviceInventory& inv) {
  if (token == "cpu") return {"cpu", c10::Device(c10::DeviceType::CPU), ""};
  if (token == "meta") return {"meta", c10::Device(c10::DeviceType::Meta), ""};
  const std::string no_cuda = inv.cuda_count == 0 && !inv.cuda_compiled
                                  ? " (this build has no CUDA support)"
                                  : "";
  if (auto t = resolve_family(token, "cuda", inv.cuda_count, cuda_target, inv,
                              "CUDA devices; this machine has", no_cuda)) {
    return *t;
  }
  if (auto t = resolve_family(token, "vdev", inv.vdev_count, vdev_target, inv,
                              "virtual device indices; there are", "")) {
    return *t;
  }
  throw UsageError(fmt::format("unknown device '{}' (expected one of: {})", token, kGrammar));
}

std::vector<DeviceTarget> parse_device_list(const std::string& text, const DeviceInventory& inv) {
  std::vector<DeviceTarget> out;
  auto add = [&](const std::string& token) {
    auto target = resolve_device(token, inv);
    const bool seen = std::any_of(out.begin(), out.end(),
                                  [&](const DeviceTarget& t) { return t.name == target.name; });
    if (!seen) out.push_back(std::move(target));
  };
  for (const auto& token : split(text, ',')) {
    if (token == "auto" || token == "all") {
      for (const auto& name : auto_device_names(inv)) add(name);
    } else {
      add(token);
    }
  }
  if (out.empty()) throw UsageError(fmt::format("empty device list (expected one of: {})", kGrammar));
  return out;
}

at::Tensor pinned_empty(at::IntArrayRef sizes, at::ScalarType dtype, c10::DeviceType type) {
  if (type == c10::DeviceType::CUDA) return cuda::pinned_empty(sizes, dtype);
  if (type == c10::DeviceType::PrivateUse1) return vdev::async::pinned_empty(sizes, dtype);
  return at::empty(sizes, at::TensorOptions().dtype(dtype));
}

}  // namespace devparity
