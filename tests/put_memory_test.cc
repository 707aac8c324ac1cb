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
#include <sys/mman.h>

#include <cstdlib>
#include <cstring>

#include <cstdio>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "address_limit.h"
#include "cairn/stream.h"
#include "store_test_util.h"
#include "test_util.h"

namespace cairn {
namespace {

using namespace cairn::test;

constexpr size_t kTag = 256u << 20;  // one tag's bytes: more than the room left

TEST(PutMemory, TagsLargerThanTheMemoryLeftAreAnErrorAndChangeNothing) {
  SKIP_UNDER_ASAN();
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

// The tags of `key` in a reopened read-only copy of the store.
TagList TagsAfterReopen(const std::string& path, const std::string& key) {
  Options ro = SmallOptions();
  ro.read_only = true;
  auto r = MustOpen(path, ro);
  TagList t;
  if (!r) return t;
  EXPECT_TRUE(r->GetTags(key, &t).ok()) << key;
  return t;
}

// A put that makes the pending arena compact itself (its superseded slots
// outweigh its live ones) while there is no memory for the compacted copy:
// the compaction had moved the arena out and freed it on the exception,
// leaving every pending key and body dangling (and the put, reported
// "unchanged", was made). The compaction is an economy: without memory for
// it, the put is made and the arena stays as it was.
TEST(PutMemory, CompactionWithoutMemoryKeepsThePendingEntries) {
  SKIP_UNDER_ASAN();
  TempDir dir;
  auto s = MustOpen(dir.sub("s"));
  // A first put as large as the last below grows the scratch buffer the
  // entries are encoded in, so that the last needs no memory of its own.
  ASSERT_TRUE(s->Put("w", "w", {{"t", TagValue::Bytes(std::string(400000, 'w'))}}).ok());
  ASSERT_TRUE(s->Commit().ok());
  ASSERT_TRUE(s->Put("a", "a-value", {{"t", TagValue::Int(1)}}).ok());
  const size_t t1 = 100000, t2 = t1 + 1000, t3 = t2 + t2 / 2 + 2000;
  ASSERT_TRUE(s->Put("x", "x", {{"t", TagValue::Bytes(std::string(t1, '1'))}}).ok());
  ASSERT_TRUE(s->Put("x", "x", {{"t", TagValue::Bytes(std::string(t2, '2'))}}).ok());
  TagList third{{"t", TagValue::Bytes(std::string(t3, '3'))}};
  Status st;
  {
    AddressLimit limit(2u << 20);  // less than a fresh arena block (8 MiB)
    ASSERT_TRUE(limit.ok());
    st = s->Put("x", "x", third);  // superseded 100K + 150K against 230K live: compacts
  }
  std::string v;
  ASSERT_TRUE(s->Get("a", &v).ok());
  EXPECT_EQ(v, "a-value");
  ASSERT_TRUE(s->Commit().ok());
  ASSERT_TRUE(s->Close().ok());
  TagList t = TagsAfterReopen(dir.sub("s"), "x");
  ASSERT_EQ(t.size(), 1u);
  // What the status said happened, happened.
  EXPECT_EQ(t[0].value.bytes().size(), st.ok() ? t3 : t2) << st.ToString();
  t = TagsAfterReopen(dir.sub("s"), "a");
  ASSERT_EQ(t.size(), 1u);
}

// The same for a deletion, which compacts too (and whose std::bad_alloc
// went out of Store::Delete).
TEST(PutMemory, DeleteThatCompactsWithoutMemory) {
  SKIP_UNDER_ASAN();
  TempDir dir;
  auto s = MustOpen(dir.sub("s"));
  ASSERT_TRUE(s->Put("a", "a-value").ok());
  ASSERT_TRUE(s->Put("x", "x", {{"t", TagValue::Bytes(std::string(200000, 'x'))}}).ok());
  Status st;
  {
    AddressLimit limit(2u << 20);
    ASSERT_TRUE(limit.ok());
    st = s->Delete("x");  // 200K superseded, a few bytes live: compacts
  }
  EXPECT_TRUE(st.ok() || st.IsIOError()) << st.ToString();
  std::string v;
  ASSERT_TRUE(s->Get("a", &v).ok());
  EXPECT_EQ(v, "a-value");
  ASSERT_TRUE(s->Commit().ok());
  ASSERT_TRUE(s->Close().ok());
  Options ro = SmallOptions();
  ro.read_only = true;
  auto r = MustOpen(dir.sub("s"), ro);
  ASSERT_TRUE(r->Get("a", &v).ok());
  EXPECT_EQ(v, "a-value");
  EXPECT_EQ(r->Get("x", &v).IsNotFound(), st.ok()) << st.ToString();
}

// DeleteTag copies the entry's other tags: without memory for them it is
// an IOError too, not std::bad_alloc out of the API.
TEST(PutMemory, DeleteTagWithoutMemoryIsAnError) {
  SKIP_UNDER_ASAN();
  TempDir dir;
  auto s = MustOpen(dir.sub("s"));
  ASSERT_TRUE(s->Put("k", "v", {{"big", TagValue::Bytes(std::string(kTag, 'b'))}, {"small", TagValue::Int(1)}}).ok());
  ASSERT_TRUE(s->Commit().ok());
  Status st;
  {
    AddressLimit limit(64u << 20);
    ASSERT_TRUE(limit.ok());
    st = s->DeleteTag("k", "small");
  }
  ExpectOutOfMemory(st, "k");
  ASSERT_TRUE(s->Commit().ok());
  ASSERT_TRUE(s->Close().ok());
  EXPECT_EQ(TagsAfterReopen(dir.sub("s"), "k").size(), 2u);
}

// Deleting a key below the last one pending builds the pending index; with
// no memory for it, Delete is an IOError (was std::bad_alloc out of the
// API) and a look-up still finds the pending keys.
TEST(PutMemory, DeleteWithoutMemoryForTheIndexIsAnError) {
  SKIP_UNDER_ASAN();
  TempDir dir;
  auto s = MustOpen(dir.sub("s"));
  ASSERT_TRUE(s->Put("a", "a-value").ok());
  ASSERT_TRUE(s->Commit().ok());
  char key[16];
  for (int i = 0; i < 300000; i++) {  // in key order: no index yet
    std::snprintf(key, sizeof key, "p%07d", i);
    ASSERT_TRUE(s->Put(key, "x").ok());
  }
  Status del, get;
  std::string v;
  {
    AddressLimit limit(1u << 20);  // less than an index of 2^20 slots (8 MiB)
    ASSERT_TRUE(limit.ok());
    del = s->Delete("a");
    get = s->Get("p0000001", &v);
  }
  ExpectOutOfMemory(del, "a");
  ASSERT_TRUE(get.ok()) << get.ToString();
  EXPECT_EQ(v, "x");
  ASSERT_TRUE(s->Commit().ok());
  ASSERT_TRUE(s->Get("a", &v).ok());
  EXPECT_EQ(v, "a-value");
}

// SetTag of an entry with many tags keeps the set of its tag ids; a SetTag
// that runs out of memory in the put had moved the set out (empty), so
// the next SetTag of a tag the entry has took it for a new one and
// appended a second tag of that name.
TEST(PutMemory, SetTagWithoutMemoryKeepsTheTagIdSet) {
  SKIP_UNDER_ASAN();
  TempDir dir;
  auto s = MustOpen(dir.sub("s"));
  TagList many;
  for (int i = 0; i < 20; i++) many.push_back({"t" + std::to_string(i), TagValue::Int(i)});
  ASSERT_TRUE(s->Put("k", "v", many).ok());
  ASSERT_TRUE(s->Commit().ok());
  ASSERT_TRUE(s->SetTag("k", {"t0", TagValue::Int(100)}).ok());  // keeps the set
  const size_t big = 64u << 20;
  Tag huge{"big", TagValue::Bytes(std::string(big, 'b'))};
  Status st;
  {
    // Room for the tag's copies as the edit encodes it (about three), not
    // for the pending slot (one and a half more).
    AddressLimit limit(3 * big + big * 3 / 4);
    ASSERT_TRUE(limit.ok());
    st = s->SetTag("k", huge);
  }
  ExpectOutOfMemory(st, "k");
  huge.value = TagValue::Int(0);
  ASSERT_TRUE(s->SetTag("k", {"t5", TagValue::Int(500)}).ok());
  ASSERT_TRUE(s->Commit().ok());
  ASSERT_TRUE(s->Close().ok());
  TagList t = TagsAfterReopen(dir.sub("s"), "k");
  EXPECT_EQ(t.size(), 20u);
  int t5 = 0;
  for (const Tag& x : t)
    if (x.name == "t5") {
      t5++;
      EXPECT_EQ(x.value.as_int(), 500);
    }
  EXPECT_EQ(t5, 1);
}

// A stream whose entry (its tags) does not fit at Close: an IOError, not
// std::bad_alloc out of StreamWriter::Close, and the key does not appear.
TEST(PutMemory, StreamCloseWithoutMemoryIsAnError) {
  SKIP_UNDER_ASAN();
  TempDir dir;
  auto s = MustOpen(dir.sub("s"));
  std::unique_ptr<StreamWriter> w;
  ASSERT_TRUE(s->OpenWriteStream("st", {{"big", TagValue::Bytes(std::string(kTag, 'b'))}}, &w).ok());
  ASSERT_TRUE(w->Write("data").ok());
  Status st;
  {
    AddressLimit limit(kTag + kTag / 2);  // the encoded tags, not the entry too
    ASSERT_TRUE(limit.ok());
    st = w->Close();
  }
  ExpectOutOfMemory(st, "st");
  w.reset();
  ASSERT_TRUE(s->Put("after", "a").ok());
  ASSERT_TRUE(s->Commit().ok());
  std::string v;
  EXPECT_TRUE(s->Get("st", &v).IsNotFound());
}

// PutArray's tags that do not fit: an IOError naming the array, not
// std::bad_alloc out of the API, and the array unchanged (its earlier put
// commits as it was).
TEST(PutMemory, PutArrayTagsWithoutMemoryIsAnError) {
  SKIP_UNDER_ASAN();
  TempDir dir;
  auto s = MustOpen(dir.sub("s"));
  const std::vector<int32_t> first{1, 2, 3, 4}, second{5, 6, 7, 8};
  ArrayPutOptions one;
  one.tags = {{"t", TagValue::Int(1)}};
  ASSERT_TRUE(s->PutArray("arr", DType::kInt32, {8}, {0}, {4}, first.data(), one).ok());
  ArrayPutOptions huge;
  huge.tags = {{"big", TagValue::Bytes(std::string(kTag, 'b'))}};
  Status st;
  {
    AddressLimit limit(64u << 20);
    ASSERT_TRUE(limit.ok());
    st = s->PutArray("arr", DType::kInt32, {8}, {4}, {4}, second.data(), huge);
  }
  ExpectOutOfMemory(st, "arr");
  huge.tags.clear();
  ASSERT_TRUE(s->Commit().ok());
  ArrayInfo info;
  ASSERT_TRUE(s->GetArrayInfo("arr", &info).ok());
  ASSERT_EQ(info.tags.size(), 1u);
  EXPECT_EQ(info.tags[0].name, "t");
  EXPECT_EQ(info.block_count, 1u);
}

// A tag name new to the namespace whose interning runs out of memory in
// the name dictionary's hash table (its rehash), after the name was
// appended to the list of names: the next put of that name appended it
// again, and the commit wrote a table whose dictionary holds a name twice,
// which a reader refuses ("duplicate"): the revision could not be opened.
TEST(PutMemory, TagNameWithoutMemoryLeavesTheDictionaryWhole) {
  SKIP_UNDER_ASAN();
  // Where the dictionary's hash table grows while its list of names does
  // not: the same containers, filled the same way.
  size_t trigger = 0, table_bytes = 0;
  {
    std::vector<std::string> names;
    std::unordered_map<std::string, uint32_t> ids;
    for (size_t i = 0; i < 4000000 && trigger == 0; i++) {
      size_t buckets = ids.bucket_count(), cap = names.capacity();
      names.emplace_back("n" + std::to_string(i));
      ids.emplace(names.back(), uint32_t(i));
      if (ids.bucket_count() != buckets && names.capacity() == cap && ids.bucket_count() >= (1u << 17)) {
        trigger = i;
        table_bytes = ids.bucket_count() * sizeof(void*);
      }
    }
  }
  ASSERT_NE(trigger, 0u);
  TempDir dir;
  auto s = MustOpen(dir.sub("s"));
  for (size_t i = 0; i < trigger; i++)
    ASSERT_TRUE(s->Put("k" + std::to_string(i), "v", {{"n" + std::to_string(i), TagValue::Int(1)}}).ok());
  const std::string name = "n" + std::to_string(trigger);
  TagList tags{{name, TagValue::Int(7)}};
  Status st;
  {
    AddressLimit limit(1u << 20);
    ASSERT_TRUE(limit.ok());
    // Every free block as large as the new hash table is taken first, so
    // that only small allocations (the name's node) can succeed.
    std::vector<std::unique_ptr<char[]>> hog;
    hog.reserve(4096);
    try {
      while (hog.size() < hog.capacity()) hog.emplace_back(new char[table_bytes]);
    } catch (const std::bad_alloc&) {
    }
    st = s->Put("x", "v", tags);
  }
  ExpectOutOfMemory(st, "x");
  ASSERT_TRUE(s->Put("x", "v", tags).ok());
  ASSERT_TRUE(s->Commit().ok());
  ASSERT_TRUE(s->Close().ok());
  TagList t = TagsAfterReopen(dir.sub("s"), "x");
  ASSERT_EQ(t.size(), 1u);
  EXPECT_EQ(t[0].name, name);
}

// A zero-copy put with staging whose entry does not fit after its value was
// queued: the put failed ("unchanged"), so the caller may free the value at
// once, but the queue's thread still wrote from it (a write from unmapped
// memory failed the next commit). The failed put waits for those writes.
TEST(PutMemory, ZeroCopyPutWithoutMemoryIsDoneWithTheValue) {
  SKIP_UNDER_ASAN();
  setenv("CAIRN_TEST_IO_DELAY_US", "20000", 1);  // each queued write waits 20 ms
  TempDir dir;
  Options o = SmallOptions();
  o.staging_bytes = 16u << 20;
  auto s = MustOpen(dir.sub("s"), o);
  unsetenv("CAIRN_TEST_IO_DELAY_US");
  ASSERT_TRUE(s);
  const size_t n = 4u << 20;
  void* m = mmap(nullptr, n, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  ASSERT_NE(m, MAP_FAILED);
  std::memset(m, 'v', n);
  TagList huge{{"big", TagValue::Bytes(std::string(kTag / 2, 'b'))}};
  Status st;
  {
    AddressLimit limit(kTag / 2 + kTag / 4);  // the encoded tags, not the entry too
    ASSERT_TRUE(limit.ok());
    st = s->PutZeroCopy("z", std::string_view(static_cast<const char*>(m), n), huge);
  }
  ExpectOutOfMemory(st, "z");
  ASSERT_EQ(munmap(m, n), 0);  // the put failed: the value is the caller's again
  Status c = s->Commit();
  EXPECT_TRUE(c.ok()) << c.ToString();
  std::string v;
  EXPECT_TRUE(s->Get("z", &v).IsNotFound());
}

// A put that fails after its entry was encoded in the put path's reused
// buffers gives that memory back: it kept the entry's size (the tags' bytes)
// for the life of the store, less memory for whatever the caller does next.
TEST(PutMemory, FailedPutGivesItsEncodingBuffersBack) {
  SKIP_UNDER_ASAN();
  TempDir dir;
  auto s = MustOpen(dir.sub("s"));
  ASSERT_TRUE(s->Put("a", "a").ok());
  TagList huge{{"big", TagValue::Bytes(std::string(kTag, 'b'))}};
  const uint64_t before = VmSize();
  Status st;
  {
    AddressLimit limit(kTag + kTag / 2);  // room for the encoded entry, not for its pending copy
    ASSERT_TRUE(limit.ok());
    st = s->Put("new", "n", huge);
  }
  ExpectOutOfMemory(st, "new");
  EXPECT_LT(VmSize(), before + kTag / 4) << "bytes kept after the failed put";
}

// OpenWriteStream checks the stream's tags by encoding them: tags that do
// not fit are an IOError naming the key, not std::bad_alloc out of the API,
// and no writer is registered (the key can be opened again).
TEST(PutMemory, OpenWriteStreamWithoutMemoryIsAnError) {
  SKIP_UNDER_ASAN();
  TempDir dir;
  auto s = MustOpen(dir.sub("s"));
  TagList huge{{"big", TagValue::Bytes(std::string(kTag, 'b'))}};
  std::unique_ptr<StreamWriter> w;
  Status st;
  {
    AddressLimit limit(64u << 20);
    ASSERT_TRUE(limit.ok());
    st = s->OpenWriteStream("st", huge, &w);
  }
  ExpectOutOfMemory(st, "st");
  EXPECT_FALSE(w);
  huge.clear();
  ASSERT_TRUE(s->OpenWriteStream("st", {}, &w).ok());
  ASSERT_TRUE(w->Write("data").ok());
  ASSERT_TRUE(w->Close().ok());
  ASSERT_TRUE(s->Commit().ok());
  std::string v;
  ASSERT_TRUE(s->Get("st", &v).ok());
  EXPECT_EQ(v, "data");
}

// With staging, a write that fills the write buffer hands it to the queue.
// With no memory left at all, the queue's job had been queued without its
// write (the thread then died of std::bad_function_call), or not queued
// with the buffer's bytes (of values put before, in their entries) lost.
// Now the buffer stays with the writer for the next hand-off, the stream is
// broken (it does not join the namespace), and the commit keeps 'a'. (With
// no memory even for the error's message, that std::bad_alloc still leaves
// Write: nothing can be reported without memory.)
TEST(PutMemory, StagedBufferHandOffWithoutMemory) {
  SKIP_UNDER_ASAN();
  TempDir dir;
  Options o = SmallOptions();
  o.staging_bytes = 1u << 20;
  auto s = MustOpen(dir.sub("s"), o);
  ASSERT_TRUE(s);
  const std::string a = Pattern(7, 10000);  // chunked, left in the write buffer
  ASSERT_TRUE(s->Put("a", a).ok());
  std::unique_ptr<StreamWriter> w;
  ASSERT_TRUE(s->OpenWriteStream("st", {}, &w).ok());
  const std::string piece = Pattern(8, 64 << 10);
  ASSERT_TRUE(w->Write(piece.data(), 200).ok());  // spills? not yet: the head
  std::vector<void*> hog;
  hog.reserve(1u << 20);
  Status st;
  bool threw = false;
  {
    AddressLimit limit(1u << 20);
    ASSERT_TRUE(limit.ok());
    for (size_t size : {size_t(65536), size_t(4096), size_t(512), size_t(64), size_t(16)})
      while (hog.size() < hog.capacity()) {
        void* p = std::malloc(size);
        if (!p) break;
        hog.push_back(p);
      }
    st = StatusUnlessThrown([&] { return w->Write(piece); }, &threw);
  }
  for (void* p : hog) std::free(p);
  if (!threw) {
    EXPECT_TRUE(st.IsIOError()) << st.ToString();
  }
  EXPECT_FALSE(w->Close().ok());
  w.reset();
  Status c = s->Commit();
  ASSERT_TRUE(c.ok()) << c.ToString();
  std::string v;
  Status g = s->Get("a", &v);
  EXPECT_TRUE(g.ok()) << g.ToString();
  EXPECT_EQ(v, a);
}

}  // namespace
}  // namespace cairn
