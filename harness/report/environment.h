#pragma once
/// The self-description every report starts with: tool, LibTorch, CUDA,
/// devices, host. Reports from different machines and releases are only
/// comparable with it.

#include <nlohmann/json.hpp>

#include <string>

namespace devparity {

struct DeviceInventory;

/// {"name": "devparity", "version": "0.1.0", "git": "abc1234"}.
nlohmann::json describe_tool();

/// torch_version, cuda_available, cuda_version, tf32 flags, devices (with
/// models and whether they are present), host (name, OS, CPU, capability,
/// threads).
nlohmann::json describe_environment(const DeviceInventory& inventory);

/// The current UTC time as ISO 8601 ("2026-11-22T05:08:46Z").
std::string utc_timestamp();

/// The ISA LibTorch's CPU kernels dispatch to ("AVX2"), from at::show_config();
/// CPU reference outputs can depend on it (pytorch/vision#8374).
std::string cpu_capability();

}  // namespace devparity
