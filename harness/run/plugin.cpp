#include "harness/run/plugin.h"

#include "harness/base/error.h"
#include "harness/checks/registry.h"
#include "harness/subject/register.h"

#include <dlfcn.h>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <deque>
#include <filesystem>
#include <mutex>

namespace devparity {
namespace {

std::mutex g_mutex;
std::deque<LoadedPlugin>& plugins() {
  static std::deque<LoadedPlugin> p;
  return p;
}
std::vector<LoadedPlugin>& snapshot() {
  static std::vector<LoadedPlugin> s;
  return s;
}

std::vector<std::string> added(const std::vector<std::string>& before, const std::vector<std::string>& after) {
  std::vector<std::string> out;
  for (const auto& n : after) {
    if (std::find(before.begin(), before.end(), n) == before.end()) out.push_back(n);
  }
  return out;
}

}  // namespace

const LoadedPlugin& load_plugin(const std::string& path) {
  std::lock_guard<std::mutex> lock(g_mutex);
  if (!std::filesystem::exists(path)) throw InputError(fmt::format("--plugin {}: no such file", path));
  const auto transforms_before = TransformRegistry::global().names();
  const auto checks_before = CheckRegistry::global().names();
  // A path with a slash makes dlopen take it as given, not search LD_LIBRARY_PATH.
  const auto resolved = std::filesystem::canonical(path).string();
  for (const auto& p : plugins()) {
    if (p.path == resolved) return p;  // dlopen would hand back the same library
  }
  // RTLD_GLOBAL: the plugin's custom operators and symbols serve later
  // libraries and TorchScript modules too. The handle is never closed: the
  // registries hold objects whose code lives in the library.
  void* handle = nullptr;
  // glibc declares dlopen noexcept, yet a plugin's static initialiser may
  // throw through it; calling through a plain pointer keeps the handler.
  void* (*volatile open)(const char*, int) = &dlopen;
  try {
    handle = open(resolved.c_str(), RTLD_NOW | RTLD_GLOBAL);
  } catch (const std::exception& e) {
    // A static initialiser threw (LibTorch's TORCH_LIBRARY does, for a
    // namespace registered twice).
    take_registration_errors();
    throw InputError(fmt::format("--plugin {}: its registration threw: {}", path, torch_message(e)));
  }
  if (handle == nullptr) {
    const char* why = dlerror();
    throw InputError(fmt::format("--plugin {}: cannot load: {}", path, why != nullptr ? why : "unknown error"));
  }
  const auto errors = take_registration_errors();
  if (!errors.empty()) {
    throw InputError(fmt::format("--plugin {}: {} registration(s) failed: {}", path, errors.size(),
                                 fmt::join(errors, "; ")));
  }
  LoadedPlugin p;
  p.path = resolved;
  p.transforms = added(transforms_before, TransformRegistry::global().names());
  p.checks = added(checks_before, CheckRegistry::global().names());
  plugins().push_back(std::move(p));
  snapshot().assign(plugins().begin(), plugins().end());
  return plugins().back();
}

const std::vector<LoadedPlugin>& loaded_plugins() { return snapshot(); }

nlohmann::json plugins_json() {
  auto out = nlohmann::json::array();
  for (const auto& p : loaded_plugins()) {
    out.push_back({{"path", p.path}, {"transforms", p.transforms}, {"checks", p.checks}});
  }
  return out;
}

}  // namespace devparity
