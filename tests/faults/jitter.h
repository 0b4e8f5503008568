#pragma once
// The colour jitter shared by the jitter faults: Planckian-style per-channel
// gains looked up in a coefficient table (kornia's RandomPlanckianJitter).

#include "harness/base/json_reader.h"
#include "harness/subject/transform.h"
#include "harness/trace/scope.h"

#include <ATen/ATen.h>
#include <nlohmann/json.hpp>

#include <vector>

namespace devparity::faults {

// (R/G, B/G) ratios of five blackbody illuminants.
inline at::Tensor coefficient_table() {
  return at::tensor(std::vector<float>{1.673616f, 0.003227f, 1.481019f, 0.392596f, 1.353866f,
                                       0.574800f, 1.261612f, 0.707650f, 1.190700f, 0.813289f})
      .reshape({5, 2});
}

// out_R = R * (R/G)[idx], G unchanged, out_B = B * (B/G)[idx], clamped above at 1.
inline at::Tensor jitter(const at::Tensor& x, const at::Tensor& table, int64_t idx) {
  DEVPARITY_TRACE_SCOPE("coefficients");
  const auto index = at::full({x.size(0)}, idx, x.options().dtype(at::kLong));
  const auto coeffs = table.index({index}).to(x.scalar_type());  // (B, 2)
  const auto r = x.narrow(1, 0, 1) * coeffs.narrow(1, 0, 1).reshape({-1, 1, 1, 1});
  const auto b = x.narrow(1, 2, 1) * coeffs.narrow(1, 1, 1).reshape({-1, 1, 1, 1});
  return at::cat({r, x.narrow(1, 1, 1), b}, 1).clamp_max(1.0);
}

/// The jitter's sample(): the table row, "idx" in [0, 4], default 1.
inline nlohmann::json read_idx(const nlohmann::json& given) {
  ObjectReader r(given);
  const auto idx = r.integer("idx", 1, 0, 4);
  r.finish();
  return {{"idx", idx}};
}

/// ParamDoc of "idx".
inline ParamDoc idx_doc() { return {"idx", "integer in [0, 4]", "1", "row of the coefficient table"}; }

}  // namespace devparity::faults
