#include "harness/reporters/environment.h"

#include "harness/device/cuda_support.h"
#include "harness/device/device.h"
#include "harness/device/device_kinds.h"
#include "harness/run/plugin.h"
#include "harness/subject/execution.h"
#include "harness/vdev/vdev.h"

#include <ATen/ATen.h>
#include <ATen/Parallel.h>
#include <torch/version.h>

#include <ctime>
#include <thread>
#include <sys/utsname.h>
#include <unistd.h>

#ifndef DEVPARITY_GIT
#define DEVPARITY_GIT "unknown"
#endif

namespace devparity {

std::string cpu_capability() {
  const std::string config = at::show_config();
  const std::string key = "CPU capability usage: ";
  const auto pos = config.find(key);
  if (pos == std::string::npos) return "unknown";
  const auto end = config.find('\n', pos);
  return config.substr(pos + key.size(), end - pos - key.size());
}

nlohmann::json describe_tool() {
  return {{"name", "devparity"}, {"version", DEVPARITY_VERSION}, {"git", DEVPARITY_GIT}};
}

std::string utc_timestamp() {
  const std::time_t now = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&now, &tm);
  char buf[32];
  std::strftime(buf, sizeof(buf), "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

nlohmann::json describe_environment(const DeviceInventory& inventory) {
  auto devices = nlohmann::json::array();
  for (const auto& kind : device_kinds()) {
    const int count = kind.count(inventory);
    for (int i = 0; i < count; ++i) {
      devices.push_back({{"name", kind.indexed ? std::string(kind.family) + ":" + std::to_string(i) : kind.family},
                         {"kind", kind.family},
                         {"model", kind.model(i)},
                         {"present", true},
                         {"simulated", kind.simulated}});
    }
  }

  utsname uts{};
  uname(&uts);
  char host[256] = {0};
  gethostname(host, sizeof(host) - 1);
  const auto& ctx = at::globalContext();
  const auto cuda_version = cuda::runtime_version();
  return {
      {"torch_version", TORCH_VERSION},
      {"cuda_compiled", inventory.cuda_compiled},
      {"cuda_available", inventory.cuda_count > 0},
      {"cuda_version", cuda_version.empty() ? nlohmann::json(nullptr) : nlohmann::json(cuda_version)},
      {"cuda_device_count", inventory.cuda_count},
      {"vdev_count", inventory.vdev_count},
      // Note [One accelerator per process]: what this process registered, as the run starts.
      {"vdev_installed", vdev::installed()},
      {"accelerator", vdev::process_accelerator().empty() ? nlohmann::json(nullptr)
                                                          : nlohmann::json(vdev::process_accelerator())},
      {"tf32", {{"cublas", ctx.allowTF32CuBLAS()}, {"cudnn", ctx.allowTF32CuDNN()}}},
      {"deterministic_algorithms", ctx.deterministicAlgorithms()},
      {"plugins", plugins_json()},
      {"torchscript", {{"graph_executor_optimize", kSubjectGraphExecutorOptimize}}},
      {"devices", devices},
      {"host",
       {{"hostname", host},
        {"os", std::string(uts.sysname) + " " + uts.release},
        {"machine", uts.machine},
        {"cpu", host_cpu_model()},
        {"cpu_capability", cpu_capability()},
        {"hardware_threads", std::thread::hardware_concurrency()},
        {"torch_threads", at::get_num_threads()}}},
  };
}

nlohmann::json describe_devices(const std::vector<DeviceTarget>& devices) {
  auto out = nlohmann::json::array();
  for (const auto& d : devices) {
    nlohmann::json j = {{"name", d.name}, {"present", d.available()}, {"simulated", d.simulated()}};
    if (d.available()) {
      j["resolved"] = d.resolved_name();
    } else {
      j["reason"] = d.absent_reason;
    }
    out.push_back(j);
  }
  return out;
}

}  // namespace devparity
