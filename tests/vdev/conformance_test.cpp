// The virtual device follows CUDA's mixed-device rules exactly, one rule per
// row (../shared/spec/cuda-device-rules.md, "Conformance one-liners", with
// vdev:0 for cuda:0): what CUDA accepts runs and lands on the right device;
// what it refuses fails with its wording. Rows with a `meta` column also
// pin LibTorch's meta device, which has rules of its own (no generated
// checks): the placement tracer, not meta, holds meta trials to CUDA's rules.

#include "harness/vdev/vdev.h"

#include "harness/base/error.h"
#include "harness/builtins.h"
#include "harness/rules/device_rules.h"

#include <ATen/ATen.h>
#include <gtest/gtest.h>

#include <functional>
#include <optional>

namespace devparity {
namespace {

using at::indexing::Slice;

// What a row expects on one device: it runs (and `check` holds for the
// result), or it fails with exactly `error`.
struct Outcome {
  std::optional<std::string> error;                 // nullopt: runs
  std::function<void(const at::Tensor&)> check;     // when it runs
};

Outcome runs(std::function<void(const at::Tensor&)> check) { return {std::nullopt, std::move(check)}; }
Outcome fails(std::string message) { return {std::move(message), nullptr}; }

struct Row {
  const char* name;
  // d: the device under test (vdev:0 or meta); d1: another index of it.
  std::function<at::Tensor(const c10::Device& d, const c10::Device& d1)> op;
  std::function<Outcome(const std::string& d)> on_vdev;  // d: "vdev:0"
  std::optional<Outcome> on_meta;
};

at::Tensor bools(std::vector<int64_t> v) { return at::tensor(v).to(at::kBool); }
at::Tensor longs(std::vector<int64_t> v) { return at::tensor(v); }
at::Tensor mask4() { return bools({1, 0, 1, 0}); }
at::TensorOptions on(const c10::Device& d) { return at::TensorOptions().device(d); }

// LibTorch's name for the generated check of `op` in this release.
std::string wrapper(const char* op) { return device_rules::rule_for(op).wrapper; }
bool where_moves_scalars() {
  return device_rules::rule_for("where.self").kind == device_rules::Kind::kZeroDimMoved;
}
bool lerp_takes_cpu_weight() {
  return device_rules::rule_for("lerp.Tensor").kind == device_rules::Kind::kCpuScalarAt;
}

std::string same_device(const std::string& a, const std::string& b) {
  return "Expected all tensors to be on the same device, but found at least two devices, " + a +
         " and " + b + "!";
}

std::vector<Row> rows() {
  auto on_device = [](const char* expected) {
    return [expected](const at::Tensor& t) { EXPECT_EQ(t.device().str(), at::Device(expected).str()); };
  };
  (void)on_device;
  return {
      {"bool_mask_from_the_cpu_indexes",
       [](auto d, auto) { return at::arange(4., on(d)).index({mask4()}); },
       [](const std::string&) {
         return runs([](const at::Tensor& t) {
           ASSERT_EQ(t.sizes(), at::IntArrayRef({2}));
           EXPECT_TRUE(at::equal(t.cpu(), at::tensor({0., 2.})));
         });
       },
       runs([](const at::Tensor& t) { EXPECT_EQ(t.sizes(), at::IntArrayRef({2})); })},
      {"cpu_index_tensor_in_a_later_dimension",
       [](auto d, auto) { return at::rand({3, 5}, on(d)).index({Slice(), longs({0, 4})}); },
       [](const std::string&) {
         return runs([](const at::Tensor& t) { EXPECT_EQ(t.sizes(), at::IntArrayRef({3, 2})); });
       },
       runs([](const at::Tensor& t) { EXPECT_EQ(t.sizes(), at::IntArrayRef({3, 2})); })},
      {"assignment_through_a_cpu_mask",
       [](auto d, auto) {
         auto x = at::zeros({4}, on(d));
         x.index_put_({mask4()}, 1.0);
         return x;
       },
       [](const std::string&) {
         return runs([](const at::Tensor& t) { EXPECT_TRUE(at::equal(t.cpu(), at::tensor({1., 0., 1., 0.}))); });
       },
       std::nullopt},
      {"device_indices_into_a_cpu_tensor",
       [](auto d, auto) { return at::arange(3.).index({longs({0, 1}).to(d)}); },
       [](const std::string&) {
         return fails("indices should be either on cpu or on the same device as the indexed tensor (cpu)");
       },
       std::nullopt},
      {"cpu_scalar_times_device_tensor",
       [](auto d, auto) { return at::scalar_tensor(2.) * at::ones({3}, on(d)); },
       [](const std::string& d) {
         return runs([d](const at::Tensor& t) {
           EXPECT_EQ(t.device().type(), c10::DeviceType::PrivateUse1) << "the result belongs on " << d;
           EXPECT_TRUE(at::equal(t.cpu(), at::full({3}, 2.)));
         });
       },
       runs([](const at::Tensor& t) { EXPECT_TRUE(t.is_meta()); })},
      {"one_element_cpu_tensor_is_not_a_scalar",
       [](auto d, auto) { return at::ones({3}, on(d)) + at::ones({1}); },
       [](const std::string& d) { return fails(same_device(d, "cpu")); },
       fails(same_device("meta", "cpu"))},
      {"device_scalar_with_a_cpu_tensor",
       [](auto d, auto) { return at::ones({3}) + at::scalar_tensor(1., on(d)); },
       [](const std::string& d) { return fails(same_device(d, "cpu")); },
       std::nullopt},
      {"cpu_scalar_output_of_an_inplace_op",
       [](auto d, auto) { return at::scalar_tensor(1.).add_(at::ones({}, on(d))); },
       [](const std::string& d) { return fails(same_device(d, "cpu")); },
       std::nullopt},
      {"index_select_with_cpu_index",
       [](auto d, auto) { return at::index_select(at::ones({3}, on(d)), 0, longs({0})); },
       [](const std::string& d) {
         return fails(same_device(d, "cpu") + " (when checking argument for argument index in method " +
                      wrapper("index_select") + ")");
       },
       std::nullopt},
      {"clamp_with_a_cpu_scalar_bound",
       [](auto d, auto) { return at::clamp(at::ones({3}, on(d)), c10::nullopt, at::scalar_tensor(0.5)); },
       [](const std::string& d) {
         return fails(same_device(d, "cpu") + " (when checking argument for argument max in method " +
                      wrapper("clamp.Tensor") + ")");
       },
       std::nullopt},
      {"cat_with_a_cpu_tensor",
       [](auto d, auto) { return at::cat({at::ones({2}, on(d)), at::ones({2})}); },
       [](const std::string& d) {
         return fails(same_device(d, "cpu") + " (when checking argument for argument tensors in method " +
                      wrapper("cat") + ")");
       },
       std::nullopt},
      {"masked_fill_with_a_cpu_mask",
       [](auto d, auto) { return at::ones({3}, on(d)).masked_fill(bools({1, 0, 1}), 0.); },
       [](const std::string& d) {
         return fails("expected self and mask to be on the same device, but got mask on cpu and self on " + d);
       },
       std::nullopt},
      {"where_with_a_cpu_scalar",
       [](auto d, auto) {
         return at::where(bools({1, 0}).to(d), at::ones({2}, on(d)), at::scalar_tensor(0.));
       },
       [](const std::string& d) {
         return where_moves_scalars()
                    ? runs([](const at::Tensor& t) { EXPECT_TRUE(at::equal(t.cpu(), at::tensor({1., 0.}))); })
                    : fails(same_device(d, "cpu"));
       },
       std::nullopt},
      {"assignment_of_a_cpu_vector_through_a_mask",
       [](auto d, auto) {
         auto x = at::zeros({3}, on(d));
         x.index_put_({bools({1, 0, 1})}, at::tensor({1., 2.}));
         return x;
       },
       [](const std::string& d) { return fails(same_device(d, "cpu")); },
       std::nullopt},
      {"backward_with_a_cpu_gradient",
       [](auto d, auto) {
         const auto x = at::ones({3}, on(d)).requires_grad_(true);
         (x * 2).backward(at::ones({3}));
         return x.grad();
       },
       [](const std::string& d) {
         return fails("invalid gradient at index 0 - expected device " + d + " but got cpu");
       },
       std::nullopt},
      {"two_indices_of_the_device",
       [](auto d, auto d1) { return at::ones({2}, on(d)) + at::ones({2}, on(d1)); },
       [](const std::string& d) { return fails(same_device(d, "vdev:1")); },
       std::nullopt},
      {"copy_between_indices",
       [](auto d, auto d1) { return at::ones({2}, on(d)).copy_(at::full({2}, 3., on(d1))); },
       [](const std::string&) {
         return runs([](const at::Tensor& t) { EXPECT_TRUE(at::equal(t.cpu(), at::full({2}, 3.))); });
       },
       std::nullopt},
      {"indices_on_another_index",
       [](auto d, auto d1) { return at::ones({3}, on(d)).index({longs({0}).to(d1)}); },
       [](const std::string& d) {
         return fails("indices should be either on cpu or on the same device as the indexed tensor (" + d + ")");
       },
       std::nullopt},
      {"new_empty_keeps_the_index",
       [](auto, auto d1) { return at::ones({2}, on(d1)).new_empty({1}); },
       [](const std::string&) {
         return runs([](const at::Tensor& t) { EXPECT_EQ(t.device(), vdev::device(1)); });
       },
       std::nullopt},
      {"mm_with_a_cpu_matrix",
       [](auto d, auto) { return at::mm(at::ones({2, 2}, on(d)), at::ones({2, 2})); },
       [](const std::string& d) {
         return fails(same_device(d, "cpu") + " (when checking argument for argument mat2 in method " +
                      wrapper("mm") + ")");
       },
       std::nullopt},
      {"embedding_with_cpu_indices",
       [](auto d, auto) { return at::embedding(at::ones({4, 2}, on(d)), longs({0, 3})); },
       [](const std::string& d) {
         return fails(same_device(d, "cpu") + " (when checking argument for argument index in method " +
                      wrapper("index_select") + ")");
       },
       std::nullopt},
      {"lerp_with_a_cpu_scalar_weight",
       [](auto d, auto) { return at::lerp(at::zeros({2}, on(d)), at::ones({2}, on(d)), at::scalar_tensor(0.5)); },
       [](const std::string& d) {
         return lerp_takes_cpu_weight()
                    ? runs([](const at::Tensor& t) { EXPECT_TRUE(at::equal(t.cpu(), at::full({2}, 0.5))); })
                    : fails(same_device(d, "cpu"));
       },
       std::nullopt},
      {"index_fill_with_a_cpu_index",
       [](auto d, auto) { return at::zeros({3}, on(d)).index_fill_(0, longs({1}), 1.0); },
       [](const std::string& d) { return fails(same_device(d, "cpu")); },
       std::nullopt},
      {"fill_with_a_cpu_scalar_tensor",
       [](auto d, auto) { return at::zeros({3}, on(d)).fill_(at::scalar_tensor(4.)); },
       [](const std::string&) {
         return runs([](const at::Tensor& t) { EXPECT_TRUE(at::equal(t.cpu(), at::full({3}, 4.))); });
       },
       std::nullopt},
      {"two_cpu_scalars",
       [](auto d, auto) {
         return at::where(at::ones({2}, on(d)).gt(0), at::scalar_tensor(1.), at::scalar_tensor(0.));
       },
       [](const std::string& d) {
         return where_moves_scalars()
                    ? runs([](const at::Tensor& t) { EXPECT_TRUE(at::equal(t.cpu(), at::ones({2}))); })
                    : fails(same_device(d, "cpu"));
       },
       std::nullopt},
  };
}

void PrintTo(const Row& row, std::ostream* os) { *os << row.name; }

std::vector<Row> meta_rows() {
  std::vector<Row> out;
  for (auto& row : rows()) {
    if (row.on_meta) out.push_back(row);
  }
  return out;
}

class VdevConformance : public ::testing::TestWithParam<Row> {
 protected:
  void SetUp() override {
    register_builtins();
    if (!vdev::compiled()) GTEST_SKIP() << "this build has no virtual device (DEVPARITY_WITH_VDEV)";
  }
};

void expect(const Outcome& want, const std::function<at::Tensor()>& op, const std::string& where) {
  at::Tensor result;
  std::string error;
  try {
    result = op();
  } catch (const std::exception& e) {
    error = torch_message(e);
  }
  if (want.error) {
    EXPECT_EQ(error, *want.error) << where;
    EXPECT_EQ(classify_message(error).kind, FailureKind::kDeviceMismatch) << where << ": " << error;
    return;
  }
  ASSERT_EQ(error, "") << where << " should run";
  if (want.check) want.check(result);
}

TEST_P(VdevConformance, AsCudaOnVdev) {
  const auto& row = GetParam();
  const auto d = vdev::device(0);
  expect(row.on_vdev("vdev:0"), [&] { return row.op(d, vdev::device(1)); }, std::string(row.name) + " on vdev:0");
}

// LibTorch's meta rules need no simulator.
class MetaConformance : public ::testing::TestWithParam<Row> {
 protected:
  void SetUp() override { register_builtins(); }
};

TEST_P(MetaConformance, LibTorchsOwnMetaRule) {
  const auto& row = GetParam();
  const c10::Device meta(c10::DeviceType::Meta);
  expect(*row.on_meta, [&] { return row.op(meta, meta); }, std::string(row.name) + " on meta");
}

TEST(VdevConformanceTable, CoversAtLeastFifteenRules) { EXPECT_GE(rows().size(), 15u); }

INSTANTIATE_TEST_SUITE_P(Rules, VdevConformance, ::testing::ValuesIn(rows()),
                         [](const ::testing::TestParamInfo<Row>& info) { return std::string(info.param.name); });
INSTANTIATE_TEST_SUITE_P(Rules, MetaConformance, ::testing::ValuesIn(meta_rows()),
                         [](const ::testing::TestParamInfo<Row>& info) { return std::string(info.param.name); });

}  // namespace
}  // namespace devparity
