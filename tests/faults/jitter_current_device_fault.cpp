// Seeded cuda:N-class fault: a colour jitter whose coefficient table is made
// on the accelerator's *current* device (the device type without an index,
// as kornia/kornia PR #2177's get_cuda_device_if_available() did). The runner
// leaves the current index at 0, as a real process does, so with the input on
// vdev:1 the table lands on vdev:0 (device_without_index) and the lookup fails
// with both devices named (kornia/kornia#2791). cpu and meta show nothing.
// The clean twin takes the whole device, index included, from the input.

#include "harness/subject/register.h"
#include "harness/trace/scope.h"
#include "tests/faults/fault_util.h"
#include "tests/faults/jitter.h"

namespace devparity::faults {
namespace {

template <bool kFaulty>
class CurrentDeviceJitter final : public Transform {
 public:
  CurrentDeviceJitter()
      : info_(twin_info("jitter_current_device", kFaulty,
                        "colour jitter whose table is made on the current device")) {
    info_.params = {idx_doc()};
  }
  const TransformInfo& info() const override { return info_; }
  nlohmann::json sample(const nlohmann::json& g, c10::IntArrayRef, at::Generator&) const override {
    return read_idx(g);
  }
  at::Tensor apply(const at::Tensor& x, const nlohmann::json& p) const override {
    DEVPARITY_TRACE_SCOPE("jitter");
    const auto device = kFaulty ? at::Device(x.device().type()) : x.device();
    // The table's ratios, rebuilt on the device from an arange.
    const auto steps = at::arange(10, at::TensorOptions().dtype(at::kFloat).device(device));
    const auto table = (steps * 0.05f + 0.8f).reshape({5, 2});
    return jitter(x, table, p.at("idx").get<int64_t>());
  }

 private:
  TransformInfo info_;
};

using FaultJitterCurrentDevice = CurrentDeviceJitter<true>;
using CleanJitterCurrentDevice = CurrentDeviceJitter<false>;

}  // namespace
}  // namespace devparity::faults

DEVPARITY_REGISTER_TRANSFORM(devparity::faults::FaultJitterCurrentDevice)
DEVPARITY_REGISTER_TRANSFORM(devparity::faults::CleanJitterCurrentDevice)
