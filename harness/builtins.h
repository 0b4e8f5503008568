#pragma once
/// register_builtins(): adds the built-in transforms, checks and reporters to
/// their registries. Explicit on purpose: static libraries drop object files
/// that nothing references, and registration macros with them.

namespace devparity {

class TransformRegistry;

/// Adds every built-in transform to `registry` (register_builtins() does it
/// to the global one; a test may list them apart from its own).
void register_builtin_transforms(TransformRegistry& registry);

/// Idempotent and thread-safe; call once before loading suites. (Loading
/// libdevparity installs the virtual device: vdev/backend.cpp.)
void register_builtins();

}  // namespace devparity
