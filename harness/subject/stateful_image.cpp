#include "harness/subject/stateful_image.h"

#include "harness/subject/configured.h"
#include "harness/trace/scope.h"

namespace devparity {

at::Tensor StatefulImageTransform::apply(const at::Tensor& x, const nlohmann::json& params,
                                         TransformState& state) const {
  TraceScope scope(info_.name.c_str());
  require_nchw(x.sizes(), info_.name);
  if (x.size(0) == 0 && empty_ == EmptyBatch::kCopy) return x.clone();
  return run(x, params, state);
}

}  // namespace devparity
