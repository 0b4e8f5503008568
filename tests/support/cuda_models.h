#pragma once
// What the tests of vdev's models of CUDA's arithmetic share (Note [CUDA's
// arithmetic on vdev]): the built-ins registered, the models on, nothing
// counted yet; and the TF32 setting restored after a test.

#include "harness/builtins.h"
#include "harness/vdev/cuda_arithmetic.h"
#include "harness/vdev/vdev.h"
#include "tests/support/vdev_mode.h"

#include <ATen/Context.h>
#include <gtest/gtest.h>

namespace devparity::testing {

/// The TF32 setting as it was, after the test.
class Tf32Setting {
 public:
  explicit Tf32Setting(bool on) : was_(at::globalContext().allowTF32CuBLAS()) {
    at::globalContext().setAllowTF32CuBLAS(on);
  }
  ~Tf32Setting() { at::globalContext().setAllowTF32CuBLAS(was_); }
  Tf32Setting(const Tf32Setting&) = delete;
  Tf32Setting& operator=(const Tf32Setting&) = delete;

 private:
  bool was_;
};

class CudaModelsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    register_builtins();
    if (!vdev::compiled()) GTEST_SKIP() << "this build has no virtual device (DEVPARITY_WITH_VDEV)";
    mode_.emplace(testing::mode_with_cuda_arithmetic(true));
    vdev::cuda_arithmetic::take_moved();
  }
  void TearDown() override { mode_.reset(); }
  std::optional<vdev::ModeScope> mode_;
  const c10::Device v1_ = vdev::device(1);
};

}  // namespace devparity::testing
