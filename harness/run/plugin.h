#pragma once
/// Plugins: shared libraries that register transforms (and checks) when
/// loaded, with DEVPARITY_REGISTER_TRANSFORM or register_transform(), or
/// that register LibTorch custom operators (TORCH_LIBRARY) for TorchScript
/// modules to call. `devparity run --plugin libmine.so` loads them.

#include <nlohmann/json_fwd.hpp>

#include <string>
#include <vector>

namespace devparity {

/// What one plugin brought.
struct LoadedPlugin {
  std::string path;
  std::vector<std::string> transforms;  ///< transform names it registered
  std::vector<std::string> checks;      ///< check names it registered
};

/// Loads `path` (dlopen, symbols global so that custom operators resolve).
/// Throws InputError with the loader's message when it cannot be loaded.
const LoadedPlugin& load_plugin(const std::string& path);

/// Every plugin loaded in this process, in order.
const std::vector<LoadedPlugin>& loaded_plugins();

/// [{"path": ..., "transforms": [...], "checks": [...]}] for reports.
nlohmann::json plugins_json();

}  // namespace devparity
