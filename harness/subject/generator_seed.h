#pragma once
/// Seeds that subjects draw from their sampling generator.

#include <ATen/CPUGeneratorImpl.h>
#include <ATen/core/Generator.h>

#include <cstdint>
#include <mutex>

namespace devparity {

/// A seed for tensors a subject makes from a recipe (weights, extra
/// arguments): 53 bits of one draw, so it survives JSON numbers exactly.

inline uint64_t draw_seed(at::Generator& generator) {
  std::lock_guard<std::mutex> lock(generator.mutex());
  return generator.get<at::CPUGeneratorImpl>()->random64() >> 11;
}

}  // namespace devparity
