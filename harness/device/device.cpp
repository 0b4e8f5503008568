#include "harness/device/device.h"

#include "harness/base/error.h"
#include "harness/base/text.h"
#include "harness/device/cuda_support.h"
#include "harness/device/device_kinds.h"
#include "harness/vdev/vdev.h"

#include <ATen/ATen.h>

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <stdexcept>

namespace devparity {
namespace {

// The grammar, from the table: "cpu, cuda, cuda:<index>, cuda:N, ..., auto".
std::string grammar() {
  std::string out;
  for (const auto& k : device_kinds()) {
    const std::string f = k.family;
    out += (out.empty() ? "" : ", ") + (k.indexed ? f + ", " + f + ":<index>, " + f + ":N" : f);
  }
  return out + ", auto";
}

std::optional<int> parse_index(const std::string& text) {
  if (text.empty() || text.size() > 4) return std::nullopt;
  for (char c : text) {
    if (!std::isdigit(static_cast<unsigned char>(c))) return std::nullopt;
  }
  return std::stoi(text);
}

// <family>:<index> (-1 for <family>:N) as named `name`, present or with the reason.
DeviceTarget target_of(const DeviceKind& kind, const std::string& name, int index, const DeviceInventory& inv) {
  DeviceTarget target;
  target.name = name;
  target.absent_reason = kind.absent(name, index, inv);
  if (!target.absent_reason.empty()) return target;
  if (!kind.indexed) {
    target.device = c10::Device(kind.type);
  } else {
    if (index < 0) index = kind.count(inv) - 1;  // <family>:N: the highest index
    target.device = c10::Device(kind.type, static_cast<c10::DeviceIndex>(index));
  }
  return target;
}

}  // namespace

DeviceInventory DeviceInventory::probe() { return probe(vdev::device_count()); }

DeviceInventory DeviceInventory::probe(int vdev_count) {
  DeviceInventory inv;
  inv.cuda_compiled = cuda::compiled();
  inv.cuda_count = cuda::device_count();
  inv.vdev_compiled = vdev::compiled();
  inv.vdev_count = inv.vdev_compiled ? vdev_count : 0;
  return inv;
}

std::optional<c10::Device> other_current_device(const c10::Device& device) {
  if (!device.has_index()) return std::nullopt;
  const int count = device_kind(device.type()).count(DeviceInventory::probe());
  if (count < 2) return std::nullopt;
  return c10::Device(device.type(), static_cast<c10::DeviceIndex>((device.index() + 1) % count));
}

std::string device_label(const c10::Device& device) {
  // LibTorch 1.x calls the virtual device "privateuseone"; the table's family is the name.
  const auto& kind = device_kind(device.type());
  if (!kind.indexed || !device.has_index()) return kind.family;
  return std::string(kind.family) + ":" + std::to_string(static_cast<int>(device.index()));
}

const DeviceKind& DeviceTarget::kind() const {
  if (device) return device_kind(device->type());
  if (const auto* named = device_kind_named(name)) return *named;
  throw std::logic_error(fmt::format("device target '{}' names no device kind", name));
}

bool DeviceTarget::has_values() const { return kind().has_values; }

bool DeviceTarget::simulated() const { return kind().simulated; }

std::string DeviceTarget::resolved_name() const {
  return device ? device_label(*device) : name;
}

std::vector<std::string> auto_device_names(const DeviceInventory& inventory) {
  std::vector<std::string> names;
  for (const auto& k : device_kinds()) {
    for (auto& n : k.auto_names(inventory)) names.push_back(std::move(n));
  }
  return names;
}

DeviceTarget resolve_device(const std::string& token, const DeviceInventory& inv) {
  if (const auto* kind = device_kind_named(token)) {
    const std::string family = kind->family;
    if (token == family) return target_of(*kind, kind->indexed ? family + ":0" : family, 0, inv);
    const std::string rest = token.substr(family.size() + 1);
    if (rest == "N") return target_of(*kind, token, -1, inv);
    if (const auto index = parse_index(rest)) return target_of(*kind, token, *index, inv);
  }
  throw UsageError(fmt::format("unknown device '{}' (expected one of: {})", token, grammar()));
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
  if (out.empty()) throw UsageError(fmt::format("empty device list (expected one of: {})", grammar()));
  return out;
}

at::Tensor pinned_empty(at::IntArrayRef sizes, at::ScalarType dtype, c10::DeviceType type) {
  for (const auto& k : device_kinds()) {
    if (k.type == type && k.pinned_empty != nullptr) return k.pinned_empty(sizes, dtype);
  }
  return at::empty(sizes, at::TensorOptions().dtype(dtype));
}

}  // namespace devparity
