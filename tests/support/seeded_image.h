#pragma once
// Test images from their own seeded CPU generator: the same pixels whatever
// ran before in the process (at::rand without a generator reads the global
// one, so a test's input would depend on the tests before it).

#include <ATen/ATen.h>
#include <ATen/CPUGeneratorImpl.h>

#include <cstdint>
#include <vector>

namespace devparity::test_support {

/// An image of `shape` (NCHW): uniform in [0, 1) for floating dtypes, uniform
/// over 0..255 for uint8; `seed` picks the pixels.
inline at::Tensor seeded_image(std::vector<int64_t> shape, c10::ScalarType dtype = at::kFloat, uint64_t seed = 0) {
  auto gen = at::make_generator<at::CPUGeneratorImpl>(seed);
  if (dtype == at::kByte) return at::randint(0, 256, shape, gen, at::TensorOptions().dtype(at::kLong)).to(at::kByte);
  return at::rand(shape, gen, at::TensorOptions().dtype(at::kDouble)).to(dtype);
}

}  // namespace devparity::test_support
