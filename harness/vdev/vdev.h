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
/// kernels), so its parity is exact against the CPU, except where a model of
/// CUDA's arithmetic moved them (Note [CUDA's arithmetic on vdev]).

#include <c10/core/Device.h>

#include <string>

namespace devparity::vdev {

/// True when this build has the virtual device (vdev/install.cpp).
bool compiled();

/// Note [One accelerator per process]
/// LibTorch 2.x makes a named PrivateUse1 backend the process's accelerator
/// ("Whenever a PrivateUse1 device is registered, use it first",
/// ATen/DeviceAccelerator.cpp), and the autograd engine asks the accelerator
/// for the streams of every node (Node::stream() in 2.6 and 2.11): with vdev
/// installed, a CUDA node has no stream, so 2.6 runs CUDA's backward on the
/// thread's current stream instead of its forward's, and 2.11 asserts
/// ("opt_ready_stream && opt_parent_stream", engine.cpp's evaluate_function,
/// seen on an H100). LibTorch 1.13's engine names CUDA's streams outright
/// (DeviceType::CUDA in engine.cpp) and has no accelerator, but one rule holds
/// for every series: nothing of the virtual device - its guard, name, hooks,
/// allocator, kernels' checks - is registered in a process until install(),
/// and a process that runs CUDA rows never installs it. `devparity run` runs
/// the vdev rows of a run with CUDA rows in a worker process of their own
/// (run/vdev_worker.h); Python's audit() and the pytest plugin skip, with the
/// reason, the rows of whichever kind this process cannot host.

/// Installs the backend with `count` device indices (1..16): registers it
/// (above) and has the autograd engine serve its indices (Note [Autograd
/// device threads]). Call before making tensors on it; calling again changes
/// the count.
void install(int count);

/// True once install() ran in this process.
bool installed();

/// The device type LibTorch takes for this process's accelerator
/// (at::getAccelerator on 2.x: "vdev" once installed there), "none" when it
/// finds none, or "" on LibTorch 1.x, which has no such notion.
std::string process_accelerator();

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
