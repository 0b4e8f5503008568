// CUDA builds only (DEVPARITY_WITH_CUDA). Uses APIs present in LibTorch 1.13 and 2.x.
#include "harness/core/cuda_support.h"

#include <ATen/cuda/CUDAContext.h>
#include <torch/cuda.h>

#include <fmt/format.h>

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

void synchronize(int index) { torch::cuda::synchronize(index); }

}  // namespace devparity::cuda
