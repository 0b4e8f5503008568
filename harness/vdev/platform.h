#pragma once
// What the virtual device needs from the LibTorch series it is built
// against. CMake compiles one of vdev/platform_torch1.cpp and
// vdev/platform_torch2.cpp (dp_detect_torch_series); nothing else in the
// backend differs between 1.x and 2.x.

#include <c10/core/Allocator.h>
#include <c10/core/Device.h>

#include <string>

namespace devparity::vdev::platform {

/// The device index new memory belongs to (the backend's current index).
c10::DeviceIndex current_index();

/// Virtual-device memory: CPU memory stamped with current_index(), and its
/// deleter; what each series' allocator hands out.
c10::DataPtr allocate_memory(size_t bytes);
void free_memory(void* p);

/// The allocator of virtual-device memory (allocate_memory behind the
/// series' Allocator interface).
c10::Allocator* allocator();

/// Pinned host memory for copies with the virtual device (Note
/// [Stream-ordered release]): runtime::allocate_pinned behind the series'
/// Allocator interface.
c10::Allocator* pinned_allocator();

/// Registration beyond the kernels, once per process, by install() alone
/// (Note [One accelerator per process]): the device guard; on 2.x also the
/// backend's name ("vdev", so LibTorch itself prints and parses vdev:K) and
/// its hooks.
void register_backend();

/// Whether register_backend() gives the backend its name in LibTorch.
bool names_backend();

/// vdev::process_accelerator() for this series.
std::string accelerator_name();

}  // namespace devparity::vdev::platform
