#include "harness/trace/replayed_draws.h"

#include "harness/device/device_kinds.h"

#include <ATen/CPUGeneratorImpl.h>
#include <ATen/core/Generator.h>

#include <mutex>

namespace devparity {

ReplayedDraws::ReplayedDraws(uint64_t seed, const c10::Device& device) {
  auto gen = at::detail::getDefaultCPUGenerator();
  std::lock_guard<std::mutex> lock(gen.mutex());
  saved_ = gen.get_state();
  gen.set_current_seed(seed);
  if (const auto seed_device = device_kind(device.type()).seed_generator) {
    seed_device(device.has_index() ? device.index() : 0, seed);
  }
}

ReplayedDraws::~ReplayedDraws() {
  try {
    auto gen = at::detail::getDefaultCPUGenerator();
    std::lock_guard<std::mutex> lock(gen.mutex());
    gen.set_state(saved_);
  } catch (...) {
  }
}

}  // namespace devparity
