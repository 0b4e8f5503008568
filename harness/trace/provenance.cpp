#include "harness/trace/provenance.h"

#include "harness/device/device.h"
#include "harness/trace/finding_kinds.h"

#include <fmt/format.h>

#include <algorithm>
#include <iterator>

namespace devparity::tracing {

std::string describe(const Origin& o) {
  const auto at = o.source.empty() ? std::string() : " at " + o.source;
  switch (o.made) {
    case Origin::Made::kDefaultFactory: return fmt::format("made by {} with no device{}", o.op, at);
    case Origin::Made::kHostFactory: return fmt::format("made by {} on the CPU{}", o.op, at);
    case Origin::Made::kCopiedHome: return "device data copied to the host";
    case Origin::Made::kKeptState:
      return fmt::format("the tensor attribute '{}', which is neither a parameter nor a buffer", o.op);
    case Origin::Made::kUnknown: break;
  }
  return "";
}

std::optional<Finding> origin_finding(const Origin& o, const c10::Device& target, const std::string& what,
                                      const c10::Device& left_on) {
  Finding f;
  f.severity = Severity::kError;
  f.op = o.op;
  f.scopes = o.scopes;
  f.source = o.source;
  f.device = "cpu";
  if (o.made == Origin::Made::kDefaultFactory) {
    f.kind = finding_kind::kImplicitDeviceFactory;
    f.message = fmt::format("{} with no device: the tensor lands on the default device (the CPU), "
                            "whatever the input's device, and {}",
                            o.op, what);
  } else if (o.made == Origin::Made::kHostFactory) {
    f.kind = finding_kind::kForeignDeviceTarget;
    f.message = fmt::format("{} asked for device cpu while the target is {}, and {}", o.op,
                            device_label(target), what);
  } else if (o.made == Origin::Made::kKeptState) {
    f.kind = finding_kind::kUnregisteredTensorState;
    f.op.clear();
    f.device = device_label(left_on);
    f.message = fmt::format("tensor attribute '{}' is neither a parameter nor a buffer: moving the "
                            "module leaves it on {}, and {} (register it with register_buffer)",
                            o.op, left_on.is_cpu() ? std::string("the CPU") : device_label(left_on), what);
  } else {
    return std::nullopt;
  }
  return f;
}

namespace {

// Records kept before the first sweep for freed storages (Note [Records of freed storages]).
constexpr size_t kFirstSweep = 4096;

}  // namespace

c10::StorageImpl* storage_of(const at::Tensor& t) {
  return t.defined() && t.has_storage() ? t.storage().unsafeGetStorageImpl() : nullptr;
}

StorageRecords::StorageRecords() : sweep_at_(kFirstSweep) {}

const Record* StorageRecords::find(const at::Tensor& t) const {
  const auto* key = storage_of(t);
  if (key == nullptr) return nullptr;
  const auto it = storages_.find(key);
  return it == storages_.end() ? nullptr : &it->second.record;
}

Record* StorageRecords::find(const at::Tensor& t) {
  return const_cast<Record*>(static_cast<const StorageRecords*>(this)->find(t));
}

Record* StorageRecords::remember(const at::Tensor& t, bool host, std::shared_ptr<const Origin> origin) {
  auto* key = storage_of(t);
  if (key == nullptr) return nullptr;
  drop_freed();
  auto& kept = storages_[key];
  kept.storage = t.storage().getWeakStorageImpl();
  // What it is now; whether it is the subject's own and whether device data
  // filled it stay with the memory.
  auto& r = kept.record;
  r.host = host;
  r.provisional = false;
  r.origin = std::move(origin);
  r.written = false;
  r.drawn = false;
  return &r;
}

void StorageRecords::forget(const at::Tensor& t) {
  if (const auto* key = storage_of(t)) storages_.erase(key);
}

// Note [Records of freed storages]: a record whose storage is freed names
// nothing any tensor can reach, and its weak reference keeps the StorageImpl
// allocated. A cpu row of a Python trace records every output (Note [Neutral
// data]): gradcheck's ~10^5 small ops kept as many StorageImpls between the
// buffers malloc hands out again, which made every op's allocation slow
// (_int_malloc a fifth of a traced `add`). Dropped once the records double.
void StorageRecords::drop_freed() {
  if (storages_.size() < sweep_at_) return;
  for (auto it = storages_.begin(); it != storages_.end();) {
    it = it->second.storage && it->second.storage->expired() ? storages_.erase(it) : std::next(it);
  }
  sweep_at_ = std::max<size_t>(kFirstSweep, 2 * storages_.size());
}

void StorageRecords::send_home(const at::Tensor& t, std::shared_ptr<const Origin> origin) {
  homed_.insert_or_assign(t.unsafeGetTensorImpl(),
                          std::make_pair(c10::weak_intrusive_ptr<c10::TensorImpl>(t.getIntrusivePtr()),
                                         std::move(origin)));
}

std::shared_ptr<const Origin> StorageRecords::sent_home(const at::Tensor& t) const {
  const auto it = homed_.find(t.unsafeGetTensorImpl());
  return it == homed_.end() || it->second.first.expired() ? nullptr : it->second.second;
}

}  // namespace devparity::tracing
