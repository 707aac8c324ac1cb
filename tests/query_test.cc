// Queries by tag in one process: every operator, number comparison across
// types and widths, conditions combined, uncommitted and committed state.
#include <gtest/gtest.h>

#include "cairn/store.h"
#include "test_util.h"

namespace cairn {
namespace {

class QueryTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(Store::Open(Options(), dir_.sub("s"), &store_).ok());
    // 100 objects: n = i (int32), half = i / 2 (uint8), x = i / 4.0 (double),
    // name = "obj-<i>", kind = "even"/"odd"; every 10th has a "flag".
    for (int i = 0; i < 100; i++) {
      TagList t = {{"n", TagValue::Int(i, TagType::kInt32)},
                   {"half", TagValue::UInt(uint64_t(i / 2), TagType::kUInt8)},
                   {"x", TagValue::Float64(i / 4.0)},
                   {"name", TagValue::String("obj-" + std::to_string(i))},
                   {"kind", TagValue::String(i % 2 ? "odd" : "even")}};
      if (i % 10 == 0) t.push_back({"flag", TagValue::Bytes("\x01")});
      ASSERT_TRUE(store_->Put(Key(i), "", t).ok());
    }
  }
  static std::string Key(int i) {
    char b[16];
    snprintf(b, sizeof b, "k%03d", i);
    return b;
  }
  std::vector<std::string> Q(const std::vector<TagQuery>& q) {
    std::vector<std::string> keys;
    Status s = store_->Query(q, &keys);
    EXPECT_TRUE(s.ok()) << s.ToString();
    return keys;
  }
  test::TempDir dir_;
  std::unique_ptr<Store> store_;
};

TEST_F(QueryTest, ExactMatchAcrossNumericTypes) {
  EXPECT_EQ(Q({TagQuery::Equal("n", TagValue::Int(42))}), std::vector<std::string>{"k042"});
  EXPECT_EQ(Q({TagQuery::Equal("n", TagValue::UInt(42))}), std::vector<std::string>{"k042"});
  EXPECT_EQ(Q({TagQuery::Equal("n", TagValue::Float64(42.0))}), std::vector<std::string>{"k042"});
  EXPECT_TRUE(Q({TagQuery::Equal("n", TagValue::Float64(42.5))}).empty());
  EXPECT_EQ(Q({TagQuery::Equal("half", TagValue::Int(3))}), (std::vector<std::string>{"k006", "k007"}));
  EXPECT_EQ(Q({TagQuery::Equal("name", TagValue::String("obj-7"))}), std::vector<std::string>{"k007"});
  EXPECT_TRUE(Q({TagQuery::Equal("name", TagValue::Int(7))}).empty());  // a string is not a number
}

TEST_F(QueryTest, RangePrefixWildcardExists) {
  EXPECT_EQ(Q({TagQuery::Range("x", TagValue::Float64(24.0), TagValue::Int(24))}).size(), 1u);  // i = 96
  EXPECT_EQ(Q({TagQuery::Range("n", TagValue::Int(-5), TagValue::UInt(4))}).size(), 5u);
  EXPECT_EQ(Q({TagQuery::Range("x", TagValue::Float64(1.0), TagValue::Float64(2.0))}).size(), 5u);  // 4..8
  EXPECT_EQ(Q({TagQuery::Range("name", TagValue::String("obj-90"), TagValue::String("obj-92"))}).size(), 3u);
  EXPECT_EQ(Q({TagQuery::Prefix("name", "obj-9")}).size(), 11u);  // 9, 90..99
  EXPECT_EQ(Q({TagQuery::Wildcard("name", "obj-?5")}).size(), 9u);  // 15, 25, .., 95
  EXPECT_EQ(Q({TagQuery::Wildcard("name", "*-1*")}).size(), 11u);  // 1, 10..19
  EXPECT_EQ(Q({TagQuery::Exists("flag")}).size(), 10u);
  EXPECT_TRUE(Q({TagQuery::Exists("no-such-tag")}).empty());
  EXPECT_EQ(Q({}).size(), 100u);
}

TEST_F(QueryTest, ConditionsCombineAndFollowChanges) {
  auto odd_flagged = [&] { return Q({TagQuery::Exists("flag"), TagQuery::Equal("kind", TagValue::String("odd"))}); };
  EXPECT_TRUE(odd_flagged().empty());  // every 10th is even
  ASSERT_TRUE(store_->SetTag("k011", {"flag", TagValue::Bytes("y")}).ok());
  EXPECT_EQ(odd_flagged(), std::vector<std::string>{"k011"});
  ASSERT_TRUE(store_->Commit().ok());
  EXPECT_EQ(odd_flagged(), std::vector<std::string>{"k011"});  // after commit, from the new base
  ASSERT_TRUE(store_->Delete("k011").ok());
  EXPECT_TRUE(odd_flagged().empty());
  ASSERT_TRUE(store_->DeleteTag("k020", "flag").ok());
  EXPECT_EQ(Q({TagQuery::Exists("flag")}).size(), 9u);
  std::vector<std::string> keys;
  EXPECT_TRUE(store_->Query({TagQuery::Wildcard("name", std::string("a\0b", 3))}, &keys).IsInvalidArgument());
}

// A condition no tag can meet is refused naming the tag, as store.h says
// (it once matched nothing, silently): a range from a number to a string,
// a range of arrays, a prefix whose value was set to a number. Query,
// QueryAll and QueryArrays alike.
TEST_F(QueryTest, MixedKindRangeAndNumericPatternRefused) {
  std::vector<std::string> keys;
  std::vector<QueryHit> hits;
  TagQuery mixed = TagQuery::Range("n", TagValue::Int(1), TagValue::String("z"));
  Status s = store_->Query({mixed}, &keys);
  EXPECT_TRUE(s.IsInvalidArgument()) << s.ToString();
  EXPECT_NE(s.ToString().find("range on tag 'n'"), std::string::npos) << s.ToString();
  EXPECT_NE(s.ToString().find("both numbers or both strings"), std::string::npos) << s.ToString();
  EXPECT_TRUE(store_->QueryAll({mixed}, &hits).IsInvalidArgument());
  EXPECT_TRUE(store_->QueryArrays({mixed}, &keys).IsInvalidArgument());
  EXPECT_TRUE(store_->Query({TagQuery::Range("name", TagValue::String("a"), TagValue::Float64(2))}, &keys)
                  .IsInvalidArgument());
  int64_t two[2] = {1, 2};
  TagValue arr = TagValue::Array(TagType::kInt64, two, 2);
  EXPECT_TRUE(store_->Query({TagQuery::Range("n", arr, arr)}, &keys).IsInvalidArgument());
  TagQuery p = TagQuery::Prefix("name", "obj");
  p.value = TagValue::Int(5);
  s = store_->Query({p}, &keys);
  EXPECT_TRUE(s.IsInvalidArgument()) << s.ToString();
  EXPECT_NE(s.ToString().find("prefix on tag 'name'"), std::string::npos) << s.ToString();
  // Bounds of one kind, and bytes with a string, still work.
  EXPECT_EQ(Q({TagQuery::Range("n", TagValue::Int(1), TagValue::Float64(3))}).size(), 3u);
  EXPECT_EQ(Q({TagQuery::Range("name", TagValue::Bytes("obj-90"), TagValue::String("obj-92"))}).size(), 3u);
}

// The shared namespace is queried with ReadOptions::kShared, as store.h
// says: pending shared puts on rank 0 (the only rank here), committed ones
// after a commit and in a read-only reopen; never the rank's own objects.
TEST_F(QueryTest, SharedNamespace) {
  ReadOptions shared;
  shared.rank = ReadOptions::kShared;
  std::vector<std::string> keys;
  ASSERT_TRUE(store_->Query({TagQuery::Exists("n")}, &keys, shared).ok());
  EXPECT_TRUE(keys.empty());  // the 100 objects are the rank's, not shared
  ASSERT_TRUE(store_->PutShared("cfg-a", "1", {{"n", TagValue::Int(7)}}).ok());
  ASSERT_TRUE(store_->PutShared("cfg-b", "2", {{"n", TagValue::Int(8)}}).ok());
  Status s = store_->Query({TagQuery::Equal("n", TagValue::Int(8))}, &keys, shared);
  ASSERT_TRUE(s.ok()) << s.ToString();
  EXPECT_EQ(keys, std::vector<std::string>{"cfg-b"});
  ASSERT_TRUE(store_->Commit().ok());
  ASSERT_TRUE(store_->Query({TagQuery::Exists("n")}, &keys, shared).ok());
  EXPECT_EQ(keys, (std::vector<std::string>{"cfg-a", "cfg-b"}));
  ASSERT_TRUE(store_->Close().ok());
  Options ro;
  ro.read_only = true;
  ASSERT_TRUE(Store::Open(ro, dir_.sub("s"), &store_).ok());
  s = store_->Query({TagQuery::Range("n", TagValue::Int(0), TagValue::Int(7))}, &keys, shared);
  ASSERT_TRUE(s.ok()) << s.ToString();
  EXPECT_EQ(keys, std::vector<std::string>{"cfg-a"});
}

}  // namespace
}  // namespace cairn
