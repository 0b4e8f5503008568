#pragma once
/// Seeded uniform noise, the bytes of the "noise" input pattern: SplitMix64
/// from the seed, one draw per element in memory order; uint8 takes the top
/// 8 bits, floating types 24 bits scaled to [0, 1] (exact in float32). The
/// same on every machine and LibTorch version; also what conv2d's seeded
/// weights are made of.

#include <ATen/core/Tensor.h>

#include <cstdint>

namespace devparity {

/// A contiguous CPU tensor of `shape`. Throws InputError for a dtype other
/// than uint8, float32 and float64.
at::Tensor seeded_noise(c10::IntArrayRef shape, c10::ScalarType dtype, uint64_t seed);

}  // namespace devparity
