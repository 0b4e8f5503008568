// Seeded placement fault: a transform that calls .item() inside apply (a
// normalisation by the global maximum read back to the host): host_sync, a
// warning, failing in strict mode. On meta there is no value to read, so the
// run fails there as well. The clean twin keeps the maximum on the device.

#include "harness/subject/register.h"
#include "harness/trace/scope.h"
#include "tests/faults/fault_util.h"

namespace devparity::faults {
namespace {

template <bool kFaulty>
class ItemTwin final : public Twin<> {
 public:
  ItemTwin() : Twin("item_sync", kFaulty, "normalises by a maximum read with item()") {}
  at::Tensor apply(const at::Tensor& x, const nlohmann::json&) const override {
    DEVPARITY_TRACE_SCOPE("normalise");
    // amax, not max: LibTorch 1.13 has no meta kernel for the full max.
    if (kFaulty) return x / (x.amax().item<double>() + 1.0);
    return x / (x.amax() + 1.0);
  }
};

using FaultItemSync = ItemTwin<true>;
using CleanItemSync = ItemTwin<false>;

}  // namespace
}  // namespace devparity::faults

DEVPARITY_REGISTER_TRANSFORM(devparity::faults::FaultItemSync)
DEVPARITY_REGISTER_TRANSFORM(devparity::faults::CleanItemSync)
