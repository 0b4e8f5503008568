// The tracer's records of storages (trace/provenance.h): one record per
// storage, kept while the trial lives, dropped once its storage is freed and
// the records have doubled; a tensor sent home by name only while it lives.

#include "harness/trace/provenance.h"

#include <ATen/ATen.h>
#include <gtest/gtest.h>

#include <vector>

namespace devparity::tracing {
namespace {

std::shared_ptr<const Origin> made_by(const std::string& op) {
  auto o = std::make_shared<Origin>();
  o->made = Origin::Made::kDefaultFactory;
  o->op = op;
  return o;
}

TEST(StorageRecordsTest, AViewSharesItsBasesRecordAndARecordSaysWhatTheStorageIsNow) {
  StorageRecords records;
  const auto x = at::zeros({4, 4});
  auto* r = records.remember(x, /*host=*/true, made_by("aten::zeros"));
  ASSERT_NE(r, nullptr);
  r->written = true;
  r->seeded = true;
  const auto* seen = records.find(x[1]);  // a view: the same storage
  ASSERT_NE(seen, nullptr);
  EXPECT_TRUE(seen->host);
  EXPECT_EQ(seen->origin->op, "aten::zeros");
  records.remember(x, /*host=*/false, nullptr);  // what it is now; still the subject's own
  EXPECT_FALSE(records.find(x)->host);
  EXPECT_FALSE(records.find(x)->written);
  EXPECT_EQ(records.find(x)->origin, nullptr);
  EXPECT_TRUE(records.find(x)->seeded);
  EXPECT_EQ(records.find(at::zeros({4})), nullptr);
  records.forget(x);
  EXPECT_EQ(records.find(x), nullptr);
  EXPECT_EQ(records.size(), 0u);
}

TEST(StorageRecordsTest, ATensorWithoutStorageHasNoRecord) {
  StorageRecords records;
  EXPECT_EQ(records.remember(at::Tensor(), true, nullptr), nullptr);
  EXPECT_EQ(records.find(at::Tensor()), nullptr);
}

// Note [Records of freed storages]: the records of freed storages go once
// the records double; the live ones stay.
TEST(StorageRecordsTest, RecordsOfFreedStoragesAreDroppedAsTheyAccumulate) {
  StorageRecords records;
  const auto live = at::ones({3});
  records.remember(live, true, made_by("aten::ones"));
  for (int i = 0; i < 20000; ++i) records.remember(at::empty({1}), false, nullptr);  // each freed at once
  EXPECT_LT(records.size(), 8192u);
  ASSERT_NE(records.find(live), nullptr);
  EXPECT_EQ(records.find(live)->origin->op, "aten::ones");
}

// A tensor sent home by the code's words (Tracer::mark_host) is that tensor,
// not its storage, and only while it lives.
TEST(StorageRecordsTest, ATensorSentHomeIsThatTensorWhileItLives) {
  StorageRecords records;
  const auto device_data = at::ones({2});
  auto home = std::make_shared<Origin>();
  home->made = Origin::Made::kCopiedHome;
  {
    const auto sent = device_data.alias();
    records.send_home(sent, home);
    EXPECT_EQ(records.sent_home(sent), home);
    EXPECT_EQ(records.sent_home(device_data), nullptr);  // the same storage, another tensor
    EXPECT_EQ(records.find(sent), nullptr);              // the storage stays device data
  }
  // Whatever tensor takes the freed one's address is not it.
  for (int i = 0; i < 8; ++i) EXPECT_EQ(records.sent_home(device_data.alias()), nullptr);
}

}  // namespace
}  // namespace devparity::tracing
