// The device kinds table (Note [Device kinds]) against what reads it: every
// row is a token the parser resolves to that row, `auto` is the rows' own
// choices in table order, the grammar in errors lists every row, and the
// per-kind properties the runner reads come from the row, present or absent.
#include "harness/device/device_kinds.h"

#include "harness/base/error.h"
#include "harness/base/registration.h"

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

namespace devparity {
namespace {

int none_here(const DeviceInventory&) { return 0; }
std::string npu_absent(const std::string& name, int, const DeviceInventory&) {
  return name + ": the test's accelerator is never present";
}
std::vector<std::string> nothing_automatic(const DeviceInventory&) { return {}; }
std::string npu_model(int) { return "the test's accelerator"; }

// A plugin's kind, built by member name.
DeviceKind test_npu() {
  DeviceKind k;
  k.family = "devparity_test_npu";
  k.type = c10::DeviceType::XPU;
  k.indexed = true;
  k.accelerator = true;
  k.count = none_here;
  k.absent = npu_absent;
  k.auto_names = nothing_automatic;
  k.model = npu_model;
  return k;
}

// Registered once per process (gtest may repeat the test); auto takes none
// of it, so nothing else in the process sees another device.
const bool kNpuRegistered = register_device_kind(test_npu());

TEST(DeviceKinds, UserCodeAddsAKindThatParsesLikeTheBuiltIns) {
  ASSERT_TRUE(kNpuRegistered) << take_registration_errors().front();
  const auto* kind = device_kind_named("devparity_test_npu:1");
  ASSERT_NE(kind, nullptr);
  EXPECT_EQ(&device_kind(c10::DeviceType::XPU), kind);
  const auto target = resolve_device("devparity_test_npu:1", machine(0, 2));
  EXPECT_FALSE(target.available());
  EXPECT_EQ(target.absent_reason, "devparity_test_npu:1: the test's accelerator is never present");
  EXPECT_EQ(auto_device_names(machine(0, 2)),
            (std::vector<std::string>{"cpu", "cuda:0", "cuda:N", "vdev:0", "vdev:1", "meta"}));
  EXPECT_EQ(std::string(device_kinds().front().family), "cpu");  // the built-ins first, in their order
}

TEST(DeviceKinds, AKindWithoutAFamilyAnActionOrATypeOfItsOwnIsRefusedNotThrown) {
  (void)take_registration_errors();
  auto twice = test_npu();
  twice.type = c10::DeviceType::HIP;
  auto no_count = test_npu();
  no_count.family = "devparity_test_other";
  no_count.count = nullptr;
  auto taken_type = test_npu();
  taken_type.family = "devparity_test_third";
  taken_type.type = c10::DeviceType::PrivateUse1;
  auto bad_family = test_npu();
  bad_family.family = "Bad Name";
  for (const auto& k : {twice, no_count, taken_type, bad_family}) EXPECT_FALSE(register_device_kind(k)) << k.family;
  const auto errors = take_registration_errors();
  ASSERT_EQ(errors.size(), 4u);
  EXPECT_EQ(errors[0], "device kind 'devparity_test_npu' is registered twice");
  EXPECT_EQ(errors[1], "device kind 'devparity_test_other': count, absent, auto_names and model are required");
  // (LibTorch 2.x names PrivateUse1 after the backend once vdev is installed.)
  EXPECT_EQ(errors[2].rfind("device kind 'devparity_test_third': the ", 0), 0u) << errors[2];
  EXPECT_NE(errors[2].find(" device type is the 'vdev' kind's"), std::string::npos) << errors[2];
  EXPECT_EQ(errors[3], "device kind 'Bad Name': a family is lower-case letters, digits and _");
  EXPECT_EQ(device_kind_named("devparity_test_other"), nullptr);
}

}  // namespace
}  // namespace devparity
