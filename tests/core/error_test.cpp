#include "harness/core/error.h"

#include <ATen/ATen.h>
#include <gtest/gtest.h>

namespace devparity {
namespace {

TEST(ErrorTest, EveryDeviceErrorWordingIsAMismatch) {
  // The wordings of ../shared/spec/pytorch-notes.md §8.
  for (const std::string text : {
           "Expected all tensors to be on the same device, but found at least two devices, "
           "cuda:0 and cpu!",
           "indices should be either on cpu or on the same device as the indexed tensor (cpu)",
           "Cannot copy out of meta tensor; no data!",
           "Could not run 'aten::_local_scalar_dense' with arguments from the 'Meta' backend.",
       }) {
    EXPECT_EQ(classify_message(text).kind, FailureKind::kDeviceMismatch) << text;
  }
}

TEST(ErrorTest, MissingKernelsAreUnsupportedWithTheOp) {
  const auto e = classify_message(
      "Could not run 'aten::index_select' with arguments from the 'Meta' backend. This could be "
      "because the operator doesn't exist for this backend, or was omitted during ...");
  EXPECT_EQ(e.kind, FailureKind::kUnsupported);
  EXPECT_EQ(e.op, "aten::index_select");
  EXPECT_EQ(e.message, "Could not run 'aten::index_select' with arguments from the 'Meta' backend");
  EXPECT_EQ(classify_message("\"upsample_bilinear2d\" not implemented for 'Byte'").kind,
            FailureKind::kUnsupported);
  const auto conv = classify_message("convolution_overrideable not implemented. You are likely "
                                     "triggering this with tensor backend other than CPU");
  EXPECT_EQ(conv.kind, FailureKind::kUnsupported);
  EXPECT_EQ(conv.op, "aten::convolution_overrideable");
  EXPECT_EQ(classify_message("boom").kind, FailureKind::kException);
}

TEST(ErrorTest, RealLibTorchErrorsAreClassified) {
  const auto meta = at::empty({2, 2}, at::TensorOptions().device(at::kMeta));
  try {
    (void)(meta + at::ones({2}));
    FAIL();
  } catch (const std::exception& e) {
    const auto c = classify_exception(e);
    EXPECT_EQ(c.kind, FailureKind::kDeviceMismatch);
    EXPECT_EQ(c.message.find("Exception raised from"), std::string::npos) << "backtrace removed";
  }
  try {
    (void)meta.flip({0});
    FAIL();
  } catch (const std::exception& e) {
    EXPECT_EQ(classify_exception(e).kind, FailureKind::kUnsupported);
  }
  EXPECT_EQ(classify_exception(Unsupported("no")).kind, FailureKind::kUnsupported);
}

TEST(ErrorTest, OutOfMemoryAndDeviceErrorsAreErrorsWithTheSize) {
  const auto cpu = classify_message(
      "[enforce fail at alloc_cpu.cpp:75] err == 0. DefaultCPUAllocator: can't allocate memory: you "
      "tried to allocate 4398046511104 bytes. Error code 12 (Cannot allocate memory)");
  EXPECT_EQ(cpu.kind, FailureKind::kOutOfMemory);
  EXPECT_EQ(cpu.requested_bytes, int64_t{1} << 42);
  const auto cuda = classify_message(
      "CUDA out of memory. Tried to allocate 20.00 GiB (GPU 1; 79.15 GiB total capacity; 70.00 GiB already "
      "allocated)");
  EXPECT_EQ(cuda.kind, FailureKind::kOutOfMemory);
  EXPECT_EQ(cuda.requested_bytes, int64_t{20} << 30);
  EXPECT_EQ(classify_message("CUDA error: an illegal memory access was encountered").kind, FailureKind::kDeviceError);
  EXPECT_EQ(classify_message("CUDA error: device-side assert triggered").kind, FailureKind::kDeviceError);
  // A real one: LibTorch refusing 4 TiB.
  try {
    (void)at::empty({int64_t{1} << 40});
    FAIL();
  } catch (const std::exception& e) {
    const auto c = classify_exception(e);
    EXPECT_EQ(c.kind, FailureKind::kOutOfMemory);
    EXPECT_EQ(c.requested_bytes, int64_t{1} << 42);
  }
  const std::bad_alloc host;
  EXPECT_EQ(classify_exception(host).kind, FailureKind::kOutOfMemory);
}

}  // namespace
}  // namespace devparity
