#pragma once
/// Note [Device kinds]
/// Every kind of device devparity runs on is one row of one table
/// (device_kinds.cpp): how it is named and counted, what `auto` takes of it,
/// whether it has values, whether devparity simulates it, whether it runs the
/// CPU's kernels, whether devparity interleaves its streams, what a device error does to it,
/// whether LibTorch may take it for the process's accelerator, and the few
/// actions that differ per kind (synchronise, seed, pinned memory, a stream per
/// thread, installing it). Device parsing, the environment block, `devparity
/// list`, execution, the run verdict, the check dispatch and the device
/// health read the row; none of them tests a device type. A new kind is a new
/// row (and its support file); user code adds one with
/// DEVPARITY_REGISTER_DEVICE_KIND.

#include "harness/base/registration.h"
#include "harness/device/device.h"

#include <ATen/core/Tensor.h>
#include <c10/core/Device.h>

#include <cstdint>
#include <deque>
#include <memory>
#include <string>
#include <vector>

namespace devparity {

/// One kind's row, built by member name: what a kind leaves unset it has
/// not (no values? say so; no install? leave it null).
struct DeviceKind {
  const char* family = "";  ///< "cpu", "cuda", "vdev", "meta": the token and the report's "kind"
  c10::DeviceType type = c10::DeviceType::CPU;  ///< LibTorch's device type
  bool indexed = false;     ///< named <family>, <family>:<k>, <family>:N
  bool has_values = true;   ///< false: shapes and dtypes only (meta)
  bool simulated = false;   ///< devparity simulates it (meta, vdev)
  bool runs_cpu_kernels = false;  ///< computes with the CPU's kernels, so equals the CPU exactly (vdev)
  bool poisoned_by_device_errors = false;  ///< a device error leaves the process's context unusable (CUDA)
  /// LibTorch may take it for the process's accelerator: rows of two such
  /// kinds never run in one process (Note [One accelerator per process]).
  bool accelerator = false;

  /// Indices this machine has, as probed into `inventory` (1 for unindexed
  /// kinds). Required.
  int (*count)(const DeviceInventory& inventory) = nullptr;
  /// Why <family>:<index> is absent on this machine ("" when present); index
  /// -1 asks about <family>:N, which needs two or more. Required.
  std::string (*absent)(const std::string& name, int index, const DeviceInventory& inventory) = nullptr;
  /// What `auto` takes of this kind on a machine like `inventory`. Required.
  std::vector<std::string> (*auto_names)(const DeviceInventory& inventory) = nullptr;
  /// One line for the environment block: what device `index` is. Required.
  std::string (*model)(int index) = nullptr;
  /// Its streams run in an interleaving devparity draws per trial (the
  /// asynchronous vdev, when on); null: never.
  bool (*interleaves)() = nullptr;
  /// Blocks until device `index` has finished its work; null: nothing to wait for.
  void (*synchronize)(int index) = nullptr;
  /// Seeds the device's own default generator; null: it has none.
  void (*seed_generator)(int index, uint64_t seed) = nullptr;
  /// Pinned host memory for non-blocking copies; null: pageable memory.
  at::Tensor (*pinned_empty)(at::IntArrayRef sizes, at::ScalarType dtype) = nullptr;
  /// Makes a stream of the device's pool current on this thread until the
  /// result is destroyed; null: the kind has one stream per thread already.
  std::shared_ptr<void> (*use_pool_stream)(int index) = nullptr;
  /// Readies this process for the kind's rows, before the first runs (the
  /// virtual device: installs it with the inventory's indices); null: the
  /// kind needs nothing of devparity's. A kind with it is the one that
  /// leaves for a worker when two accelerators are asked for.
  void (*install)(const DeviceInventory& inventory) = nullptr;
  /// Whether install() ran in this process; null with install.
  bool (*installed)() = nullptr;
};

/// Every kind, in the order `auto` and the environment list them: the
/// built-in four (cpu, cuda, vdev, meta), then those user code added.
const std::deque<DeviceKind>& device_kinds();
/// Adds a kind after the others; throws std::invalid_argument for a row
/// without a family, a required action or a type of its own, or with a
/// family another kind has.
void add_device_kind(DeviceKind kind);
/// add_device_kind() for user code: never throws; a problem is recorded
/// (base/registration.h) for whoever loads the plugin to report.
bool register_device_kind(DeviceKind kind) noexcept;
/// The row of `type`; throws std::out_of_range for a type no row has.
const DeviceKind& device_kind(c10::DeviceType type);
/// The row a device token names ("vdev:1", "cuda:N", "meta"); null when none.
const DeviceKind* device_kind_named(const std::string& token);

/// The host's CPU as /proc/cpuinfo names it ("unknown" elsewhere).
std::string host_cpu_model();

}  // namespace devparity

/// Registers a device kind from user code (a plugin's backend) at static
/// initialisation: DEVPARITY_REGISTER_DEVICE_KIND(DeviceKind{...}).
#define DEVPARITY_REGISTER_DEVICE_KIND(...) \
  DEVPARITY_REGISTER_AT_STARTUP(::devparity::register_device_kind(__VA_ARGS__))
