#pragma once
/// The autograd engine's device threads for the virtual device, whatever the
/// process did before it was installed (Note [Autograd device threads]).

#include <c10/core/DeviceType.h>

namespace devparity::vdev::autograd_threads {

/// Makes the process's autograd engine run backward work on vdev:0..count-1:
/// the engine's device pool made now if no backward made it yet, and grown by
/// the indices it lacks. Called by install().
void serve(int count);

/// In a fork of a process whose pool devparity grew, the threads it started
/// are gone: starts them again (a no-op anywhere else). Called where vdev
/// memory is allocated and by serve(), so a fork's first vdev tensor has them.
void renew_after_fork();

/// True while serve() has the engine size its pool: the virtual device's
/// guard then counts no devices, so that PyTorch starts none of its threads
/// (devparity starts them, without marking forks as unable to run autograd).
bool sizing_pool();

/// Device threads the engine has: one per index, shared by every device type.
int pool_size();

/// True when PyTorch itself started device threads in this process (a
/// device guard counted devices at the engine's first backward: CUDA's, or
/// Debian's LibTorch 2.6's Vulkan): it then refuses autograd in every fork,
/// and a worker that must run backward has to be a fresh process.
bool forks_refuse_autograd();

}  // namespace devparity::vdev::autograd_threads
