// A put or tag edit whose tags do not fit in the memory the process may
// still take: Put (inline and chunked values), PutShared, SetTags and
// SetTag return an IOError naming the key instead of throwing
// std::bad_alloc out of the API, whether the memory runs out while the
// entry is encoded or while it is kept among the pending changes, and
// change nothing: a key put before
// keeps its committed value and tags through the next commit, a new key
// does not appear, and the store goes on (puts and commits after it).
// The memory is bounded with RLIMIT_AS (soft limit, raised back after),
// not mocked, as in read_memory_test.
#include <gtest/gtest.h>
#include <sys/resource.h>

#include <fstream>
#include <string>

#include "store_test_util.h"
#include "test_util.h"

namespace cairn {
namespace {

using namespace cairn::test;

constexpr size_t kTag = 256u << 20;  // one tag's bytes: more than the room left

uint64_t VmSize() {
  std::ifstream in("/proc/self/status");
  std::string word;
  while (in >> word)
    if (word == "VmSize:") {
      uint64_t kb = 0;
      in >> kb;
      return kb << 10;
    }
  return 0;
}

// Lowers the soft RLIMIT_AS to the current size plus `room` for its lifetime.
class AddressLimit {
 public:
  explicit AddressLimit(uint64_t room) {
    getrlimit(RLIMIT_AS, &old_);
    rlimit r = old_;
    r.rlim_cur = VmSize() + room;
    ok_ = VmSize() > 0 && setrlimit(RLIMIT_AS, &r) == 0;
  }
  ~AddressLimit() { setrlimit(RLIMIT_AS, &old_); }
  bool ok() const { return ok_; }

 private:
  rlimit old_;
  bool ok_ = false;
};

void ExpectOutOfMemory(const Status& s, const std::string& key) {
  EXPECT_TRUE(s.IsIOError()) << s.ToString();
  EXPECT_NE(s.message().find("'" + key + "'"), std::string::npos) << s.ToString();
  EXPECT_NE(s.message().find("memory"), std::string::npos) << s.ToString();
}

TEST(PutMemory, TagsLargerThanTheMemoryLeftAreAnErrorAndChangeNothing) {
#if defined(__SANITIZE_ADDRESS__)
  GTEST_SKIP() << "AddressSanitizer reserves its shadow memory: RLIMIT_AS cannot bound it";
#endif
  TempDir dir;
  auto s = MustOpen(dir.sub("s"));
  const std::string chunked = Pattern(2, 200000);  // above SmallOptions' inline limit
  ASSERT_TRUE(s->Put("inline", "v1", {{"t", TagValue::Int(1)}}).ok());
  ASSERT_TRUE(s->Put("chunked", chunked, {{"t", TagValue::Int(1)}}).ok());
  ASSERT_TRUE(s->PutShared("shared", "s1").ok());
  ASSERT_TRUE(s->Commit().ok());
  // Many pending keys before the failures, so the pending index is in use.
  for (int i = 0; i < 3000; i++) ASSERT_TRUE(s->Put("p" + std::to_string(i), "x").ok());
  TagList huge{{"big", TagValue::Bytes(std::string(kTag, 'b'))}};
  Status put_inline, put_chunked, put_new, put_shared, set_tags, set_tag;
  {
    AddressLimit limit(64u << 20);  // room for small allocations, not for a second copy of the tag
    ASSERT_TRUE(limit.ok());
    put_inline = s->Put("inline", "v2", huge);
    put_chunked = s->Put("chunked", Pattern(3, 200000), huge);
    put_new = s->Put("new", "n", huge);
    put_shared = s->PutShared("shared", "s2", huge);
    set_tags = s->SetTags("inline", huge);
    set_tag = s->SetTag("chunked", huge[0]);
  }
  ExpectOutOfMemory(put_inline, "inline");
  ExpectOutOfMemory(put_chunked, "chunked");
  ExpectOutOfMemory(put_new, "new");
  ExpectOutOfMemory(put_shared, "shared");
  ExpectOutOfMemory(set_tags, "inline");
  ExpectOutOfMemory(set_tag, "chunked");
  // Room for the encoded entry but not for its copy among the pending
  // changes: the failure comes after the entry was encoded, where the
  // key's pending slot is taken (before, the key was added with no body,
  // which the next commit took for a deletion: 'inline' was lost).
  Status late_inline, late_new;
  {
    AddressLimit limit(kTag + kTag / 2);
    ASSERT_TRUE(limit.ok());
    late_inline = s->Put("inline", "v3", huge);
    late_new = s->Put("new", "n", huge);
  }
  ExpectOutOfMemory(late_inline, "inline");
  ExpectOutOfMemory(late_new, "new");
  huge.clear();
  // The store goes on: one more put, and the commit.
  ASSERT_TRUE(s->Put("after", "a").ok());
  ASSERT_TRUE(s->Commit().ok());
  ASSERT_TRUE(s->Close().ok());
  Options ro = SmallOptions();
  ro.read_only = true;
  auto r = MustOpen(dir.sub("s"), ro);
  std::string v;
  ASSERT_TRUE(r->Get("inline", &v).ok());
  EXPECT_EQ(v, "v1");
  ASSERT_TRUE(r->Get("chunked", &v).ok());
  EXPECT_EQ(v, chunked);
  ASSERT_TRUE(r->GetShared("shared", &v).ok());
  EXPECT_EQ(v, "s1");
  EXPECT_TRUE(r->Get("new", &v).IsNotFound());
  ASSERT_TRUE(r->Get("after", &v).ok());
  EXPECT_EQ(v, "a");
  ASSERT_TRUE(r->Get("p2999", &v).ok());
  std::vector<ObjectInfo> objs;
  ASSERT_TRUE(r->List(&objs).ok());
  for (const ObjectInfo& o : objs)
    if (o.key == "inline" || o.key == "chunked") {
      ASSERT_EQ(o.tags.size(), 1u) << o.key;
      EXPECT_EQ(o.tags[0].name, "t") << o.key;
    }
}

}  // namespace
}  // namespace cairn
