// Store behaviour in a single process (no mpiexec): puts, commits, reopen,
// older revisions, tags, batch reads and their request counts, corruption.
#include <gtest/gtest.h>

#include <filesystem>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <map>

#include "cairn/store.h"
#include "format/checksum.h"
#include "store_test_util.h"
#include "test_util.h"

namespace cairn {
namespace {

using test::Pattern;
using test::TempDir;

using test::MustOpen;
using test::SmallOptions;

TEST(Store, PutCommitReopenGetOverRevisions) {
  TempDir dir;
  std::string path = dir.sub("s");
  {
    auto s = MustOpen(path);
    EXPECT_EQ(s->revision(), 0u);
    ASSERT_TRUE(s->Put("small", "abc").ok());
    ASSERT_TRUE(s->Put("big", Pattern(1, 300000)).ok());  // spans chunks and extents
    ASSERT_TRUE(s->Put("empty", "").ok());
    uint64_t rev = 0;
    ASSERT_TRUE(s->Commit(&rev).ok());
    EXPECT_EQ(rev, 1u);
    ASSERT_TRUE(s->Put("small", "v2").ok());
    ASSERT_TRUE(s->Delete("empty").ok());
    ASSERT_TRUE(s->Commit(&rev).ok());
    EXPECT_EQ(rev, 2u);
    ASSERT_TRUE(s->Close().ok());
  }
  auto s = MustOpen(path);
  EXPECT_EQ(s->revision(), 2u);
  std::string v;
  ASSERT_TRUE(s->Get("small", &v).ok());
  EXPECT_EQ(v, "v2");
  ASSERT_TRUE(s->Get("big", &v).ok());  // carried over from revision 1 without rewrite
  EXPECT_EQ(v, Pattern(1, 300000));
  EXPECT_TRUE(s->Get("empty", &v).IsNotFound());
  std::vector<RevisionInfo> revs;
  ASSERT_TRUE(s->ListRevisions(&revs).ok());
  ASSERT_EQ(revs.size(), 2u);
  EXPECT_EQ(revs[0].objects, 3u);
  EXPECT_EQ(revs[1].objects, 2u);
  EXPECT_EQ(revs[1].parent, 1u);
  EXPECT_EQ(revs[1].value_bytes, 300002u);
}

TEST(Store, OlderRevisionReadOnly) {
  TempDir dir;
  std::string path = dir.sub("s");
  {
    auto s = MustOpen(path);
    for (int r = 1; r <= 3; r++) {
      ASSERT_TRUE(s->Put("x", "rev" + std::to_string(r)).ok());
      ASSERT_TRUE(s->Put("blob", Pattern(r, 5000)).ok());
      ASSERT_TRUE(s->Commit().ok());
    }
  }
  Options o = SmallOptions();
  o.read_only = true;
  o.revision = 2;
  auto s = MustOpen(path, o);
  EXPECT_EQ(s->revision(), 2u);
  std::string v;
  ASSERT_TRUE(s->Get("x", &v).ok());
  EXPECT_EQ(v, "rev2");
  ASSERT_TRUE(s->Get("blob", &v).ok());
  EXPECT_EQ(v, Pattern(2, 5000));
  EXPECT_TRUE(s->Put("x", "no").IsInvalidArgument());
  EXPECT_TRUE(s->Commit().IsInvalidArgument());
  o.revision = 9;
  std::unique_ptr<Store> none;
  EXPECT_TRUE(Store::Open(o, path, &none).IsNotFound());
}

TEST(Store, RollbackToOlderRevisionKeepsNewerOnes) {
  TempDir dir;
  std::string path = dir.sub("s");
  {
    auto s = MustOpen(path);
    ASSERT_TRUE(s->Put("a", Pattern(1, 1000)).ok());
    ASSERT_TRUE(s->Commit().ok());
    ASSERT_TRUE(s->Put("a", Pattern(2, 1000)).ok());
    ASSERT_TRUE(s->Commit().ok());
  }
  Options o = SmallOptions();
  o.revision = 1;
  {
    auto s = MustOpen(path, o);
    std::string v;
    ASSERT_TRUE(s->Get("a", &v).ok());
    EXPECT_EQ(v, Pattern(1, 1000));
    ASSERT_TRUE(s->Put("b", Pattern(3, 1000)).ok());
    uint64_t rev;
    ASSERT_TRUE(s->Commit(&rev).ok());
    EXPECT_EQ(rev, 3u);
  }
  auto s = MustOpen(path);
  std::string v;
  ASSERT_TRUE(s->Get("a", &v).ok());
  EXPECT_EQ(v, Pattern(1, 1000));
  ASSERT_TRUE(s->Get("b", &v).ok());
  EXPECT_EQ(v, Pattern(3, 1000));
  std::vector<RevisionInfo> revs;
  s->ListRevisions(&revs);
  ASSERT_EQ(revs.size(), 3u);
  EXPECT_EQ(revs[2].parent, 1u);
  // Revision 2's data was not overwritten by revision 3's.
  o.revision = 2;
  o.read_only = true;
  auto old = MustOpen(path, o);
  ASSERT_TRUE(old->Get("a", &v).ok());
  EXPECT_EQ(v, Pattern(2, 1000));
}

TEST(Store, TagsAreTypedAndChangeWithoutRewritingTheValue) {
  TempDir dir;
  std::string path = dir.sub("s");
  auto s = MustOpen(path);
  TagList tags = {{"step", TagValue::Int(42, TagType::kInt32)},
                  {"dt", TagValue::Float64(0.5)},
                  {"name", TagValue::String("grid")}};
  ASSERT_TRUE(s->Put("obj", Pattern(7, 20000), tags).ok());
  uint64_t written = s->stats().write_bytes + 0;
  ASSERT_TRUE(s->SetTag("obj", {"dt", TagValue::Float64(0.25)}).ok());
  ASSERT_TRUE(s->SetTag("obj", {"units", TagValue::String("K")}).ok());
  ASSERT_TRUE(s->DeleteTag("obj", "name").ok());
  EXPECT_TRUE(s->DeleteTag("obj", "name").IsNotFound());
  EXPECT_EQ(s->stats().write_bytes, written);  // nothing written for tag changes
  ASSERT_TRUE(s->Commit().ok());
  s.reset();
  s = MustOpen(path);
  TagList got;
  ASSERT_TRUE(s->GetTags("obj", &got).ok());
  TagList want = {{"step", TagValue::Int(42, TagType::kInt32)},
                  {"dt", TagValue::Float64(0.25)},
                  {"units", TagValue::String("K")}};
  EXPECT_EQ(got, want);
  std::string v;
  ASSERT_TRUE(s->Get("obj", &v).ok());
  EXPECT_EQ(v, Pattern(7, 20000));
  EXPECT_TRUE(s->Put("bad", "x", {{"t", TagValue::Int(1000, TagType::kInt8)}}).IsInvalidArgument());
}

TEST(Store, GetRangeReadsOnlyTheChunksItTouches) {
  TempDir dir;
  auto s = MustOpen(dir.sub("s"));
  std::string big = Pattern(3, 200000);  // 13 chunks of 16 KiB
  ASSERT_TRUE(s->Put("big", big).ok());
  ASSERT_TRUE(s->Commit().ok());
  IoStats before = s->stats();
  std::string part(100, '\0');
  ASSERT_TRUE(s->GetRange("big", 40000, part.data(), 100).ok());
  EXPECT_EQ(part, big.substr(40000, 100));
  IoStats after = s->stats();
  EXPECT_EQ(after.read_requests - before.read_requests, 1u);
  EXPECT_EQ(after.read_bytes - before.read_bytes, 16u * 1024);  // one chunk
  EXPECT_TRUE(s->GetRange("big", 199990, part.data(), 100).IsInvalidArgument());
  uint64_t size = 0;
  ASSERT_TRUE(s->GetSize("big", &size).ok());
  EXPECT_EQ(size, 200000u);
}

TEST(Store, MultiGetCoalescesNearKeysAndSplitsFarOnes) {
  TempDir dir;
  Options o = SmallOptions();
  o.extent_size = 16ull << 20;
  o.write_buffer_size = 1 << 20;
  auto s = MustOpen(dir.sub("s"), o);
  // 20 values of 8 KiB back to back, then 20 MiB of filler, then 1 more.
  for (int i = 0; i < 20; i++) ASSERT_TRUE(s->Put("near" + std::to_string(i), Pattern(i, 8192)).ok());
  ASSERT_TRUE(s->Put("filler", Pattern(99, 20 << 20)).ok());
  ASSERT_TRUE(s->Put("far", Pattern(100, 8192)).ok());
  ASSERT_TRUE(s->Commit().ok());

  std::vector<std::string> keys, values;
  std::vector<Status> st;
  for (int i = 0; i < 20; i += 2) keys.push_back("near" + std::to_string(i));
  IoStats b = s->stats();
  ASSERT_TRUE(s->MultiGet(keys, &values, &st).ok());
  EXPECT_EQ(s->stats().read_requests - b.read_requests, 1u);  // 10 near keys: one block
  for (size_t i = 0; i < keys.size(); i++) EXPECT_EQ(values[i], Pattern(2 * i, 8192));

  keys = {"near0", "far"};
  b = s->stats();
  ASSERT_TRUE(s->MultiGet(keys, &values, &st).ok());
  EXPECT_EQ(s->stats().read_requests - b.read_requests, 2u);  // 20 MiB apart: two requests
  EXPECT_EQ(s->stats().read_bytes - b.read_bytes, 2u * 8192);  // not the gap
  EXPECT_EQ(values[1], Pattern(100, 8192));

  // Even limits that allow merging them read no gap longer than a request
  // (kValueRequestBytes, 16 MiB): a merged block is read in requests cut at
  // range boundaries.
  ReadOptions wide;
  wide.gap_limit = 32ull << 20;
  wide.max_read_amplification = 1e6;
  b = s->stats();
  ASSERT_TRUE(s->MultiGet(keys, &values, &st, wide).ok());
  EXPECT_EQ(s->stats().read_requests - b.read_requests, 2u);
  EXPECT_EQ(s->stats().read_bytes - b.read_bytes, 2u * 8192);

  keys = {"near1", "missing"};
  EXPECT_TRUE(s->MultiGet(keys, &values, &st).IsNotFound());
  EXPECT_TRUE(st[0].ok());
  EXPECT_TRUE(st[1].IsNotFound());
  EXPECT_EQ(values[0], Pattern(1, 8192));
}

TEST(Store, SmallValuesAreInlineAndCostNoRead) {
  TempDir dir;
  std::string path = dir.sub("s");
  {
    auto s = MustOpen(path);
    ASSERT_TRUE(s->Put("tiny", "0123456789").ok());
    ASSERT_TRUE(s->Commit().ok());
  }
  auto s = MustOpen(path);
  IoStats b = s->stats();
  std::string v;
  ASSERT_TRUE(s->Get("tiny", &v).ok());
  EXPECT_EQ(v, "0123456789");
  EXPECT_EQ(s->stats().read_requests, b.read_requests);
  std::vector<ObjectInfo> objs;
  ASSERT_TRUE(s->List(&objs).ok());
  ASSERT_EQ(objs.size(), 1u);
  EXPECT_TRUE(objs[0].inlined);
}

TEST(Store, CommitMakesNoNewFilesAndTwoFsyncs) {
  TempDir dir;
  std::string path = dir.sub("s");
  auto s = MustOpen(path);
  ASSERT_TRUE(s->Put("warm", Pattern(1, 1000)).ok());
  ASSERT_TRUE(s->Commit().ok());
  IoStats b = s->stats();
  for (int i = 0; i < 10; i++) {
    ASSERT_TRUE(s->Put("k" + std::to_string(i), Pattern(i, 100000)).ok());
    ASSERT_TRUE(s->Commit().ok());
  }
  IoStats a = s->stats();
  EXPECT_EQ(a.opens - b.opens, 0u);
  EXPECT_EQ(a.creates - b.creates, 0u);
  EXPECT_EQ(a.mkdirs - b.mkdirs, 0u);
  EXPECT_EQ(a.stats - b.stats, 0u);
  EXPECT_EQ(a.fsyncs - b.fsyncs, 20u);  // data file + manifest, per commit
  size_t files = 0;
  for (auto& e : std::filesystem::directory_iterator(path)) files += e.is_regular_file();
  EXPECT_EQ(files, 3u);  // MANIFEST, LOCK (the writer lock), data.00000
}

TEST(Store, FlippedDataByteIsReportedAsCorruptionNeverAsData) {
  TempDir dir;
  std::string path = dir.sub("s");
  {
    auto s = MustOpen(path);
    ASSERT_TRUE(s->Put("v", Pattern(5, 50000)).ok());
    ASSERT_TRUE(s->Commit().ok());
  }
  // The value starts at the first extent (64 KiB with SmallOptions).
  test::FlipByte(path + "/data.00000", 65536 + 20000);
  auto s = MustOpen(path);
  std::string v;
  Status st = s->Get("v", &v);
  EXPECT_TRUE(st.IsCorruption()) << st.ToString();
  EXPECT_NE(st.message().find("'v'"), std::string::npos);
  EXPECT_TRUE(v.empty());
  char buf[10];
  EXPECT_TRUE(s->GetRange("v", 0, buf, 10).ok());  // first chunk is intact
  EXPECT_TRUE(s->GetRange("v", 20000, buf, 10).IsCorruption());
}

TEST(Store, BadInputGetsClearErrors) {
  TempDir dir;
  auto s = MustOpen(dir.sub("s"));
  EXPECT_TRUE(s->Put("", "x").IsInvalidArgument());
  EXPECT_TRUE(s->Put(std::string(70000, 'k'), "x").IsInvalidArgument());
  EXPECT_TRUE(s->Delete("absent").IsNotFound());
  std::string v;
  EXPECT_TRUE(s->Get("absent", &v).IsNotFound());
  ReadOptions ro;
  ro.rank = 3;
  EXPECT_TRUE(s->Get("x", &v, ro).IsInvalidArgument());
  EXPECT_TRUE(s->PutShared("sh", "y").ok());  // rank 0 may

  std::string file = dir.sub("plainfile");
  std::ofstream(file) << "not a store";
  std::unique_ptr<Store> bad;
  Status st = Store::Open(SmallOptions(), file, &bad);
  EXPECT_TRUE(st.IsInvalidArgument()) << st.ToString();
  Options o;
  o.create_if_missing = false;
  EXPECT_TRUE(Store::Open(o, dir.sub("nothing"), &bad).IsNotFound());
  o = Options();
  o.extent_size = 1000;
  EXPECT_TRUE(Store::Open(o, dir.sub("x"), &bad).IsInvalidArgument());
  o = Options();
  o.error_if_exists = true;
  ASSERT_TRUE(s->Commit().ok());
  s.reset();  // while it is open, the writer lock refuses first
  EXPECT_TRUE(Store::Open(o, dir.sub("s"), &bad).IsInvalidArgument());
}

TEST(Store, UncommittedValuesAreReadableByTheirWriter) {
  TempDir dir;
  auto s = MustOpen(dir.sub("s"));  // 32 KiB write buffer: these stay buffered
  ASSERT_TRUE(s->Put("a", Pattern(1, 5000)).ok());
  ASSERT_TRUE(s->Put("b", Pattern(2, 7000)).ok());
  std::string v;
  ASSERT_TRUE(s->Get("a", &v).ok());
  EXPECT_EQ(v, Pattern(1, 5000));
  std::vector<std::string> values;
  std::vector<Status> st;
  ASSERT_TRUE(s->MultiGet({"a", "b"}, &values, &st).ok());
  EXPECT_EQ(values[1], Pattern(2, 7000));
  ASSERT_TRUE(s->PutShared("sh", Pattern(3, 6000)).ok());
  ASSERT_TRUE(s->GetShared("sh", &v).ok());
  EXPECT_EQ(v, Pattern(3, 6000));
  ASSERT_TRUE(s->Commit().ok());
  ASSERT_TRUE(s->Get("b", &v).ok());
  EXPECT_EQ(v, Pattern(2, 7000));
}

// Pending changes are indexed only once a key comes out of order or one
// is looked up (namespace_state.h); the index keeps its size across
// commits, and a few changes after a large commit clear only their own
// slots. Whatever the order, every put, put again, delete and look-up
// must give the objects a model gives, before and after each commit.
TEST(Store, PendingChangesInAnyOrderAcrossCommits) {
  TempDir dir;
  std::string path = dir.sub("s");
  auto s = MustOpen(path);
  const int n = 20000;
  auto key = [](int i) {
    char b[16];
    std::snprintf(b, sizeof b, "k%06d", i);
    return std::string(b);
  };
  std::map<std::string, std::string> model;
  auto put = [&](int i, const std::string& v) {
    ASSERT_TRUE(s->Put(key(i), v).ok());
    model[key(i)] = v;
  };
  auto del = [&](int i) {
    ASSERT_TRUE(s->Delete(key(i)).ok());
    model.erase(key(i));
  };
  auto check = [&](const char* when) {
    std::string v;
    int wrong = 0;
    for (int i = 0; i < n + 3; i++) {
      auto it = model.find(key(i));
      Status st = s->Get(key(i), &v);
      if (it == model.end() ? !st.IsNotFound() : !st.ok() || v != it->second) wrong++;
    }
    EXPECT_EQ(wrong, 0) << when;
  };
  for (int i = 0; i < n; i += 2) put(i, "a" + std::to_string(i));     // ascending: no index
  put(n - 2, "again");                                                 // the last key again
  std::string last;
  ASSERT_TRUE(s->Get(key(n - 2), &last).ok());  // the last key, looked up before any index
  EXPECT_EQ(last, "again");
  for (int i = n - 1; i > 0; i -= 2) put(i, "b" + std::to_string(i));  // out of order: indexed from here
  for (int i = 0; i < n; i += 5) put(i, std::string(40, 'c') + std::to_string(i));  // grown in place or moved
  for (int i = 0; i < n; i += 7) del(i);
  check("out of order, before the commit");
  ASSERT_TRUE(s->Commit().ok());
  check("after the large commit");
  put(5, "d5");  // a few changes out of order: the large index is kept and cleared slot by slot
  put(3, "d3");
  put(5, "d5 again");
  put(n + 1, "d");
  del(10);
  check("a few changes");
  ASSERT_TRUE(s->Commit().ok());
  check("after the small commit");
  for (int i = 0; i < n + 3; i += 3) put(i, "e" + std::to_string(i));  // ascending: no index
  check("ascending, then looked up");                                  // the look-ups index them
  for (int i = 0; i < n + 3; i += 6) put(i, "e2" + std::to_string(i));
  ASSERT_TRUE(s->Commit().ok());
  check("after ascending puts and a commit");
  for (int i = n + 2; i >= 0; i -= 4) put(i, "f" + std::to_string(i));
  ASSERT_TRUE(s->Commit().ok());
  ASSERT_TRUE(s->Close().ok());
  s = MustOpen(path);
  check("reopened");
}

TEST(Store, DamagedFinalManifestRecordIsNeverCutAway) {
  TempDir dir;
  std::string path = dir.sub("s");
  {
    auto s = MustOpen(path);
    for (int i = 1; i <= 2; i++) {
      ASSERT_TRUE(s->Put("k", Pattern(i, 3000)).ok());
      ASSERT_TRUE(s->Commit().ok());
    }
  }
  uint64_t size = test::FileSize(path + "/MANIFEST");
  test::FlipByte(path + "/MANIFEST", size - 30);  // inside revision 2's record
  std::unique_ptr<Store> s;
  Status st = Store::Open(SmallOptions(), path, &s);
  EXPECT_TRUE(st.IsCorruption()) << st.ToString();
  EXPECT_EQ(test::FileSize(path + "/MANIFEST"), size);  // nothing was cut
  Options ro = SmallOptions();
  ro.read_only = true;
  s = MustOpen(path, ro);
  EXPECT_EQ(s->revision(), 1u);  // readers still reach the revision before it
  std::string v;
  ASSERT_TRUE(s->Get("k", &v).ok());
  EXPECT_EQ(v, Pattern(1, 3000));
}

TEST(Store, ManifestCutInsideItsHeaderIsCreatedAgain) {
  TempDir dir;
  std::string path = dir.sub("s");
  { auto s = MustOpen(path); }
  std::filesystem::resize_file(path + "/MANIFEST", 30);  // a crash while creating the store
  Options ro = SmallOptions();
  ro.read_only = true;
  std::unique_ptr<Store> s;
  EXPECT_TRUE(Store::Open(ro, path, &s).IsNotFound());
  s = MustOpen(path);
  ASSERT_TRUE(s->Put("a", "b").ok());
  ASSERT_TRUE(s->Commit().ok());
}

// A power loss right after the store was created, on a file system that
// lets a file's size reach the disk before its data (ext4 data=writeback,
// old XFS): MANIFEST is a run of zeros. No revision can have existed, so
// it is a store never completely created, not a foreign file.
TEST(Store, ManifestOfZerosIsAStoreNeverCreated) {
  for (size_t zeros : {size_t(64), size_t(4096)}) {
    TempDir dir;
    std::string path = dir.sub("s");
    { auto s = MustOpen(path); }
    std::filesystem::resize_file(path + "/MANIFEST", 0);
    std::filesystem::resize_file(path + "/MANIFEST", zeros);
    Options ro = SmallOptions();
    ro.read_only = true;
    std::unique_ptr<Store> s;
    Status st = Store::Open(ro, path, &s);
    EXPECT_TRUE(st.IsNotFound()) << st.ToString();
    EXPECT_NE(st.ToString().find("never completely created"), std::string::npos) << st.ToString();
    s = MustOpen(path);
    ASSERT_TRUE(s->Put("a", "b").ok());
    uint64_t rev = 0;
    ASSERT_TRUE(s->Commit(&rev).ok());
    EXPECT_EQ(rev, 1u);
    ASSERT_TRUE(s->Close().ok());
    s.reset();
    // The header was written over the zeros and nothing of them is left
    // behind the record: the reopened store reads, and takes more commits.
    ASSERT_TRUE(Store::Open(ro, path, &s).ok());
    std::string v;
    ASSERT_TRUE(s->Get("a", &v).ok());
    EXPECT_EQ(v, "b");
    s.reset();
    s = MustOpen(path);
    ASSERT_TRUE(s->Put("a", "c").ok());
    ASSERT_TRUE(s->Commit(&rev).ok());
    EXPECT_EQ(rev, 2u);
  }
}

TEST(Store, NewerFormatVersionIsRefused) {
  TempDir dir;
  std::string path = dir.sub("s");
  { auto s = MustOpen(path); }
  // Bump the manifest's version field (offset 8) and fix its checksum by
  // rewriting the header the way a newer cairn would.
  std::string m;
  {
    std::ifstream in(path + "/MANIFEST", std::ios::binary);
    m.assign(std::istreambuf_iterator<char>(in), {});
  }
  m[8] = 3;  // one past the newest version (2)
  uint64_t c = Checksum(m.data(), 56);
  std::memcpy(&m[56], &c, 8);
  std::ofstream(path + "/MANIFEST", std::ios::binary) << m;
  std::unique_ptr<Store> s;
  Status st = Store::Open(SmallOptions(), path, &s);
  EXPECT_TRUE(st.IsNotSupported()) << st.ToString();
}

TEST(Store, SharedObjectsSingleProcess) {
  TempDir dir;
  std::string path = dir.sub("s");
  {
    auto s = MustOpen(path);
    ASSERT_TRUE(s->PutShared("mesh", Pattern(11, 30000)).ok());
    ASSERT_TRUE(s->Commit().ok());
  }
  auto s = MustOpen(path);
  std::string v;
  ASSERT_TRUE(s->GetShared("mesh", &v).ok());
  EXPECT_EQ(v, Pattern(11, 30000));
  EXPECT_TRUE(s->GetShared("nope", &v).IsNotFound());
  ReadOptions sh;
  sh.rank = ReadOptions::kShared;
  v.clear();
  ASSERT_TRUE(s->Get("mesh", &v, sh).ok());  // a local read of the shared namespace
  EXPECT_EQ(v, Pattern(11, 30000));
  EXPECT_TRUE(s->Get("mesh", &v).IsNotFound());  // not in rank 0's own namespace
  std::vector<ObjectInfo> objs;
  ASSERT_TRUE(s->List(&objs, sh).ok());
  ASSERT_EQ(objs.size(), 1u);
  EXPECT_EQ(objs[0].key, "mesh");
}

}  // namespace
}  // namespace cairn
