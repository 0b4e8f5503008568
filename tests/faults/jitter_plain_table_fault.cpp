// Seeded placement fault: a colour jitter whose coefficient table is a plain
// member instead of registered state (kornia/kornia#2791: on cuda:1 the table
// stayed on cuda:0). On meta the indexing op receives the CPU table:
// foreign_device_input and device_mismatch_error naming aten::index.Tensor.
// The clean twin registers the table, so the runner moves it.

#include "harness/trace/scope.h"
#include "harness/transforms/register.h"
#include "harness/transforms/state.h"
#include "tests/faults/fault_util.h"

namespace devparity::faults {
namespace {

// (R/G, B/G) ratios of five blackbody illuminants.
at::Tensor coefficient_table() {
  return at::tensor(std::vector<float>{1.673616f, 0.003227f, 1.481019f, 0.392596f, 1.353866f,
                                       0.574800f, 1.261612f, 0.707650f, 1.190700f, 0.813289f})
      .reshape({5, 2});
}

// out_R = R * (R/G)[idx], G unchanged, out_B = B * (B/G)[idx], clamped above at 1.
at::Tensor jitter(const at::Tensor& x, const at::Tensor& table, int64_t idx) {
  DEVPARITY_TRACE_SCOPE("coefficients");
  const auto index = at::full({x.size(0)}, idx, x.options().dtype(at::kLong));
  const auto coeffs = table.index({index}).to(x.scalar_type());  // (B, 2)
  const auto r = x.narrow(1, 0, 1) * coeffs.narrow(1, 0, 1).reshape({-1, 1, 1, 1});
  const auto b = x.narrow(1, 2, 1) * coeffs.narrow(1, 1, 1).reshape({-1, 1, 1, 1});
  return at::cat({r, x.narrow(1, 1, 1), b}, 1).clamp_max(1.0);
}

nlohmann::json read_idx(const nlohmann::json& given) {
  ObjectReader r(given);
  const auto idx = r.integer("idx", 1, 0, 4);
  r.finish();
  return {{"idx", idx}};
}

class FaultJitterPlainTable final : public Transform {
 public:
  FaultJitterPlainTable()
      : info_(twin_info("jitter_plain_table", true, "colour jitter, table as a plain member")),
        table_(coefficient_table()) {
    info_.params = {{"idx", "integer in [0, 4]", "1", "row of the coefficient table"}};
  }
  const TransformInfo& info() const override { return info_; }
  nlohmann::json sample(const nlohmann::json& g, c10::IntArrayRef, at::Generator&) const override {
    return read_idx(g);
  }
  at::Tensor apply(const at::Tensor& x, const nlohmann::json& p) const override {
    DEVPARITY_TRACE_SCOPE("jitter");
    return jitter(x, table_, p.at("idx").get<int64_t>());  // the seeded bug: table_ never moves
  }

 private:
  TransformInfo info_;
  at::Tensor table_;
};

class CleanJitterPlainTable final : public StatefulTransform {
 public:
  CleanJitterPlainTable() : info_(twin_info("jitter_plain_table", false, "")) {
    info_.params = {{"idx", "integer in [0, 4]", "1", "row of the coefficient table"}};
  }
  const TransformInfo& info() const override { return info_; }
  nlohmann::json sample(const nlohmann::json& g, c10::IntArrayRef, at::Generator&) const override {
    return read_idx(g);
  }
  std::unique_ptr<TransformState> make_state(const nlohmann::json&) const override {
    auto state = std::make_unique<TransformState>();
    state->register_tensor("pl", coefficient_table());
    return state;
  }
  using StatefulTransform::apply;
  at::Tensor apply(const at::Tensor& x, const nlohmann::json& p,
                   TransformState& state) const override {
    DEVPARITY_TRACE_SCOPE("jitter");
    return jitter(x, state.tensor("pl"), p.at("idx").get<int64_t>());
  }

 private:
  TransformInfo info_;
};

}  // namespace
}  // namespace devparity::faults

DEVPARITY_REGISTER_TRANSFORM(devparity::faults::FaultJitterPlainTable)
DEVPARITY_REGISTER_TRANSFORM(devparity::faults::CleanJitterPlainTable)
