#include "harness/base/error.h"

#include <ATen/ATen.h>
#include <gtest/gtest.h>

namespace devparity {
namespace {

// Note [Device error wordings]: one row per wording LibTorch uses, classified
// by structure: the device checks are mismatches; the dispatcher's missing
// kernel and meta's missing data are capabilities (a skip on meta).
struct WordingCase {
  const char* text;
  FailureKind kind;
  const char* wording;
};

TEST(ErrorTest, EachWordingIsClassifiedByItsStructure) {
  const WordingCase cases[] = {
      {"Expected all tensors to be on the same device, but found at least two devices, cuda:0 and cpu! "
       "(when checking argument for argument index in method wrapper_CUDA__index_select)",
       FailureKind::kDeviceMismatch, "same_device"},
      {"Expected all tensors to be on the same device, but found at least two devices, meta and cpu!",
       FailureKind::kDeviceMismatch, "same_device"},
      {"indices should be either on cpu or on the same device as the indexed tensor (cpu)",
       FailureKind::kDeviceMismatch, "indices_device"},
      {"expected self and mask to be on the same device, but got mask on cpu and self on cuda:0",
       FailureKind::kDeviceMismatch, "mask_device"},
      {"Attempted to set the storage of a tensor on device \"cuda:0\" to a storage on different device "
       "\"cpu\".  This is no longer allowed; the devices must match.",
       FailureKind::kDeviceMismatch, "storage_device"},
      {"Function MulBackward0 returned an invalid gradient at index 0 - expected device cuda:1 but got cuda:0",
       FailureKind::kDeviceMismatch, "gradient_device"},
      {"expected device cuda:0 but got device cpu for value tensor", FailureKind::kDeviceMismatch,
       "value_device"},
      {"Trying to pass too many CPU scalars to non-CPU kernel!", FailureKind::kDeviceMismatch, "cpu_scalars"},
      {"Expected tensor for argument #1 'input' to have the same device as tensor for argument #2 'weight'; "
       "but device 0 does not equal 1",
       FailureKind::kDeviceMismatch, "argument_device"},
      {"grid_sampler(): expected input and grid to be on same device, but input is on cuda:0 and grid is on cpu",
       FailureKind::kDeviceMismatch, "kernel_same_device"},
      {"Tensor on device cpu is not on the expected device meta!", FailureKind::kDeviceMismatch,
       "expected_device"},
      {"Expected a 'cuda' device type for generator but found 'cpu'", FailureKind::kDeviceMismatch,
       "generator_device"},
      {"Unhandled FakeTensor Device Propagation for aten.mm.default, found two different devices cuda:0, cpu",
       FailureKind::kDeviceMismatch, "fake_tensor"},
      {"Torch not compiled with CUDA enabled", FailureKind::kDeviceMismatch, "no_cuda"},
      {"Input type (torch.cuda.FloatTensor) and weight type (torch.FloatTensor) should be the same or input "
       "should be a MKLDNN tensor and weight is a dense tensor",
       FailureKind::kDeviceMismatch, "parameter_type"},
      {"Could not run 'aten::_local_scalar_dense' with arguments from the 'Meta' backend. This could be "
       "because the operator doesn't exist for this backend",
       FailureKind::kUnsupported, "missing_kernel"},
      {"Could not run 'aten::index_select' with arguments from the 'Meta' backend.", FailureKind::kUnsupported,
       "missing_kernel"},
      {"Cannot copy out of meta tensor; no data!", FailureKind::kUnsupported, "meta_has_no_data"},
      {"\"upsample_bilinear2d_out_frame\" not implemented for 'Byte'", FailureKind::kUnsupported,
       "dtype_kernel"},
  };
  for (const auto& c : cases) {
    const auto e = classify_message(c.text);
    EXPECT_EQ(e.kind, c.kind) << c.text;
    EXPECT_EQ(e.wording, c.wording) << c.text;
  }
  // A dtype mismatch in convolution's type check is not a device one.
  EXPECT_EQ(classify_message("Input type (torch.FloatTensor) and weight type (torch.DoubleTensor) should "
                             "be the same")
                .kind,
            FailureKind::kException);
  // The interpreter's traceback is classified by the error at its end.
  const auto scripted = classify_message(
      "The following operation failed in the TorchScript interpreter.\nTraceback of TorchScript "
      "(most recent call last):\n  File \"/x/model.py\", line 12, in forward\n    return x.item()\n"
      "RuntimeError: Could not run 'aten::_local_scalar_dense' with arguments from the 'Meta' backend.");
  EXPECT_EQ(scripted.kind, FailureKind::kUnsupported);
  EXPECT_EQ(scripted.op, "aten::_local_scalar_dense");
  EXPECT_EQ(scripted.source, "/x/model.py:12");
}

TEST(ErrorTest, TracebacksNameTheSubjectsLineNotTorchs) {
  const auto e = classify_message(
      "The following operation failed in the TorchScript interpreter.\nTraceback of TorchScript "
      "(most recent call last):\n  File \"/x/model.py\", line 129, in forward\n    y = F.pad(x, [1])\n"
      "  File \"/usr/lib/python3/dist-packages/torch/nn/functional.py\", line 4400, in pad\n"
      "RuntimeError: Expected all tensors to be on the same device, but found at least two devices, "
      "meta and cpu!");
  EXPECT_EQ(e.kind, FailureKind::kDeviceMismatch);
  EXPECT_EQ(e.source, "/x/model.py:129");
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
  // Issue 56: grid sampling's wording has no quotes; it was a failure split by device.
  EXPECT_EQ(classify_message("grid_sampler_2d_cpu not implemented for Half").kind, FailureKind::kUnsupported);
  EXPECT_EQ(classify_message("grid_sampler_2d_cpu not implemented for BFloat16\nException raised from x").kind,
            FailureKind::kUnsupported);
  EXPECT_EQ(classify_message("my kernel not implemented for everyone").kind, FailureKind::kException);
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
