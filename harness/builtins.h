#pragma once
/// register_builtins(): adds the built-in transforms, checks and reporters to
/// their registries. Explicit on purpose: static libraries drop object files
/// that nothing references, and registration macros with them.

namespace devparity {

/// Idempotent and thread-safe; call once before loading suites. Also
/// installs the virtual device with two indices.
void register_builtins();

}  // namespace devparity
