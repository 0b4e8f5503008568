#include "harness/subject/interleaving_sweep.h"

#include "harness/base/rng.h"
#include "harness/device/device.h"
#include "harness/trace/finding.h"

#include <fmt/format.h>

#include <cstring>
#include <string>

namespace devparity {
namespace {

// Elements whose bytes differ, and the first of them; -1 when the tensors
// have different shapes or dtypes. Bytes, so that NaN equals itself.
struct ByteDiff {
  int64_t differing = 0;
  int64_t first = -1;
};

ByteDiff byte_diff(const at::Tensor& a, const at::Tensor& b) {
  ByteDiff d;
  if (a.sizes() != b.sizes() || a.scalar_type() != b.scalar_type()) return {-1, -1};
  const auto ca = a.contiguous(), cb = b.contiguous();
  const auto* pa = static_cast<const char*>(ca.data_ptr());
  const auto* pb = static_cast<const char*>(cb.data_ptr());
  const auto size = static_cast<int64_t>(ca.element_size());
  for (int64_t i = 0; i < ca.numel(); ++i) {
    if (std::memcmp(pa + i * size, pb + i * size, size) == 0) continue;
    if (d.differing++ == 0) d.first = i;
  }
  return d;
}

std::string differences(const char* what, const at::Tensor& mine, const at::Tensor& other) {
  if (!mine.defined() || !other.defined()) return {};
  const auto d = byte_diff(mine, other);
  if (d.differing == 0) return {};
  if (d.differing < 0) return fmt::format("its {} has another shape or dtype", what);
  return fmt::format("{} of {} elements of its {} differ (the first at flat index {})", d.differing,
                     mine.numel(), what, d.first);
}

Finding swept(const Execution& first, const Interleaving& other, const std::string& what,
             const c10::Device& device) {
  Finding f;
  f.kind = finding_kind::kUnsynchronizedAccess;
  f.message = fmt::format(
      "under interleaving seed {}{} {} from its run under interleaving seed {}: a result depends on "
      "the order the streams ran in, through an access the race detector did not see (a raw host "
      "read, Note [Interleaving sweep])",
      other.seed, other.schedule == vdev::async::Schedule::kLazy ? " (lazy: work ran only when a sync needed it)" : "",
      what, first.interleaving_seed);
  f.device = device_label(device);
  return f;
}

}  // namespace

Interleaving interleaving_of(uint64_t trial_seed, int k) {
  Interleaving i;
  // 53 bits: reports carry it as a JSON number, exact in every reader (the HTML page's too).
  i.seed = derive_seed(trial_seed, k == 0 ? std::string("interleaving") : "interleaving-" + std::to_string(k)) >> 11;
  if (k == 1) {
    i.schedule = vdev::async::Schedule::kLazy;
    const auto own = interleaving_of(trial_seed, 0).seed;
    if ((i.seed ^ own) % 2 == 0) i.seed ^= 1;  // the other poison byte
  }
  return i;
}

void sweep_interleavings(const Transform& subject, const at::Tensor& input, const nlohmann::json& params,
                         const c10::Device& device, const ExecuteOptions& options, Execution& first) {
  for (int k = 1; k < options.interleavings; ++k) {
    auto again = options;
    again.interleaving = k;
    again.keep_unrounded = false;
    const auto other = execute(subject, input, params, device, again);
    std::string what;
    if (!other.ran) {
      what = "it failed (" + other.error.message + ") where it ran";
    } else {
      what = differences("output", first.output, other.output);
      if (what.empty()) what = differences("gradient", first.gradient, other.gradient);
      if (!what.empty()) what = "it ran, but " + what + ",";
    }
    if (what.empty()) continue;
    first.findings.push_back(swept(first, interleaving_of(options.seed, k), what, device));
    return;
  }
}

}  // namespace devparity
