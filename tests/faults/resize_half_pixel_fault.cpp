// Seeded fault for the parity check: a bilinear resize that forgets the
// half-pixel centre convention (src = scale * dst instead of
// scale * (dst + 0.5) - 0.5), the error that shifts every output pixel by
// half a source pixel. Its clean twin has the convention right. Both are
// written without any harness internals, as a user's transform would be.

#include "harness/base/json_reader.h"
#include "harness/subject/register.h"

#include <ATen/ATen.h>
#include <nlohmann/json.hpp>

namespace devparity::faults {
namespace {

template <bool kHalfPixel>
class BilinearTwin final : public Transform {
 public:
  BilinearTwin() {
    info_.name = kHalfPixel ? "clean_resize_half_pixel" : "fault_resize_half_pixel";
    info_.family = "faults";
    info_.description = kHalfPixel ? "bilinear resize, correct half-pixel centres"
                                   : "bilinear resize with the half-pixel centre error";
    info_.params = {{"size", "[H, W]", "required", "output size"}};
    info_.dtypes = {at::kFloat, at::kDouble};
  }
  const TransformInfo& info() const override { return info_; }

  nlohmann::json sample(const nlohmann::json& given, c10::IntArrayRef, at::Generator&) const override {
    ObjectReader r(given);
    const auto size = r.integers("size", 2, 1, 4096);
    r.get("interpolation");  // accepted so that cases can share params with resize
    r.finish();
    return {{"size", size}};
  }

  at::Tensor apply(const at::Tensor& x, const nlohmann::json& p) const override {
    const auto size = p.at("size").get<std::vector<int64_t>>();
    return axis(axis(x, 3, size[1]), 2, size[0]);
  }

 private:
  static at::Tensor axis(const at::Tensor& x, int64_t dim, int64_t out) {
    const int64_t in = x.size(dim);
    const double scale = static_cast<double>(in) / static_cast<double>(out);
    const auto dst = at::arange(out, x.options().dtype(at::kDouble));
    const auto src = kHalfPixel ? ((dst + 0.5) * scale - 0.5).clamp_min(0.0) : dst * scale;
    const auto i0 = src.floor().to(at::kLong).clamp_max(in - 1);
    const auto i1 = (i0 + 1).clamp_max(in - 1);
    const auto w1 = (src - i0.to(at::kDouble)).to(x.scalar_type());
    std::vector<int64_t> shape(4, 1);
    shape[dim] = out;
    using at::indexing::Slice;
    std::vector<at::indexing::TensorIndex> idx0(dim, Slice()), idx1(dim, Slice());
    idx0.emplace_back(i0);
    idx1.emplace_back(i1);
    const auto a = x.index(idx0), b = x.index(idx1);
    return a + (b - a) * w1.reshape(shape);
  }

  TransformInfo info_;
};

using FaultResizeHalfPixel = BilinearTwin<false>;
using CleanResizeHalfPixel = BilinearTwin<true>;

}  // namespace
}  // namespace devparity::faults

DEVPARITY_REGISTER_TRANSFORM(devparity::faults::FaultResizeHalfPixel)
DEVPARITY_REGISTER_TRANSFORM(devparity::faults::CleanResizeHalfPixel)
