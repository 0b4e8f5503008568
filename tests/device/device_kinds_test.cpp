// The device kinds table (Note [Device kinds]) against what reads it: every
// row is a token the parser resolves to that row, `auto` is the rows' own
// choices in table order, the grammar in errors lists every row, and the
// per-kind properties the runner reads come from the row, present or absent.
#include "harness/device/device_kinds.h"

#include "harness/base/error.h"

#include <gtest/gtest.h>

#include <set>
#include <stdexcept>

namespace devparity {
namespace {

DeviceInventory machine(int cuda, int vdev) {
  DeviceInventory inv;
  inv.cuda_count = cuda;
  inv.cuda_compiled = cuda > 0;
  inv.vdev_compiled = true;
  inv.vdev_count = vdev;
  return inv;
}

TEST(DeviceKinds, EachRowIsOneTypeAndOneFamilyThatResolvesToIt) {
  std::set<std::string> families;
  std::set<c10::DeviceType> types;
  for (const auto& k : device_kinds()) {
    EXPECT_TRUE(families.insert(k.family).second) << k.family;
    EXPECT_TRUE(types.insert(k.type).second) << k.family;
    EXPECT_EQ(&device_kind(k.type), &k);
    EXPECT_EQ(device_kind_named(k.family), &k);
    for (const auto& inv : {machine(0, 0), machine(2, 2)}) {
      const auto t = resolve_device(k.family, inv);
      EXPECT_EQ(&t.kind(), &k) << k.family << " present: " << t.available();
      EXPECT_EQ(t.has_values(), k.has_values);
      EXPECT_EQ(t.simulated(), k.simulated);
    }
  }
  EXPECT_EQ(device_kind_named("cudax"), nullptr);
  EXPECT_EQ(device_kind_named("metal"), nullptr);
}

TEST(DeviceKinds, AutoIsEachRowsChoiceInTableOrder) {
  for (const auto& inv : {machine(0, 2), machine(2, 2)}) {
    std::vector<std::string> expected;
    for (const auto& k : device_kinds()) {
      for (const auto& n : k.auto_names(inv)) expected.push_back(n);
    }
    EXPECT_EQ(auto_device_names(inv), expected);
  }
  EXPECT_EQ(auto_device_names(machine(0, 2)),
            (std::vector<std::string>{"cpu", "cuda:0", "cuda:N", "vdev:0", "vdev:1", "meta"}));
  EXPECT_EQ(auto_device_names(machine(2, 2)), (std::vector<std::string>{"cpu", "cuda:0", "cuda:N", "meta"}));
}

TEST(DeviceKinds, AnUnknownTokenListsEveryRowsGrammar) {
  try {
    resolve_device("tpu:0", machine(0, 2));
    FAIL() << "tpu:0 resolved";
  } catch (const UsageError& e) {
    const std::string what = e.what();
    for (const auto& k : device_kinds()) {
      EXPECT_NE(what.find(std::string(k.family)), std::string::npos) << what;
      if (k.indexed) EXPECT_NE(what.find(std::string(k.family) + ":N"), std::string::npos) << what;
    }
  }
}

TEST(DeviceKinds, ThePropertiesTheRunnerReadsAreTheRows) {
  EXPECT_TRUE(device_kind(c10::DeviceType::CUDA).poisoned_by_device_errors);
  EXPECT_FALSE(device_kind(c10::DeviceType::PrivateUse1).poisoned_by_device_errors);
  EXPECT_TRUE(device_kind(c10::DeviceType::PrivateUse1).runs_cpu_kernels);
  EXPECT_FALSE(device_kind(c10::DeviceType::Meta).has_values);
  EXPECT_NE(device_kind(c10::DeviceType::CUDA).synchronize, nullptr);
  EXPECT_EQ(device_kind(c10::DeviceType::CPU).pinned_empty, nullptr);
  // An absent device still has its row: a skipped cuda:N is CUDA's.
  const auto absent = resolve_device("cuda:N", machine(0, 2));
  ASSERT_FALSE(absent.available());
  EXPECT_EQ(absent.absent_reason, "cuda:N needs two or more CUDA devices; this machine has 0 (this build has no CUDA support)");
  EXPECT_STREQ(absent.kind().family, "cuda");
  // A target no row names is a programming error, said as one (not a null dereference).
  EXPECT_THROW((DeviceTarget{"tpu:0", std::nullopt, ""}.kind()), std::logic_error);
}

}  // namespace
}  // namespace devparity
