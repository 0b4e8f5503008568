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
/// row (and its support file).

#include "harness/device/device.h"

#include <ATen/core/Tensor.h>
#include <c10/core/Device.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace devparity {

struct DeviceKind {
  const char* family;      ///< "cpu", "cuda", "vdev", "meta": the token and the report's "kind"
  c10::DeviceType type;    ///< LibTorch's device type
  bool indexed;            ///< named <family>, <family>:<k>, <family>:N
  bool has_values;         ///< false: shapes and dtypes only (meta)
  bool simulated;          ///< devparity simulates it (meta, vdev)
  bool runs_cpu_kernels;   ///< computes with the CPU's kernels, so equals the CPU exactly (vdev)
  bool poisoned_by_device_errors;  ///< a device error leaves the process's context unusable (CUDA)
  /// LibTorch may take it for the process's accelerator: rows of two such
  /// kinds never run in one process (Note [One accelerator per process]).
  bool accelerator;

  /// Indices this machine has, as probed into `inventory` (1 for unindexed kinds).
  int (*count)(const DeviceInventory& inventory);
  /// Why <family>:<index> is absent on this machine ("" when present); index
  /// -1 asks about <family>:N, which needs two or more.
  std::string (*absent)(const std::string& name, int index, const DeviceInventory& inventory);
  /// What `auto` takes of this kind on a machine like `inventory`.
  std::vector<std::string> (*auto_names)(const DeviceInventory& inventory);
  /// One line for the environment block: what device `index` is.
  std::string (*model)(int index);
  /// Its streams run in an interleaving devparity draws per trial (the
  /// asynchronous vdev, when on); null: never.
  bool (*interleaves)();
  /// Blocks until device `index` has finished its work; null: nothing to wait for.
  void (*synchronize)(int index);
  /// Seeds the device's own default generator; null: it has none.
  void (*seed_generator)(int index, uint64_t seed);
  /// Pinned host memory for non-blocking copies; null: pageable memory.
  at::Tensor (*pinned_empty)(at::IntArrayRef sizes, at::ScalarType dtype);
  /// Makes a stream of the device's pool current on this thread until the
  /// result is destroyed; null: the kind has one stream per thread already.
  std::shared_ptr<void> (*use_pool_stream)(int index);
  /// Readies this process for the kind's rows, before the first runs (the
  /// virtual device: installs it with the inventory's indices); null: the
  /// kind needs nothing of devparity's. A kind with it is the one that
  /// leaves for a worker when two accelerators are asked for.
  void (*install)(const DeviceInventory& inventory);
  /// Whether install() ran in this process; null with install.
  bool (*installed)();
};

/// Every kind, in the order `auto` and the environment list them.
const std::vector<DeviceKind>& device_kinds();
/// The row of `type`; throws std::out_of_range for a type no row has.
const DeviceKind& device_kind(c10::DeviceType type);
/// The row a device token names ("vdev:1", "cuda:N", "meta"); null when none.
const DeviceKind* device_kind_named(const std::string& token);

/// The host's CPU as /proc/cpuinfo names it ("unknown" elsewhere).
std::string host_cpu_model();

}  // namespace devparity
