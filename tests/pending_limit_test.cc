// The limit on pending changes (keys put, deleted or retagged since the
// last commit in one namespace): the change that would pass it fails with
// InvalidArgument and changes nothing, changes to keys already pending
// still succeed, reads still work, and the changes made before it commit.
// The real limit is 2^31 - 1 (the pending index's 32-bit positions); the
// tests lower it to 1023 through Inspector::LimitPendingForTest.
#include <gtest/gtest.h>

#include <string>

#include "cairn/stream.h"
#include "store/inspect.h"
#include "store/namespace_state.h"
#include "store_test_util.h"
#include "test_util.h"

namespace cairn {
namespace {

using namespace cairn::test;

constexpr unsigned kBits = 11;
constexpr int kLimit = (1 << (kBits - 1)) - 1;  // 1023

std::string Key(int i) {
  char b[16];
  std::snprintf(b, sizeof b, "k%05d", i);
  return b;
}

void ExpectLimit(const Status& s) {
  EXPECT_TRUE(s.IsInvalidArgument()) << s.ToString();
  EXPECT_NE(s.message().find("pending changes"), std::string::npos) << s.ToString();
}

// `order`: +1 keys put in key order (no pending index is built), -1 in
// reverse (the index is built and grows to its limit).
void PutsPastTheLimit(int order) {
  TempDir dir;
  auto s = MustOpen(dir.sub("s"));
  Inspector::LimitPendingForTest(s.get(), kBits);
  auto k = [&](int i) { return Key(order > 0 ? i : kLimit + 10 - i); };
  for (int i = 0; i < kLimit; i++) ASSERT_TRUE(s->Put(k(i), "v" + std::to_string(i)).ok()) << i;
  Status refused = s->Put(k(kLimit), "one too many");
  ExpectLimit(refused);
  if (order > 0) std::printf("%s\n", refused.ToString().c_str());
  ExpectLimit(s->Put(k(kLimit + 1), std::string(5000, 'x')));  // chunked: refused before its data is written
  ExpectLimit(s->Put(k(kLimit + 2), "also too many", {{"t", TagValue::Int(1)}}));
  std::string v;
  EXPECT_TRUE(s->Get(k(kLimit), &v).IsNotFound());
  // Reads, and changes to pending keys, still work.
  ASSERT_TRUE(s->Get(k(0), &v).ok());
  EXPECT_EQ(v, "v0");
  EXPECT_TRUE(s->Put(k(1), "again").ok());
  EXPECT_TRUE(s->SetTag(k(2), {"t", TagValue::Int(7)}).ok());
  EXPECT_TRUE(s->Delete(k(3)).ok());
  uint64_t rev = 0;
  ASSERT_TRUE(s->Commit(&rev).ok());
  EXPECT_EQ(rev, 1u);
  // After the commit the namespace takes new changes again.
  EXPECT_TRUE(s->Put(k(kLimit), "now it fits").ok());
  ASSERT_TRUE(s->Close().ok());
  s = MustOpen(dir.sub("s"));
  std::vector<ObjectInfo> all;
  ASSERT_TRUE(s->List(&all).ok());
  EXPECT_EQ(all.size(), size_t(kLimit - 1));  // k(3) deleted, k(kLimit) not committed
  ASSERT_TRUE(s->Get(k(1), &v).ok());
  EXPECT_EQ(v, "again");
  ASSERT_TRUE(s->Get(k(kLimit - 1), &v).ok());
  EXPECT_EQ(v, "v" + std::to_string(kLimit - 1));
}

TEST(PendingLimit, PutsInKeyOrderStopAtTheLimit) { PutsPastTheLimit(+1); }
TEST(PendingLimit, PutsOutOfOrderStopAtTheLimit) { PutsPastTheLimit(-1); }

// Changes to committed keys are pending changes too: Delete, SetTag,
// DeleteTag, SetTags and a write stream's Close are refused at the limit,
// and so is a PutArray (its block is an object of the namespace).
TEST(PendingLimit, DeletesTagsAndStreamsOfCommittedKeysStopAtTheLimit) {
  TempDir dir;
  auto s = MustOpen(dir.sub("s"));
  for (int i = 0; i < 5; i++) ASSERT_TRUE(s->Put("old" + std::to_string(i), "x", {{"t", TagValue::Int(i)}}).ok());
  ASSERT_TRUE(s->Commit().ok());
  Inspector::LimitPendingForTest(s.get(), kBits);
  std::unique_ptr<StreamWriter> w;
  ASSERT_TRUE(s->OpenWriteStream("stream", {}, &w).ok());
  ASSERT_TRUE(w->Write(std::string(3000, 's')).ok());
  for (int i = 0; i < kLimit; i++) ASSERT_TRUE(s->Put(Key(i), "v").ok()) << i;
  ExpectLimit(s->Delete("old0"));
  ExpectLimit(s->SetTag("old1", {"u", TagValue::Int(1)}));
  ExpectLimit(s->DeleteTag("old2", "t"));
  ExpectLimit(s->SetTags("old3", {}));
  ExpectLimit(w->Close());
  const double d[4] = {1, 2, 3, 4};
  ExpectLimit(s->PutArray("arr", DType::kFloat64, {4}, {0}, {4}, d));  // its block is an object
  EXPECT_TRUE(s->Delete("nothing").IsNotFound());
  ASSERT_TRUE(s->Commit().ok());
  ArrayInfo info;
  EXPECT_TRUE(s->GetArrayInfo("arr", &info).IsNotFound());
  std::vector<ObjectInfo> all;
  ASSERT_TRUE(s->List(&all).ok());
  EXPECT_EQ(all.size(), size_t(kLimit + 5));  // the old five unchanged, no stream
  TagList tags;
  ASSERT_TRUE(s->GetTags("old2", &tags).ok());
  ASSERT_EQ(tags.size(), 1u);
  EXPECT_TRUE(tags[0].value == TagValue::Int(2));
}

// PutShared on rank 0: the shared namespace has the same limit.
TEST(PendingLimit, SharedPutsStopAtTheLimit) {
  TempDir dir;
  auto s = MustOpen(dir.sub("s"));
  Inspector::LimitPendingForTest(s.get(), kBits);
  for (int i = 0; i < kLimit; i++) ASSERT_TRUE(s->PutShared(Key(kLimit - i), "v").ok()) << i;
  ExpectLimit(s->PutShared(Key(0), "v"));
  ASSERT_TRUE(s->Commit().ok());
  std::string v;
  EXPECT_TRUE(s->GetShared(Key(1), &v).ok());
  EXPECT_TRUE(s->GetShared(Key(0), &v).IsNotFound());
}

// The class itself: the real limit is 2^31 - 1, and at the lowered one the
// index is built (a look-up below the last key) at exactly its largest
// size without passing it.
TEST(PendingLimit, NamespaceStateKeepsItsIndexWithinItsLimit) {
  NamespaceState ns;
  ns.Reset(nullptr);
  EXPECT_EQ(ns.max_pending(), (uint64_t(1) << 31) - 1);
  ns.LimitIndexBitsForTest(kBits);
  ASSERT_EQ(ns.max_pending(), uint64_t(kLimit));
  for (int i = 0; i < kLimit; i++) ASSERT_TRUE(ns.Put(Key(i), "b" + std::to_string(i)).ok()) << i;
  ExpectLimit(ns.Put(Key(kLimit), "b"));
  ExpectLimit(ns.CheckRoom(Key(kLimit)));
  EXPECT_TRUE(ns.CheckRoom(Key(5)).ok());
  std::string_view body;
  ASSERT_TRUE(ns.Lookup(Key(0), &body));  // builds the index: 2^11 slots for 1023 keys
  EXPECT_EQ(body, "b0");
  EXPECT_TRUE(ns.Put(Key(7), "again").ok());
  EXPECT_TRUE(ns.Delete(Key(8)).ok());
  EXPECT_TRUE(ns.Delete(Key(kLimit)).IsNotFound());
  ExpectLimit(ns.Put("a", "below every key"));
  EXPECT_FALSE(ns.Lookup("a", &body));
  ASSERT_TRUE(ns.Lookup(Key(7), &body));
  EXPECT_EQ(body, "again");
}

}  // namespace
}  // namespace cairn
