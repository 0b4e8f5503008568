#pragma once
/// devparity's virtual accelerator: "vdev:K", several device indices backed
/// by CPU memory on LibTorch's PrivateUse1 key. It computes real values with
/// the CPU kernels and enforces placement like CUDA does: an op whose tensors
/// span two devices fails with "Expected all tensors to be on the same
/// device", so cuda:N-class bugs (state left on index 0 while the data lives
/// on index 1) show on machines without GPUs.
///
/// Note [Virtual device limits]
/// By default the virtual device is synchronous: every op completes before
/// the next, so stream and event ordering bugs (an event recorded before the
/// work, a copy read before it finished) are not modelled; its asynchronous
/// mode (vdev/async.h) models them. Values equal the CPU's exactly (same
/// kernels), so its parity is exact against the CPU.

#include <c10/core/Device.h>

#include <string>

namespace devparity::vdev {

/// True when this build has the virtual device (vdev/backend.cpp).
bool compiled();

/// Installs the backend with `count` device indices (1..16). Call before
/// making tensors on it; calling again changes the count.
void install(int count);

/// Number of device indices installed (0 before install() or without support).
int device_count();

/// The LibTorch device of vdev:`index`.
c10::Device device(int index);

/// True when LibTorch itself knows the device as "vdev" (2.x, where the
/// backend registers its name: c10::Device("vdev:1") parses and prints so);
/// false on 1.x, where LibTorch says "privateuseone:1".
bool named_in_libtorch();

/// One line for reports: what the device is and what it does not model.
std::string description();

}  // namespace devparity::vdev
