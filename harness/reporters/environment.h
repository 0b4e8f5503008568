#pragma once
/// The self-description every report starts with: tool, LibTorch, CUDA,
/// devices, host. Reports from different machines and releases are only
/// comparable with it.

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace devparity {

struct DeviceInventory;
struct DeviceTarget;

/// {"name": "devparity", "version": "0.1.0", "git": "abc1234"}.
nlohmann::json describe_tool();

/// torch_version, cuda_available, cuda_version, tf32 flags, devices (with
/// models and whether they are present), host (name, OS, CPU, capability,
/// threads).
nlohmann::json describe_environment(const DeviceInventory& inventory);

/// A run's device matrix as the report's run.devices lists it: name,
/// present, simulated, and the resolved device or why it is absent.
nlohmann::json describe_devices(const std::vector<DeviceTarget>& devices);

/// The current UTC time as ISO 8601 ("2026-11-22T05:08:46Z").
std::string utc_timestamp();

/// The ISA LibTorch's CPU kernels dispatch to ("AVX2"), from at::show_config();
/// CPU reference outputs can depend on it (pytorch/vision#8374).
std::string cpu_capability();

}  // namespace devparity
