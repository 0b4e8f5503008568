// interpolate: LibTorch's own resampling ops as a subject (native family), so
// devparity audits LibTorch itself across devices and compares our reference
// resize with it. Calls the ATen ops that torch::nn::functional::interpolate
// dispatches to for 4-D input and an explicit size.

#include "harness/base/error.h"
#include "harness/base/json_reader.h"
#include "harness/subject/configured.h"
#include "harness/subject/describe.h"
#include "harness/subject/transform_registry.h"
#include "harness/transforms/builtin_transforms.h"
#include "harness/transforms/kernels/resize_config.h"

#include <ATen/ATen.h>
#include <nlohmann/json.hpp>

namespace devparity {
namespace {

class Interpolate final : public ConfiguredTransform<ResizeConfig> {
 public:
  Interpolate()
      : ConfiguredTransform(
            Describe("interpolate", "native",
                     "LibTorch's interpolate (upsample_* / _upsample_*_aa / adaptive_avg_pool2d) as shipped; "
                     "uint8 runs where the op has a kernel (in LibTorch 1.13 only nearest)")
                .dtypes(kImageDtypes)
                .differentiable()
                .meta_note("not area: adaptive_avg_pool2d has no meta kernel in LibTorch 1.13")) {}

 private:
  at::Tensor run(const at::Tensor& x, const ResizeConfig& c) const override {
    const std::vector<int64_t> size = {c.height, c.width};
    const auto mode = c.interpolation;
    if (mode == Interpolation::kNearest) return at::upsample_nearest2d(x, size);
    if (mode == Interpolation::kArea) return at::adaptive_avg_pool2d(x, size);
    if (mode == Interpolation::kBilinear) {
      return c.antialias ? at::_upsample_bilinear2d_aa(x, size, c.align_corners)
                         : at::upsample_bilinear2d(x, size, c.align_corners);
    }
    return c.antialias ? at::_upsample_bicubic2d_aa(x, size, c.align_corners)
                       : at::upsample_bicubic2d(x, size, c.align_corners);
  }

};

}  // namespace

void register_interpolate(TransformRegistry& registry) {
  registry.add(std::make_unique<Interpolate>());
}

}  // namespace devparity
