#include "harness/subject/state.h"

#include <ATen/ATen.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

namespace devparity {
namespace {

TEST(StateTest, RegisterReplaceAndRead) {
  TransformState state;
  state.register_tensor("a", at::ones({2}));
  state.register_tensor("b", at::zeros({3}));
  state.register_tensor("a", at::full({4}, 2.0));  // replaces, keeps the order
  ASSERT_EQ(state.tensors().size(), 2u);
  EXPECT_EQ(state.tensors()[0].first, "a");
  EXPECT_EQ(state.tensor("a").size(0), 4);
  EXPECT_THROW(state.tensor("c"), std::out_of_range);
}

TEST(StateTest, MovesToMetaByReplacing) {
  // torch::nn::Module::to(kMeta) fails in LibTorch 1.13 (set_data); replacing works.
  TransformState state;
  const auto original = at::ones({2, 2});
  state.register_tensor("table", original);
  state.to(c10::Device(c10::DeviceType::Meta));
  EXPECT_EQ(state.tensor("table").device().type(), c10::DeviceType::Meta);
  EXPECT_EQ(original.device().type(), c10::DeviceType::CPU) << "the old tensor is untouched";
}

class Doubler final : public StatefulTransform {
 public:
  Doubler() {
    info_.name = "doubler";
    info_.dtypes = {at::kFloat};
  }
  const TransformInfo& info() const override { return info_; }
  nlohmann::json sample(const nlohmann::json& g, c10::IntArrayRef, at::Generator&) const override {
    return g;
  }
  std::unique_ptr<TransformState> make_state(const nlohmann::json&) const override {
    auto s = std::make_unique<TransformState>();
    s->register_tensor("factor", at::full({1}, 2.0f));
    return s;
  }
  using StatefulTransform::apply;
  at::Tensor apply(const at::Tensor& x, const nlohmann::json&, TransformState& s) const override {
    return x * s.tensor("factor");
  }

 private:
  TransformInfo info_;
};

TEST(StateTest, StatelessCallMakesAndMovesTheState) {
  const Doubler d;
  const auto x = at::ones({3});
  EXPECT_TRUE(at::equal(d.apply(x, nlohmann::json::object()), x * 2));
  const auto meta = d.apply(at::empty({3}, at::TensorOptions().device(at::kMeta)),
                            nlohmann::json::object());
  EXPECT_EQ(meta.device().type(), c10::DeviceType::Meta);
}

}  // namespace
}  // namespace devparity
