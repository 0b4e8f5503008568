// The virtual device: real values from the CPU kernels, CUDA's placement rules.

#include "harness/vdev/vdev.h"

#include "harness/base/error.h"
#include "harness/builtins.h"
#include "harness/device/device.h"

#include <ATen/ATen.h>
#include <c10/core/DeviceGuard.h>
#include <gtest/gtest.h>

namespace devparity {
namespace {

using at::indexing::Slice;

class VdevTest : public ::testing::Test {
 protected:
  void SetUp() override {
    register_builtins();  // installs two indices
    if (!vdev::compiled()) GTEST_SKIP() << "this build has no virtual device (DEVPARITY_WITH_VDEV)";
  }
  const c10::Device v0_ = vdev::device(0);
  const c10::Device v1_ = vdev::device(1);
};

std::string error_of(const std::function<void()>& fn) {
  try {
    fn();
  } catch (const std::exception& e) {
    return torch_message(e);
  }
  return "";
}

TEST_F(VdevTest, TensorsMoveAndKeepTheirIndex) {
  EXPECT_EQ(vdev::device_count(), 2);
  const auto x = at::rand({2, 3, 4, 5});
  const auto v = x.to(v1_);
  EXPECT_EQ(v.device(), v1_);
  EXPECT_EQ((v * 2).device(), v1_);
  EXPECT_EQ(v.clone().device(), v1_);
  EXPECT_EQ(at::zeros_like(v).device(), v1_);
  EXPECT_TRUE(at::equal(v.to(at::kCPU), x));
  EXPECT_EQ(v.to(v0_).device(), v0_);  // device to device
  EXPECT_TRUE(at::equal(v.to(v0_).to(at::kCPU), x));
}

TEST_F(VdevTest, ValuesEqualTheCpuExactly) {
  const auto x = at::rand({1, 3, 9, 7});
  const auto v = x.to(v1_);
  const auto idx = at::arange(4, v.options().dtype(at::kLong));
  const auto pairs = std::vector<std::pair<at::Tensor, at::Tensor>>{
      {at::exp(x) * 3 + 1, at::exp(v) * 3 + 1},
      {x.sum(1, true), v.sum(1, true)},
      {x.index({Slice(), Slice(), Slice(), idx.to(at::kCPU)}), v.index({Slice(), Slice(), Slice(), idx})},
      // (bilinear interpolate computes as CUDA does: tests/vdev/cuda_upsample_test.cpp)
      {at::upsample_nearest2d(x, {5, 11}), at::upsample_nearest2d(v, {5, 11})},
      {at::cat({x, x}, 2), at::cat({v, v}, 2)},
      {x.permute({0, 1, 3, 2}).contiguous(), v.permute({0, 1, 3, 2}).contiguous()},
      {at::conv2d(x, at::ones({3, 1, 3, 3}), at::Tensor(), at::IntArrayRef{1, 1},
                  at::IntArrayRef{1, 1}, at::IntArrayRef{1, 1}, 3),
       at::conv2d(v, at::ones({3, 1, 3, 3}, v.options()), at::Tensor(), at::IntArrayRef{1, 1},
                  at::IntArrayRef{1, 1}, at::IntArrayRef{1, 1}, 3)},
  };
  for (const auto& [cpu, virt] : pairs) {
    EXPECT_EQ(virt.device(), v1_);
    EXPECT_TRUE(at::equal(cpu, virt.to(at::kCPU)));
  }
  EXPECT_EQ(v.sum().item<double>(), x.sum().item<double>());
  auto inplace = v.clone();
  inplace.add_(v).mul_(0.5);
  EXPECT_TRUE(at::equal(inplace.to(at::kCPU), (x + x) * 0.5));
}

TEST_F(VdevTest, MixedDevicesFailLikeCuda) {
  const auto a = at::ones({3}).to(v1_);
  const auto b = at::ones({3}).to(v0_);
  auto message = error_of([&] { (void)(a + b); });
  EXPECT_NE(message.find("Expected all tensors to be on the same device"), std::string::npos);
  EXPECT_NE(message.find("vdev:1 and vdev:0"), std::string::npos) << message;
  EXPECT_EQ(classify_message(message).kind, FailureKind::kDeviceMismatch);
  message = error_of([&] { (void)at::cat({a, at::ones({3})}); });
  EXPECT_NE(message.find("vdev:1 and cpu"), std::string::npos) << message;
  message = error_of([&] { (void)at::mm(a.reshape({3, 1}), at::ones({1, 3})); });
  EXPECT_EQ(classify_message(message).kind, FailureKind::kDeviceMismatch) << message;
  // 0-dim CPU tensors are scalars, as on CUDA.
  EXPECT_EQ((a * at::scalar_tensor(2.0)).device(), v1_);
}

TEST_F(VdevTest, TheCurrentDeviceIsIndexZeroUnlessGuarded) {
  const c10::Device type_only(c10::DeviceType::PrivateUse1);
  EXPECT_EQ(at::zeros({2}, at::TensorOptions().device(type_only)).device(), v0_);
  EXPECT_EQ(at::ones({2}).to(type_only).device(), v0_);
  {
    const c10::DeviceGuard guard(v1_);
    EXPECT_EQ(at::zeros({2}, at::TensorOptions().device(type_only)).device(), v1_);
  }
  EXPECT_EQ(at::zeros({2}, at::TensorOptions().device(type_only)).device(), v0_);
  EXPECT_THROW(at::zeros({2}, at::TensorOptions().device(vdev::device(5))), std::exception);
}

TEST_F(VdevTest, OpsItCannotRunAreUnsupportedNotCrashes) {
  // _fused_dropout has a CUDA kernel alone: the CPU kernels behind the
  // virtual device lack it, which is unsupported, named by its op.
  const auto v = at::rand({1, 1, 4, 6}).to(v1_);
  try {
    (void)at::_fused_dropout(v, 0.5);
    FAIL() << "an op without a CPU kernel ran on the virtual device";
  } catch (const std::exception& e) {
    const auto c = classify_exception(e);
    EXPECT_EQ(c.kind, FailureKind::kUnsupported) << torch_message(e);
    EXPECT_NE(c.message.find("aten::_fused_dropout"), std::string::npos) << c.message;
  }
}

TEST_F(VdevTest, LibTorchNamesTheDeviceWhereItCan) {
  if (vdev::named_in_libtorch()) {
    EXPECT_EQ(v1_.str(), "vdev:1");
    EXPECT_EQ(c10::Device("vdev:1"), v1_);
    EXPECT_EQ(at::ones({2}, v1_).device().str(), "vdev:1");
  } else {
    EXPECT_EQ(v1_.str(), "privateuseone:1");
  }
  EXPECT_EQ(device_label(v1_), "vdev:1");
}

// Note [Shared host memory]: the CPU kernels work on aliases of device memory.
TEST_F(VdevTest, KernelsWorkInPlaceOnDeviceMemory) {
  const auto x = at::arange(6, at::TensorOptions().dtype(at::kFloat)).to(v1_);
  auto y = x.clone();
  const auto& same = y.add_(1);
  EXPECT_TRUE(same.is_same(y)) << "an in-place op returns its own tensor";
  EXPECT_EQ(y.device(), v1_);
  EXPECT_TRUE(at::equal(y.cpu(), x.cpu() + 1));
  EXPECT_TRUE(at::equal(x.cpu(), at::arange(6, at::kFloat))) << "the source is untouched";

  const auto z = x * 2;  // a fresh result on the op's device, its own memory
  EXPECT_EQ(z.device(), v1_);
  EXPECT_NE(z.data_ptr(), x.data_ptr());
  EXPECT_TRUE(at::equal(z.cpu(), at::arange(6, at::kFloat) * 2));

  const auto scaled = at::scalar_tensor(3.0) * x;  // a CPU scalar: the result is x's device
  EXPECT_EQ(scaled.device(), v1_);

  const auto made = at::arange(4, at::TensorOptions().dtype(at::kLong).device(v1_));
  EXPECT_EQ(made.device(), v1_);
  EXPECT_TRUE(at::equal(made.cpu(), at::arange(4, at::kLong)));
}

TEST_F(VdevTest, AnOutputTheKernelGrowsComesBack) {
  const auto a = at::rand({2, 3}).to(v1_);
  const auto b = at::rand({4, 3}).to(v1_);
  auto out = at::empty({1}, at::TensorOptions().device(v1_));
  at::cat_out(out, {a, b}, 0);
  EXPECT_EQ(out.sizes(), (std::vector<int64_t>{6, 3}));
  EXPECT_EQ(out.device(), v1_);
  EXPECT_TRUE(at::equal(out.cpu(), at::cat({a.cpu(), b.cpu()}, 0)));

  auto shrunk = at::empty({10, 10}, at::TensorOptions().device(v1_));
  at::mul_out(shrunk, a, 2);
  EXPECT_EQ(shrunk.sizes(), a.sizes());
  EXPECT_TRUE(at::equal(shrunk.cpu(), a.cpu() * 2));
}

TEST_F(VdevTest, DescribesItsLimits) {
  EXPECT_NE(vdev::description().find("synchronous"), std::string::npos);
  EXPECT_NE(vdev::description().find("not modelled"), std::string::npos);
}

}  // namespace
}  // namespace devparity
