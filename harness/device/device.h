#pragma once
/// The device matrix: parsing device names and resolving them on this machine.
///
/// Grammar of one token: `cpu` | `meta` | `cuda` | `cuda:<index>` | `cuda:N` |
/// `vdev` | `vdev:<index>` | `vdev:N` | `auto` | `all`. `cuda` means `cuda:0`
/// and `vdev` `vdev:0`. `cuda:N` / `vdev:N` is the highest index when there
/// are two or more (the "non-zero device" that hides placement bugs). `vdev`
/// is devparity's simulated accelerator (vdev/vdev.h). `auto`/`all` expand to
/// cpu, cuda:0, cuda:N, then vdev:0 and vdev:1 when the machine has no CUDA
/// device, then meta; the CUDA entries are kept, as absent, on machines
/// without them, so that every device gets a result (skipped, with the reason).
/// Each kind is a row of device_kinds.h (Note [Device kinds]).

#include <ATen/core/Tensor.h>
#include <c10/core/Device.h>

#include <optional>
#include <string>
#include <vector>

namespace devparity {

struct DeviceKind;

/// What this machine has, probed once.
struct DeviceInventory {
  int cuda_count = 0;          ///< CUDA devices visible to LibTorch
  bool cuda_compiled = false;  ///< this build has the CUDA support file
  bool vdev_compiled = false;  ///< this build has the virtual device (vdev/vdev.h)
  int vdev_count = 0;          ///< virtual device indices the run has (installed here or in a worker)

  /// Probes the machine; the virtual device's indices are those installed in
  /// this process.
  static DeviceInventory probe();
  /// Probes the machine for a run that has `vdev_count` virtual device
  /// indices, installed in this process or not yet (`devparity run`).
  static DeviceInventory probe(int vdev_count);
};

/// One entry of the device matrix.
struct DeviceTarget {
  std::string name;                   ///< as named in ids and reports: "cpu", "cuda:N"
  std::optional<c10::Device> device;  ///< resolved device; empty when absent here
  std::string absent_reason;          ///< why `device` is empty

  /// True when the device exists on this machine.
  bool available() const { return device.has_value(); }
  /// Its row of the device kinds (Note [Device kinds]), present or not.
  const DeviceKind& kind() const;
  /// False for meta, which carries shapes and dtypes but no values.
  bool has_values() const;
  /// True for devices devparity simulates (meta, vdev).
  bool simulated() const;
  /// The resolved device as text ("cuda:3", "vdev:1"), or the name when absent.
  std::string resolved_name() const;
};

/// A device as devparity writes it: "vdev:1" for the virtual device
/// (LibTorch calls it "privateuseone:1"), c10's spelling otherwise.
std::string device_label(const c10::Device& device);

/// Pinned host memory for non-blocking copies with a device of `type`
/// (CUDA's caching host allocator, the virtual device's); pageable memory
/// for other types.
at::Tensor pinned_empty(at::IntArrayRef sizes, at::ScalarType dtype, c10::DeviceType type);

/// Another index of `device`'s type, made current while a trial runs on
/// `device` (Note [Current device] in trace/tracer.h): index + 1 modulo the
/// count, so that vdev:0 runs with vdev:1 current and vdev:1 with vdev:0.
/// Empty for devices without an index and for types with one index.
std::optional<c10::Device> other_current_device(const c10::Device& device);

/// Resolves one token. Throws UsageError naming the token when it is malformed
/// or unknown; a well-formed but absent device comes back with absent_reason.
DeviceTarget resolve_device(const std::string& token, const DeviceInventory& inventory);

/// Parses a comma-separated list of tokens, expanding auto/all, in order,
/// without duplicates. Throws UsageError naming the first bad token.
std::vector<DeviceTarget> parse_device_list(const std::string& text,
                                            const DeviceInventory& inventory);

/// The expansion of `auto` on a machine like `inventory`.
std::vector<std::string> auto_device_names(const DeviceInventory& inventory);

}  // namespace devparity
