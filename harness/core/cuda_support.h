#pragma once
/// The only interface to CUDA-specific code. cuda_support.cpp implements it
/// against a CUDA LibTorch; cuda_stub.cpp is compiled instead on CPU builds
/// (CMake picks one, see DEVPARITY_WITH_CUDA), so nothing else includes CUDA
/// headers.

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

/// Blocks until all work queued on device `index` has finished.
void synchronize(int index);

}  // namespace devparity::cuda
