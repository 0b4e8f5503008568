// Compiled instead of cuda_support.cpp when LibTorch has no CUDA.
#include "harness/device/cuda_support.h"

#include "harness/base/error.h"

namespace devparity::cuda {

bool compiled() { return false; }

int device_count() { return 0; }

std::string runtime_version() { return ""; }

std::string device_model(int /*index*/) { return "unknown (devparity built without CUDA support)"; }

void seed_default_generator(int /*index*/, uint64_t /*seed*/) {}

void synchronize(int index) {
  throw Unsupported("devparity was built without CUDA support; cannot synchronize cuda:" +
                    std::to_string(index));
}

at::Tensor pinned_empty(at::IntArrayRef, at::ScalarType) {
  throw Unsupported("devparity was built without CUDA support; it has no pinned memory");
}

std::shared_ptr<void> use_pool_stream(int /*index*/) { return nullptr; }

}  // namespace devparity::cuda
