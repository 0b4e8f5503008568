#pragma once
/// Where data came from (internal to trace/): the origin the tracer records
/// with each host storage, the records themselves (Note [Recorded storages]
/// in tracer.h), and the finding that blames a maker when its data meets
/// device data or is handed back.

#include "harness/trace/finding.h"

#include <ATen/core/Tensor.h>
#include <c10/core/Device.h>
#include <c10/util/intrusive_ptr.h>

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

namespace devparity::tracing {

// Where host data came from, for the findings that blame its maker.
struct Origin {
  enum class Made { kDefaultFactory, kHostFactory, kCopiedHome, kKeptState, kUnknown } made = Made::kUnknown;
  std::string op;                   // the subject's op that made it; kKeptState: the attribute
  std::string source;
  std::string site;
  std::vector<std::string> scopes;
  bool declared = false;            // made inside a declared host hand-over: host data on purpose
  bool moved_module = true;         // kKeptState: its module was moved (Tracer::keep)
};

/// "made by aten::arange with no device at ramp.py:12", ...; empty when unknown.
std::string describe(const Origin& o);

/// The finding that blames the maker of host data that met device data (or
/// was returned): `what` says where it ended up; `left_on`, where kept state
/// was. None for an origin it cannot blame.
std::optional<Finding> origin_finding(const Origin& o, const c10::Device& target, const std::string& what,
                                      const c10::Device& left_on = c10::Device(c10::DeviceType::CPU));

/// What the tracer knows of one storage.
struct Record {
  bool host = false;
  bool seeded = false;       ///< the subject's input or state
  bool filled = false;       ///< host data written with device data (cpu row)
  bool provisional = false;  ///< made before the target was known: neutral on the CPU
  /// Host data: an op wrote it after it was made, and whether one drew random
  /// numbers into it (Note [Parameters the library samples]).
  bool written = false;
  bool drawn = false;
  std::shared_ptr<const Origin> origin;  ///< host data: how it was made
};

/// The storage a tensor views; null for one without storage.
c10::StorageImpl* storage_of(const at::Tensor& t);

/// The tracer's records, by storage (Note [Recorded storages]), with the
/// tensors code sent home by name while their storage stays device data
/// (Tracer::mark_host). Each record holds a weak reference to its storage so
/// that the address is not reused while the trial lives; records of freed
/// storages are dropped as they accumulate (Note [Records of freed
/// storages]). Not locked: the tracer's state owns it under its lock.
class StorageRecords {
 public:
  StorageRecords();
  /// The record of `t`'s storage; null when there is none.
  const Record* find(const at::Tensor& t) const;
  Record* find(const at::Tensor& t);
  /// Records what `t`'s storage is now (host or device data, made as
  /// `origin` says), keeping whether it is seeded or filled; null for a
  /// tensor without storage.
  Record* remember(const at::Tensor& t, bool host, std::shared_ptr<const Origin> origin);
  /// Drops the record of `t`'s storage.
  void forget(const at::Tensor& t);
  /// Storages recorded.
  size_t size() const { return storages_.size(); }

  /// `t` (this tensor, not its storage) went home as `origin` says.
  void send_home(const at::Tensor& t, std::shared_ptr<const Origin> origin);
  /// How `t` went home, while it is the tensor sent; null otherwise.
  std::shared_ptr<const Origin> sent_home(const at::Tensor& t) const;

 private:
  void drop_freed();

  struct Kept {
    std::optional<c10::weak_intrusive_ptr<c10::StorageImpl>> storage;  // null only while being made
    Record record;
  };
  std::unordered_map<const c10::StorageImpl*, Kept> storages_;
  size_t sweep_at_;
  std::unordered_map<const c10::TensorImpl*,
                     std::pair<c10::weak_intrusive_ptr<c10::TensorImpl>, std::shared_ptr<const Origin>>>
      homed_;
};

}  // namespace devparity::tracing
