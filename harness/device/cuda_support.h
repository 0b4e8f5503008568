#pragma once
/// The only interface to CUDA-specific code. cuda_support.cpp implements it
/// against a CUDA LibTorch; cuda_stub.cpp is compiled instead on CPU builds
/// (CMake picks one, see DEVPARITY_WITH_CUDA), so nothing else includes CUDA
/// headers.

#include <ATen/core/Tensor.h>

#include <cstdint>
#include <memory>
#include <string>

namespace devparity::cuda {

/// True when this binary was built with the CUDA support file.
bool compiled();

/// Number of CUDA devices LibTorch sees (0 on CPU builds).
int device_count();

/// CUDA runtime version LibTorch was built with ("12.4"), empty on CPU builds.
std::string runtime_version();

/// A human description of device `index` ("NVIDIA H100 80GB HBM3, 79.1 GiB, sm_90").
std::string device_model(int index);

/// Seeds the default generator of device `index` (no-op on CPU builds:
/// there is none).
void seed_default_generator(int index, uint64_t seed);

/// Blocks until all work queued on device `index` has finished.
void synchronize(int index);

/// Pinned (page-locked) host memory, from LibTorch's caching host allocator.
at::Tensor pinned_empty(at::IntArrayRef sizes, at::ScalarType dtype);

/// Makes a stream from LibTorch's pool current on this thread for device
/// `index` until the returned object is destroyed, so that threads of a
/// stress run do not share one stream. Null on CPU builds.
std::shared_ptr<void> use_pool_stream(int index);

}  // namespace devparity::cuda
