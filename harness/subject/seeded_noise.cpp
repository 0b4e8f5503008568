#include "harness/subject/seeded_noise.h"

#include "harness/base/dtype.h"
#include "harness/base/error.h"
#include "harness/base/rng.h"

#include <ATen/ATen.h>
#include <fmt/format.h>

namespace devparity {
namespace {

template <typename T>
void fill(T* data, int64_t numel, bool is_byte, uint64_t seed) {
  SplitMix64 rng(seed);
  for (int64_t i = 0; i < numel; ++i) {
    const uint64_t bits = rng.next();
    if (is_byte) {
      data[i] = static_cast<T>(bits >> 56);
    } else {
      data[i] = static_cast<T>(static_cast<double>(bits >> 40) / 16777215.0);
    }
  }
}

}  // namespace

at::Tensor seeded_noise(c10::IntArrayRef shape, c10::ScalarType dtype, uint64_t seed) {
  // Half precision: the float32 draws, rounded (the same image as float32's, as a GPU pipeline's
  // .half() of it).
  if (is_half_precision(dtype)) return seeded_noise(shape, c10::ScalarType::Float, seed).to(dtype);
  auto out = at::empty(shape, at::TensorOptions().dtype(dtype).device(at::kCPU));
  switch (dtype) {
    case c10::ScalarType::Byte:
      fill(out.data_ptr<uint8_t>(), out.numel(), true, seed);
      break;
    case c10::ScalarType::Float:
      fill(out.data_ptr<float>(), out.numel(), false, seed);
      break;
    case c10::ScalarType::Double:
      fill(out.data_ptr<double>(), out.numel(), false, seed);
      break;
    default:
      throw InputError(fmt::format("cannot generate {} inputs (supported: {})", dtype_name(dtype), known_dtype_names()));
  }
  return out;
}

}  // namespace devparity
