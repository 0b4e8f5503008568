// CUDA builds only (DEVPARITY_WITH_CUDA). Uses APIs present in LibTorch 1.13 and 2.x.
#include "harness/device/cuda_support.h"

#include <ATen/ATen.h>
#include <ATen/EmptyTensor.h>
#include <ATen/detail/CUDAHooksInterface.h>
#include <ATen/cuda/CUDAContext.h>
#include <ATen/cuda/CUDAGeneratorImpl.h>
#include <c10/cuda/CUDAGuard.h>
#include <c10/cuda/CUDAStream.h>
#include <torch/cuda.h>

#include <fmt/format.h>

#include <mutex>

namespace devparity::cuda {

bool compiled() { return true; }

int device_count() { return static_cast<int>(torch::cuda::device_count()); }

std::string runtime_version() {
#ifdef CUDA_VERSION
  return fmt::format("{}.{}", CUDA_VERSION / 1000, (CUDA_VERSION % 1000) / 10);
#else
  return "unknown";
#endif
}

std::string device_model(int index) {
  const cudaDeviceProp* prop = at::cuda::getDeviceProperties(index);
  return fmt::format("{}, {:.1f} GiB, sm_{}{}", prop->name,
                     static_cast<double>(prop->totalGlobalMem) / (1024.0 * 1024.0 * 1024.0),
                     prop->major, prop->minor);
}

void seed_default_generator(int index, uint64_t seed) {
  auto gen = at::cuda::detail::getDefaultCUDAGenerator(static_cast<c10::DeviceIndex>(index));
  std::lock_guard<std::mutex> lock(gen.mutex());
  gen.set_current_seed(seed);
}

void synchronize(int index) { torch::cuda::synchronize(index); }

// CUDA's own pinned pool, named: at::empty(pin_memory) asks whichever backend
// LibTorch 2.x takes for the process's accelerator (Note [One accelerator per
// process]), and CUDA's non-blocking copy records its event on the block as
// one of CUDA's caching host allocator.
at::Tensor pinned_empty(at::IntArrayRef sizes, at::ScalarType dtype) {
  return at::detail::empty_generic(sizes, at::detail::getCUDAHooks().getPinnedMemoryAllocator(),
                                   c10::DispatchKeySet(c10::DispatchKey::CPU), dtype, {});
}

std::shared_ptr<void> use_pool_stream(int index) {
  auto stream = c10::cuda::getStreamFromPool(/*isHighPriority=*/false, static_cast<c10::DeviceIndex>(index));
  return std::make_shared<c10::cuda::CUDAStreamGuard>(stream);
}

}  // namespace devparity::cuda
