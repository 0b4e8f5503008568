#include "harness/core/device.h"

#include "harness/core/error.h"

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
  const auto list = parse_device_list("auto", machine(0));
  ASSERT_EQ(list.size(), 4u);
  EXPECT_EQ(list[0].name, "cpu");
  EXPECT_EQ(list[1].name, "cuda:0");
  EXPECT_EQ(list[2].name, "cuda:N");
  EXPECT_EQ(list[3].name, "meta");
  EXPECT_FALSE(list[1].available());
  EXPECT_FALSE(list[2].available());
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

TEST(DeviceTest, ProbeOnThisBuildMatchesLibTorch) {
  const auto inv = DeviceInventory::probe();
  EXPECT_GE(inv.cuda_count, 0);
  if (!inv.cuda_compiled) EXPECT_EQ(inv.cuda_count, 0);
}

}  // namespace
}  // namespace devparity
