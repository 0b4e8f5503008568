#pragma once
/// register_builtins(): adds the built-in transforms, checks and reporters to
/// their registries. Explicit on purpose: static libraries drop object files
/// that nothing references, and registration macros with them.

namespace devparity {

class TransformRegistry;

/// Adds every built-in transform to `registry` (register_builtins() does it
/// to the global one; a test may list them apart from its own).
void register_builtin_transforms(TransformRegistry& registry);

/// vdev's own models of CUDA's arithmetic alone (Note [CUDA's arithmetic on
/// vdev]), for a process that runs a library's tests on vdev and nothing of
/// devparity's registries (the Python package's install()): unlike
/// register_builtins(), it leaves the process's TorchScript settings alone.
/// Idempotent and thread-safe; register_builtins() calls it.
void register_builtin_cuda_models();

/// Idempotent and thread-safe; call once before loading suites. (Loading
/// libdevparity installs the virtual device: vdev/install.cpp.)
void register_builtins();

}  // namespace devparity
