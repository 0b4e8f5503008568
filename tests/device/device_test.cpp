#include "harness/device/device.h"

#include "harness/base/error.h"
#include "harness/vdev/vdev.h"

#include <ATen/Context.h>
#include <c10/core/impl/DeviceGuardImplInterface.h>
#include <torch/cuda.h>

#include <gtest/gtest.h>

namespace devparity {
namespace {

DeviceInventory machine(int cuda_count) {
  DeviceInventory inv;
  inv.cuda_count = cuda_count;
  inv.cuda_compiled = cuda_count > 0;
  return inv;
}

TEST(DeviceTest, ParsesCpuAndMeta) {
  const auto cpu = resolve_device("cpu", machine(0));
  ASSERT_TRUE(cpu.available());
  EXPECT_EQ(cpu.device->type(), c10::DeviceType::CPU);
  EXPECT_TRUE(cpu.has_values());
  const auto meta = resolve_device("meta", machine(0));
  ASSERT_TRUE(meta.available());
  EXPECT_EQ(meta.device->type(), c10::DeviceType::Meta);
  EXPECT_FALSE(meta.has_values());
}

TEST(DeviceTest, AbsentCudaIsWellFormedWithReason) {
  const auto t = resolve_device("cuda:0", machine(0));
  EXPECT_FALSE(t.available());
  EXPECT_EQ(t.name, "cuda:0");
  EXPECT_NE(t.absent_reason.find("no CUDA support"), std::string::npos) << t.absent_reason;
}

TEST(DeviceTest, CudaWithoutIndexMeansZero) {
  const auto t = resolve_device("cuda", machine(2));
  ASSERT_TRUE(t.available());
  EXPECT_EQ(t.name, "cuda:0");
  EXPECT_EQ(t.device->index(), 0);
}

TEST(DeviceTest, CudaNIsTheHighestIndexWithTwoOrMore) {
  const auto t = resolve_device("cuda:N", machine(4));
  ASSERT_TRUE(t.available());
  EXPECT_EQ(t.name, "cuda:N");
  EXPECT_EQ(t.device->index(), 3);
  EXPECT_EQ(t.resolved_name(), "cuda:3");
}

TEST(DeviceTest, CudaNIsAbsentWithOneDevice) {
  const auto t = resolve_device("cuda:N", machine(1));
  EXPECT_FALSE(t.available());
  EXPECT_NE(t.absent_reason.find("two or more"), std::string::npos) << t.absent_reason;
}

TEST(DeviceTest, IndexBeyondCountIsAbsent) {
  const auto t = resolve_device("cuda:2", machine(2));
  EXPECT_FALSE(t.available());
  EXPECT_NE(t.absent_reason.find("2 CUDA device"), std::string::npos) << t.absent_reason;
}

TEST(DeviceTest, UnknownNamesAreUsageErrorsNamingTheToken) {
  for (const std::string bad : {"gpu", "cuda:", "cuda:-1", "cuda:x", "CPU", "cpu:0", "mps"}) {
    try {
      resolve_device(bad, machine(2));
      ADD_FAILURE() << "accepted '" << bad << "'";
    } catch (const UsageError& e) {
      EXPECT_NE(std::string(e.what()).find("'" + bad + "'"), std::string::npos) << e.what();
    }
  }
}

TEST(DeviceTest, AutoExpandsToTheWholeMatrixInOrder) {
  // Without CUDA the simulated accelerator covers the non-zero index.
  const auto list = parse_device_list("auto", machine(0));
  std::vector<std::string> names;
  for (const auto& t : list) names.push_back(t.name);
  EXPECT_EQ(names, (std::vector<std::string>{"cpu", "cuda:0", "cuda:N", "vdev:0", "vdev:1", "meta"}));
  EXPECT_FALSE(list[1].available());
  EXPECT_FALSE(list[2].available());
  EXPECT_TRUE(list[3].simulated());
  EXPECT_TRUE(list[5].simulated());
  EXPECT_FALSE(list[0].simulated());
  // With CUDA devices, real ones take its place.
  names.clear();
  for (const auto& t : parse_device_list("auto", machine(2))) names.push_back(t.name);
  EXPECT_EQ(names, (std::vector<std::string>{"cpu", "cuda:0", "cuda:N", "meta"}));
}

TEST(DeviceTest, VirtualDevices) {
  DeviceInventory inv;
  inv.vdev_compiled = true;
  inv.vdev_count = 3;
  const auto v1 = resolve_device("vdev:1", inv);
  ASSERT_TRUE(v1.available());
  EXPECT_EQ(v1.device->type(), c10::DeviceType::PrivateUse1);
  EXPECT_EQ(v1.device->index(), 1);
  EXPECT_EQ(v1.resolved_name(), "vdev:1");
  EXPECT_TRUE(v1.has_values());
  const auto n = resolve_device("vdev:N", inv);
  EXPECT_EQ(n.device->index(), 2);
  EXPECT_EQ(n.resolved_name(), "vdev:2");
  EXPECT_EQ(resolve_device("vdev", inv).name, "vdev:0");
  const auto missing = resolve_device("vdev:3", inv);
  EXPECT_FALSE(missing.available());
  EXPECT_NE(missing.absent_reason.find("3 index(es)"), std::string::npos) << missing.absent_reason;
  inv.vdev_count = 1;
  EXPECT_FALSE(resolve_device("vdev:N", inv).available());
  inv.vdev_count = 0;
  EXPECT_NE(resolve_device("vdev:0", inv).absent_reason.find("not installed"), std::string::npos);
  inv.vdev_compiled = false;
  EXPECT_NE(resolve_device("vdev:0", inv).absent_reason.find("no virtual device"), std::string::npos);
  EXPECT_THROW(resolve_device("vdev:x", inv), UsageError);
}

TEST(DeviceTest, LabelsNameTheVirtualDeviceVdev) {
  EXPECT_EQ(device_label(c10::Device(c10::DeviceType::PrivateUse1, 1)), "vdev:1");
  EXPECT_EQ(device_label(c10::Device(c10::DeviceType::CUDA, 3)), "cuda:3");
  EXPECT_EQ(device_label(c10::Device(c10::DeviceType::CPU)), "cpu");
}

TEST(DeviceTest, ListDropsDuplicatesAndKeepsOrder) {
  const auto list = parse_device_list("meta, cpu,meta,cuda,cuda:0", machine(1));
  ASSERT_EQ(list.size(), 3u);
  EXPECT_EQ(list[0].name, "meta");
  EXPECT_EQ(list[1].name, "cpu");
  EXPECT_EQ(list[2].name, "cuda:0");
}

TEST(DeviceTest, BadTokenInListIsNamed) {
  try {
    parse_device_list("cpu,gpu,meta", machine(0));
    FAIL() << "accepted gpu";
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("'gpu'"), std::string::npos);
  }
  EXPECT_THROW(parse_device_list(" , ", machine(0)), UsageError);
}

// The probe asks LibTorch, not a copy of its answers: LibTorch's own CUDA
// hooks and the virtual device's installed indices.
TEST(DeviceTest, ProbeOnThisBuildMatchesLibTorch) {
  const auto inv = DeviceInventory::probe();
  // A build with CUDA support runs on a CUDA LibTorch, whose device guard is registered with or
  // without a GPU (at::hasCUDA() says whether one is usable: false on a CUDA build without a GPU).
  if (inv.cuda_compiled) {
    EXPECT_TRUE(c10::impl::hasDeviceGuardImpl(c10::DeviceType::CUDA)) << "the CUDA support file needs a CUDA LibTorch";
  }
  EXPECT_EQ(inv.cuda_count, inv.cuda_compiled ? static_cast<int>(torch::cuda::device_count()) : 0);
  EXPECT_EQ(inv.cuda_count > 0, inv.cuda_compiled && at::hasCUDA());
  EXPECT_EQ(inv.vdev_compiled, vdev::compiled());
  EXPECT_EQ(inv.vdev_count, vdev::compiled() ? vdev::device_count() : 0);
  // A run's own count of virtual indices, installed here or not.
  EXPECT_EQ(DeviceInventory::probe(3).vdev_count, vdev::compiled() ? 3 : 0);
  EXPECT_EQ(DeviceInventory::probe(3).cuda_count, inv.cuda_count);
}

}  // namespace
}  // namespace devparity
