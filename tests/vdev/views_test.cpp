// Views and complex numbers on the virtual device, one row per view family:
// each view lands on the device, holds the CPU's values, and aliases its
// base's own storage as on CUDA (a write through the view reaches the base).
// Also the ops around them that reached the device's gaps in real suites:
// math-bit copies (Note [Math bits on the virtual device]) and host-buffer
// composites (Note [Host-buffer composites]).

#include "harness/vdev/vdev.h"

#include "harness/builtins.h"

#include <ATen/ATen.h>
#include <gtest/gtest.h>

#include <functional>

namespace devparity {
namespace {

class VdevViewsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    register_builtins();
    if (!vdev::compiled()) GTEST_SKIP() << "this build has no virtual device (DEVPARITY_WITH_VDEV)";
  }
  const c10::Device v1_ = vdev::device(1);
};

struct ViewRow {
  const char* family;
  std::function<at::Tensor()> base;                        // on the CPU
  std::function<at::Tensor(const at::Tensor&)> view;       // of the base, on any device
};

at::Tensor complex_base() { return at::randn({3, 4}, at::kComplexFloat); }
at::Tensor real_base() { return at::randn({4, 6}); }

std::vector<ViewRow> rows() {
  return {
      {"view", real_base, [](const at::Tensor& t) { return t.view({6, 4}); }},
      {"reshape_alias", real_base, [](const at::Tensor& t) { return t.reshape({2, 12}); }},
      {"as_strided", real_base, [](const at::Tensor& t) { return t.as_strided({2, 2}, {6, 1}, 1); }},
      {"unfold", real_base, [](const at::Tensor& t) { return t.unfold(1, 3, 2); }},
      {"diagonal", real_base, [](const at::Tensor& t) { return t.diagonal(1); }},
      {"transpose_permute", real_base, [](const at::Tensor& t) { return t.t().permute({1, 0}).t(); }},
      {"select_slice_narrow", real_base, [](const at::Tensor& t) { return t.select(0, 1).narrow(0, 1, 3); }},
      {"expand_squeeze", real_base, [](const at::Tensor& t) { return t.unsqueeze(0).squeeze(0).expand({4, 6}); }},
      {"split_chunk_unbind", real_base, [](const at::Tensor& t) { return t.split(2, 1)[1].chunk(2, 0)[1].unbind(0)[0]; }},
      {"view_dtype", real_base, [](const at::Tensor& t) { return t.view(at::kInt); }},
      {"view_as_real", complex_base, [](const at::Tensor& t) { return at::view_as_real(t); }},
      {"real_imag", complex_base, [](const at::Tensor& t) { return at::imag(t); }},
      {"view_as_complex", real_base, [](const at::Tensor& t) { return at::view_as_complex(t.view({4, 3, 2})); }},
      {"conj_neg_views", complex_base, [](const at::Tensor& t) { return t.conj()._neg_view(); }},
  };
}

TEST_F(VdevViewsTest, EveryViewFamilyAliasesTheDeviceStorage) {
  for (const auto& row : rows()) {
    SCOPED_TRACE(row.family);
    const auto host = row.base();
    const auto device = host.to(v1_);
    const auto expected = row.view(host);
    at::Tensor view;
    ASSERT_NO_THROW(view = row.view(device));
    EXPECT_EQ(view.device(), v1_);
    EXPECT_EQ(view.sizes(), expected.sizes());
    EXPECT_EQ(view.dtype(), expected.dtype());
    EXPECT_TRUE(at::equal(view.resolve_conj().resolve_neg().cpu(), expected.resolve_conj().resolve_neg()));
    EXPECT_TRUE(view.storage().is_alias_of(device.storage())) << "not a view of the device tensor's storage";
    // A write through the view reaches the base, as on CUDA.
    view.fill_(7);
    expected.fill_(7);
    EXPECT_TRUE(at::equal(device.cpu(), host));
  }
}

TEST_F(VdevViewsTest, ComplexNumbersWorkThroughout) {
  const auto z = at::randn({5}, at::kComplexFloat);
  const auto v = z.to(v1_);
  EXPECT_TRUE(at::allclose((v * v).cpu(), z * z));
  EXPECT_TRUE(at::equal(at::abs(v).cpu(), at::abs(z)));
  EXPECT_TRUE(at::equal(at::angle(v).cpu(), at::angle(z)));
  EXPECT_TRUE(at::equal(v.conj().resolve_conj().cpu(), z.conj_physical()));  // crashed: Note [Math bits on the virtual device]
  EXPECT_TRUE(at::equal(at::real(v).clone().cpu(), at::real(z)));
  EXPECT_TRUE(at::equal(v.conj().clone().cpu(), z.conj().clone()));
}

TEST_F(VdevViewsTest, HostBufferCompositesStayOnTheDevice) {
  // A rotation has complex eigenvalues: 1.13's composite linalg_eigvals.out wrote them with
  // complex_out beside CPU work tensors on any device but CUDA.
  const auto rotation = at::tensor({0.f, -1.f, 1.f, 0.f}).view({2, 2});
  const auto expected = at::linalg_eigvals(rotation);
  at::Tensor values;
  ASSERT_NO_THROW(values = at::linalg_eigvals(rotation.to(v1_)));
  EXPECT_EQ(values.device(), v1_);
  EXPECT_TRUE(at::equal(values.cpu(), expected));
  const auto eig = at::linalg_eig(rotation.to(v1_));
  EXPECT_EQ(std::get<0>(eig).device(), v1_);
  EXPECT_TRUE(at::equal(std::get<0>(eig).cpu(), std::get<0>(at::linalg_eig(rotation))));
  // CUDA's rules still hold around it: a CPU out= for a device input is refused.
  auto cpu_out = at::empty({0}, at::kComplexFloat);
  EXPECT_ANY_THROW(at::linalg_eigvals_out(cpu_out, rotation.to(v1_)));
}

}  // namespace
}  // namespace devparity
