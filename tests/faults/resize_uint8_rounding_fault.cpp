// Seeded fault for the parity check's rounding ties: a uint8 bilinear resize
// computed in float32 (LibTorch's upsample_bilinear2d) that truncates back to
// uint8 instead of rounding. Every difference from the reference is +-1, so
// an atol of 1 would hide it; it is caught because those +-1 are not at
// rounding ties. The clean twin rounds (half to even, as GPU float paths do):
// against the reference's fixed point (half up) it differs only at ties.
// Written without harness internals, as a user's transform would be.

#include "harness/base/json_reader.h"
#include "harness/subject/register.h"

#include <ATen/ATen.h>
#include <nlohmann/json.hpp>

namespace devparity::faults {
namespace {

template <bool kRounds>
class Uint8ResizeTwin final : public Transform {
 public:
  Uint8ResizeTwin() {
    info_.name = kRounds ? "clean_resize_uint8_truncates" : "fault_resize_uint8_truncates";
    info_.family = "faults";
    info_.description = kRounds ? "uint8 bilinear resize through float32, rounded"
                                : "uint8 bilinear resize through float32, truncated instead of rounded";
    info_.params = {{"size", "[H, W]", "required", "output size"}};
    info_.dtypes = {at::kByte};
  }
  const TransformInfo& info() const override { return info_; }

  nlohmann::json sample(const nlohmann::json& given, c10::IntArrayRef, at::Generator&) const override {
    ObjectReader r(given);
    const auto size = r.integers("size", 2, 1, 4096);
    r.get("interpolation");  // shared with the reference's parameters
    r.get("uint8_strategy");
    r.finish();
    return {{"size", size}};
  }

  at::Tensor apply(const at::Tensor& x, const nlohmann::json& p) const override {
    const auto size = p.at("size").get<std::vector<int64_t>>();
    const auto y = at::upsample_bilinear2d(x.to(at::kFloat), size, /*align_corners=*/false);
    return kRounds ? y.round().clamp(0, 255).to(at::kByte) : y.clamp(0, 255).to(at::kByte);
  }

 private:
  TransformInfo info_;
};

}  // namespace
}  // namespace devparity::faults

DEVPARITY_REGISTER_TRANSFORM(devparity::faults::Uint8ResizeTwin<false>)
DEVPARITY_REGISTER_TRANSFORM(devparity::faults::Uint8ResizeTwin<true>)
