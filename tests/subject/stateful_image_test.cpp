// StatefulImageTransform's prologue: NCHW checked with the transform named,
// an empty batch copied without run() (or run, when the transform asks), and
// run() called with the state on the input's device otherwise.

#include "harness/base/error.h"
#include "harness/subject/stateful_image.h"

#include <ATen/ATen.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <atomic>

namespace devparity {
namespace {

class Scale final : public StatefulImageTransform {
 public:
  explicit Scale(EmptyBatch empty) : StatefulImageTransform(Describe("scale", "test", "x * k").dtypes(kFloatDtypes), empty) {}
  nlohmann::json sample(const nlohmann::json&, c10::IntArrayRef, at::Generator&) const override { return {}; }
  std::unique_ptr<TransformState> make_state(const nlohmann::json&) const override {
    auto state = std::make_unique<TransformState>();
    state->register_tensor("k", at::full({1}, 2.0));
    return state;
  }
  mutable std::atomic<int> runs{0};

 private:
  at::Tensor run(const at::Tensor& x, const nlohmann::json&, TransformState& state) const override {
    ++runs;
    return x * state.tensor("k");
  }
};

TEST(StatefulImageTransform, RunsWithItsStateOnNchwInput) {
  const Scale t(Scale::EmptyBatch::kCopy);
  const auto x = at::ones({2, 3, 4, 5});
  EXPECT_TRUE(at::equal(t.apply(x, nlohmann::json::object()), x * 2));
  EXPECT_EQ(t.runs.load(), 1);
}

TEST(StatefulImageTransform, RejectsInputThatIsNotNchwNamingTheTransform) {
  const Scale t(Scale::EmptyBatch::kCopy);
  try {
    t.apply(at::ones({3, 4, 5}), nlohmann::json::object());
    FAIL() << "a 3-D input was accepted";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("scale takes NCHW images"), std::string::npos) << e.what();
  }
  EXPECT_EQ(t.runs.load(), 0);
}

TEST(StatefulImageTransform, CopiesAnEmptyBatchUnlessAskedToRunIt) {
  const auto empty = at::ones({0, 3, 4, 5});
  const Scale copy(Scale::EmptyBatch::kCopy);
  const auto out = copy.apply(empty, nlohmann::json::object());
  EXPECT_EQ(out.sizes(), empty.sizes());
  EXPECT_EQ(copy.runs.load(), 0);
  const Scale run(Scale::EmptyBatch::kRun);
  EXPECT_EQ(run.apply(empty, nlohmann::json::object()).sizes(), empty.sizes());
  EXPECT_EQ(run.runs.load(), 1);
}

}  // namespace
}  // namespace devparity
