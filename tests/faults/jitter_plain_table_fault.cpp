// Seeded placement fault: a colour jitter whose coefficient table is a plain
// member instead of registered state (kornia/kornia#2791: on cuda:1 the table
// stayed on cuda:0). On meta the indexing op receives the CPU table:
// foreign_device_input and device_mismatch_error naming aten::index.Tensor.
// The clean twin registers the table, so the runner moves it.

#include "harness/subject/register.h"
#include "harness/subject/state.h"
#include "harness/trace/scope.h"
#include "tests/faults/fault_util.h"
#include "tests/faults/jitter.h"

namespace devparity::faults {
namespace {

class FaultJitterPlainTable final : public Transform {
 public:
  FaultJitterPlainTable()
      : info_(twin_info("jitter_plain_table", true, "colour jitter, table as a plain member")),
        table_(coefficient_table()) {
    info_.params = {idx_doc()};
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
    info_.params = {idx_doc()};
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
