// CUDA's arithmetic on vdev (Note [CUDA's arithmetic on vdev]): the TF32
// model follows LibTorch's setting call by call, leaves the CPU and gemv
// alone, names itself, turns off with the run's switch; a library's model
// of its own op runs on vdev rows and nowhere else.

#include "harness/vdev/cuda_arithmetic.h"

#include "harness/base/registration.h"
#include "harness/builtins.h"
#include "harness/vdev/tf32.h"
#include "harness/vdev/vdev.h"
#include "tests/support/cuda_models.h"
#include "tests/support/vdev_mode.h"

#include <ATen/ATen.h>
#include <ATen/Context.h>
#include <gtest/gtest.h>
#include <torch/library.h>

#include <algorithm>
#include <atomic>

namespace devparity {
namespace {

namespace ca = vdev::cuda_arithmetic;

// A custom op whose CPU kernel rounds to nearest, as a library's C++ op;
// its CUDA kernel (the model below) truncates, as a float-to-int cast does.
at::Tensor quantize_cpu(const at::Tensor& x) { return at::round(x * 255.0); }

// A second with two models (below): the first while a setting is on and
// for four or more values, the second for every other call.
at::Tensor scale_cpu(const at::Tensor& x) { return x * 2; }
std::atomic<bool> g_scale_setting{false};

TORCH_LIBRARY(devparity_test_cuda_model, m) {
  m.def("quantize(Tensor x) -> Tensor");
  m.def("scale(Tensor x) -> Tensor");
}
TORCH_LIBRARY_IMPL(devparity_test_cuda_model, CPU, m) {
  m.impl("quantize", quantize_cpu);
  m.impl("scale", scale_cpu);
}

}  // namespace

// A library's model of its op, registered as user code registers it.
DEVPARITY_REGISTER_CUDA_MODEL(ca::Model{
    "test_quantize_truncates",
    "the test op's CUDA kernel: a float-to-int cast truncates",
    {"devparity_test_cuda_model::quantize"},
    "",
    nullptr,
    [](const c10::FunctionSchema&, const std::vector<c10::IValue>& args, const vdev::CpuKernel&) {
      return std::vector<at::Tensor>{at::trunc(args[0].toTensor() * 255.0)};
    }});

// The test op's two models, in order.
DEVPARITY_REGISTER_CUDA_MODEL(ca::Model{
    "test_scale_while_set", "triples while the test's setting is on", {"devparity_test_cuda_model::scale"},
    "the test's setting", [] { return g_scale_setting.load(); },
    [](const c10::FunctionSchema&, const std::vector<c10::IValue>& args, const vdev::CpuKernel&) {
      return std::vector<at::Tensor>{args[0].toTensor() * 3};
    },
    [](const c10::FunctionSchema&, c10::ArrayRef<c10::IValue> args) { return args[0].toTensor().numel() >= 4; }});
DEVPARITY_REGISTER_CUDA_MODEL(ca::Model{
    "test_scale_otherwise", "quadruples", {"devparity_test_cuda_model::scale"}, "", nullptr,
    [](const c10::FunctionSchema&, const std::vector<c10::IValue>& args, const vdev::CpuKernel&) {
      return std::vector<at::Tensor>{args[0].toTensor() * 4};
    }});

namespace {

using testing::Tf32Setting;

class CudaArithmeticTest : public testing::CudaModelsTest {
 protected:
  const at::Tensor a_ = at::rand({3, 17, 19}, at::TensorOptions().dtype(at::kFloat)) * 100.0;
  const at::Tensor b_ = at::rand({3, 19, 23}, at::TensorOptions().dtype(at::kFloat)) * 100.0;
};

TEST_F(CudaArithmeticTest, MatmulsKeepTheCpusArithmeticUnlessTf32IsAllowed) {
  const Tf32Setting off(false);
  EXPECT_TRUE(at::equal(at::bmm(a_.to(v1_), b_.to(v1_)).cpu(), at::bmm(a_, b_)));
  EXPECT_TRUE(ca::take_moved().empty());
}

TEST_F(CudaArithmeticTest, AllowedTf32RoundsTheProductsInputsOnVdevOnly) {
  const Tf32Setting on(true);
  const auto mine = at::bmm(a_.to(v1_), b_.to(v1_)).cpu();
  EXPECT_TRUE(at::equal(mine, at::bmm(vdev::tf32::round(a_), vdev::tf32::round(b_))));
  EXPECT_FALSE(at::equal(mine, at::bmm(a_, b_)));
  EXPECT_TRUE(at::equal(at::bmm(a_, b_), at::bmm(a_, b_)));  // the CPU row keeps its arithmetic
  const auto m = a_[0], n = b_[0];
  const auto bias = at::rand({23});
  EXPECT_TRUE(at::equal(at::addmm(bias.to(v1_), m.to(v1_), n.to(v1_)).cpu(),
                        at::addmm(bias, vdev::tf32::round(m), vdev::tf32::round(n))));  // the addend is not rounded
  // matmul's matrix-vector case is gemv, which has no tensor-core path.
  const auto v = at::rand({19});
  ca::take_moved();
  EXPECT_TRUE(at::equal(at::matmul(m.to(v1_), v.to(v1_)).cpu(), at::matmul(m, v)));
  EXPECT_TRUE(ca::take_moved().empty());
  at::mm(m.to(v1_), n.to(v1_)).cpu();
  const auto moved = ca::take_moved();
  ASSERT_EQ(moved.count("tf32_matmul"), 1u);
  EXPECT_EQ(ca::moved_words(moved), "tf32_matmul in 1 op call (torch.backends.cuda.matmul.allow_tf32 is on)");
}

TEST_F(CudaArithmeticTest, Float64AndTheCpuArithmeticSwitchAreLeftAlone) {
  const Tf32Setting on(true);
  const auto a = a_.to(at::kDouble), b = b_.to(at::kDouble);
  EXPECT_TRUE(at::equal(at::bmm(a.to(v1_), b.to(v1_)).cpu(), at::bmm(a, b)));
  const vdev::ModeScope cpu_arithmetic(testing::mode_with_cuda_arithmetic(false));
  EXPECT_TRUE(at::equal(at::bmm(a_.to(v1_), b_.to(v1_)).cpu(), at::bmm(a_, b_)));
  EXPECT_TRUE(ca::take_moved().empty());
}

TEST_F(CudaArithmeticTest, ALibrarysModelOfItsOpRunsOnVdevInPlaceOfTheCpuKernel) {
  const auto x = at::full({4}, 0.7, at::TensorOptions().dtype(at::kFloat));  // 178.5: round 178 (even), trunc 178
  const auto y = at::linspace(0, 1, 11);
  const auto op = c10::Dispatcher::singleton().findSchemaOrThrow("devparity_test_cuda_model::quantize", "")
                      .typed<at::Tensor(const at::Tensor&)>();
  EXPECT_TRUE(at::equal(op.call(y), at::round(y * 255.0)));
  EXPECT_TRUE(at::equal(op.call(y.to(v1_)).cpu(), at::trunc(y * 255.0)));
  const auto moved = ca::take_moved();
  ASSERT_EQ(moved.count("test_quantize_truncates"), 1u) << ca::moved_words(moved);
  op.call(x.to(v1_)).cpu();  // the same values: nothing moved
  EXPECT_EQ(ca::take_moved().count("test_quantize_truncates"), 0u);
  const vdev::ModeScope cpu_arithmetic(testing::mode_with_cuda_arithmetic(false));
  EXPECT_TRUE(at::equal(op.call(y.to(v1_)).cpu(), at::round(y * 255.0)));
}

TEST_F(CudaArithmeticTest, AModelForEveryCallEndsAnOpsList) {
  const auto all = ca::models();
  auto model = *std::find_if(all.begin(), all.end(), [](const ca::Model& m) { return m.name == "cuda_grid_sample"; });
  model.name = "another";
  EXPECT_THROW(ca::add(model), std::logic_error);
  take_registration_errors();
  EXPECT_FALSE(ca::register_model(model));  // user code's registration records the clash instead
  const auto recorded = take_registration_errors();
  ASSERT_EQ(recorded.size(), 1u);
  EXPECT_NE(recorded[0].find("aten::grid_sampler_2d already has the model 'cuda_grid_sample'"), std::string::npos)
      << recorded[0];
  model.kernel = nullptr;
  EXPECT_THROW(ca::add(model, /*replace=*/true), std::invalid_argument);
  const auto names = [] {
    std::vector<std::string> out;
    for (const auto& m : ca::models()) out.push_back(m.name);
    return out;
  }();
  for (const auto* name : {"tf32_matmul", "sgemm_fma", "cuda_grid_sample", "test_quantize_truncates",
                           "test_scale_while_set", "test_scale_otherwise"}) {
    EXPECT_NE(std::find(names.begin(), names.end(), name), names.end()) << name;
  }
}

TEST_F(CudaArithmeticTest, TheFirstModelWhoseSettingIsOnAndThatCoversTheCallComputesIt) {
  const auto op = c10::Dispatcher::singleton().findSchemaOrThrow("devparity_test_cuda_model::scale", "")
                      .typed<at::Tensor(const at::Tensor&)>();
  const auto x = at::ones({4});
  EXPECT_TRUE(at::equal(op.call(x), x * 2));                 // the CPU's kernel
  EXPECT_TRUE(at::equal(op.call(x.to(v1_)).cpu(), x * 4));  // the setting is off: the second model
  g_scale_setting = true;
  EXPECT_TRUE(at::equal(op.call(x.to(v1_)).cpu(), x * 3));                // the first model
  EXPECT_TRUE(at::equal(op.call(at::ones({2}).to(v1_)).cpu(), at::ones({2}) * 4));  // not covered by it
  g_scale_setting = false;
  const auto moved = ca::take_moved();
  EXPECT_EQ(moved.at("test_scale_while_set"), 1);
  EXPECT_EQ(moved.at("test_scale_otherwise"), 2);
}

}  // namespace
}  // namespace devparity
