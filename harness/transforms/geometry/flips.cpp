// hflip and vflip (torchvision v2 horizontal_flip / vertical_flip): the
// columns (rows) in reverse order, gathered (resample::take_positions) with the
// index made on the input's device: LibTorch 1.13's C++ flip and
// index_select have no meta kernel.

#include "harness/base/json_reader.h"
#include "harness/subject/configured.h"
#include "harness/subject/transform_registry.h"
#include "harness/trace/scope.h"
#include "harness/transforms/builtin_transforms.h"
#include "harness/transforms/kernels/resize_engine.h"

#include <ATen/ATen.h>
#include <nlohmann/json.hpp>

namespace devparity {
namespace {

struct FlipConfig {
  static FlipConfig read(ObjectReader&) { return {}; }
  void check(c10::IntArrayRef) const {}
  void write(nlohmann::json&) const {}
};

class Flip final : public ConfiguredTransform<FlipConfig> {
 public:
  Flip(const char* name, int64_t dim, const char* description)
      : ConfiguredTransform(Describe(name, "geometry", description).dtypes(kImageDtypes).differentiable()),
        dim_(dim) {}

 private:
  at::Tensor run(const at::Tensor& x, const FlipConfig&) const override {
    DEVPARITY_TRACE_SCOPE("flip");
    return resample::reversed_along(x, dim_);
  }
  int64_t dim_;
};

}  // namespace

void register_flips(TransformRegistry& registry) {
  registry.add(std::make_unique<Flip>("hflip", 3, "mirror left-right (columns reversed)"));
  registry.add(std::make_unique<Flip>("vflip", 2, "mirror top-bottom (rows reversed)"));
}

}  // namespace devparity
