// Retention in a single process: keep_revisions, pins, drops, reuse of the
// space of expired revisions (bounded data file), every retained revision
// intact after many cycles, version-1 stores, and the manifest records.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <random>

#include "cairn/store.h"
#include "format/manifest_format.h"
#include "store/retention.h"
#include "test_util.h"

namespace cairn {
namespace {

using test::Pattern;
using test::TempDir;

Options Small(uint64_t keep) {
  Options o;
  o.extent_size = 64 * 1024;
  o.chunk_size = 16 * 1024;
  o.write_buffer_size = 32 * 1024;
  o.inline_value_limit = 100;
  o.keep_revisions = keep;
  o.sync = false;  // the tests check layout and reuse, not durability
  return o;
}

std::unique_ptr<Store> MustOpen(const std::string& path, Options o) {
  std::unique_ptr<Store> s;
  Status st = Store::Open(o, path, &s);
  EXPECT_TRUE(st.ok()) << st.ToString();
  return s;
}

std::vector<uint64_t> Revs(Store* s) {
  std::vector<RevisionInfo> ri;
  s->ListRevisions(&ri);
  std::vector<uint64_t> out;
  for (auto& r : ri) out.push_back(r.revision);
  return out;
}

std::string ReadManifest(const std::string& path) {
  std::ifstream in(path + "/MANIFEST", std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

TEST(Retention, KeepsTheNewestKAndExpiredOnesCannotBeOpened) {
  TempDir dir;
  std::string path = dir.sub("s");
  {
    auto s = MustOpen(path, Small(2));
    for (int r = 1; r <= 6; r++) {
      ASSERT_TRUE(s->Put("x", Pattern(r, 3000)).ok());
      ASSERT_TRUE(s->Commit().ok());
    }
    EXPECT_EQ(Revs(s.get()), (std::vector<uint64_t>{5, 6}));
  }
  // Reopened without the option: the list is what the manifest says.
  auto s = MustOpen(path, Small(0));
  EXPECT_EQ(Revs(s.get()), (std::vector<uint64_t>{5, 6}));
  Options o = Small(0);
  o.read_only = true;
  o.revision = 3;
  std::unique_ptr<Store> old;
  Status st = Store::Open(o, path, &old);
  EXPECT_TRUE(st.IsNotFound()) << st.ToString();
  EXPECT_NE(st.message().find("revision 3"), std::string::npos) << st.ToString();
  EXPECT_NE(st.message().find("dropped"), std::string::npos) << st.ToString();
  o.revision = 5;
  ASSERT_TRUE(Store::Open(o, path, &old).ok());
  std::string v;
  ASSERT_TRUE(old->Get("x", &v).ok());
  EXPECT_EQ(v, Pattern(5, 3000));
}

TEST(Retention, PinnedRevisionSurvivesExpiryUntilUnpinned) {
  TempDir dir;
  std::string path = dir.sub("s");
  auto s = MustOpen(path, Small(2));
  for (int r = 1; r <= 3; r++) {
    ASSERT_TRUE(s->Put("x", Pattern(r, 30000)).ok());
    ASSERT_TRUE(s->Commit().ok());
  }
  ASSERT_TRUE(s->Pin(2).ok());
  ASSERT_TRUE(s->Pin(2).ok());  // again: fine, nothing written
  EXPECT_TRUE(s->Pin(1).IsNotFound());  // already expired
  for (int r = 4; r <= 20; r++) {
    ASSERT_TRUE(s->Put("x", Pattern(r, 30000)).ok());
    ASSERT_TRUE(s->Commit().ok());
  }
  EXPECT_EQ(Revs(s.get()), (std::vector<uint64_t>{2, 19, 20}));
  std::vector<RevisionInfo> ri;
  s->ListRevisions(&ri);
  EXPECT_TRUE(ri[0].pinned);
  EXPECT_FALSE(ri[1].pinned);
  EXPECT_TRUE(s->Drop(2).IsInvalidArgument());
  {
    Options o = Small(0);
    o.read_only = true;
    o.revision = 2;
    auto r = MustOpen(path, o);
    std::string v;
    ASSERT_TRUE(r->Get("x", &v).ok());  // its extents were never reused
    EXPECT_EQ(v, Pattern(2, 30000));
  }
  ASSERT_TRUE(s->Unpin(2).ok());
  ASSERT_TRUE(s->Put("x", Pattern(21, 30000)).ok());
  ASSERT_TRUE(s->Commit().ok());
  EXPECT_EQ(Revs(s.get()), (std::vector<uint64_t>{20, 21}));
}

TEST(Retention, DropRemovesOneRevision) {
  TempDir dir;
  std::string path = dir.sub("s");
  auto s = MustOpen(path, Small(0));
  for (int r = 1; r <= 4; r++) {
    ASSERT_TRUE(s->Put("x", Pattern(r, 5000)).ok());
    ASSERT_TRUE(s->Commit().ok());
  }
  ASSERT_TRUE(s->Drop(2).ok());
  EXPECT_EQ(Revs(s.get()), (std::vector<uint64_t>{1, 3, 4}));
  EXPECT_TRUE(s->Drop(2).IsNotFound());
  EXPECT_TRUE(s->Drop(99).IsNotFound());
  EXPECT_TRUE(s->Drop(4).IsInvalidArgument());  // the handle's own revision
  ASSERT_TRUE(s->Pin(3).ok());
  EXPECT_TRUE(s->Drop(3).IsInvalidArgument());
  ASSERT_TRUE(s->Close().ok());
  // The next writer sees the same; a dropped revision cannot be opened.
  Options o = Small(0);
  o.revision = 2;
  std::unique_ptr<Store> bad;
  EXPECT_TRUE(Store::Open(o, path, &bad).IsNotFound());
  auto t = MustOpen(path, Small(0));
  std::vector<RevisionInfo> ri;
  t->ListRevisions(&ri);
  ASSERT_EQ(ri.size(), 3u);
  EXPECT_TRUE(ri[1].pinned);
  ASSERT_TRUE(t->Drop(1).ok());
  std::string v;
  ASSERT_TRUE(t->Get("x", &v).ok());
  EXPECT_EQ(v, Pattern(4, 5000));
}

TEST(Retention, DroppingTheNewestLeavesTheOneBeforeNewest) {
  TempDir dir;
  std::string path = dir.sub("s");
  {
    auto s = MustOpen(path, Small(0));
    for (int r = 1; r <= 3; r++) {
      ASSERT_TRUE(s->Put("x", Pattern(r, 5000)).ok());
      ASSERT_TRUE(s->Commit().ok());
    }
  }
  ASSERT_TRUE(MarkRevisionAt(path, RecordType::kDrop, 3).ok());
  auto s = MustOpen(path, Small(0));
  EXPECT_EQ(s->revision(), 2u);
  std::string v;
  ASSERT_TRUE(s->Get("x", &v).ok());
  EXPECT_EQ(v, Pattern(2, 5000));
  uint64_t rev = 0;
  ASSERT_TRUE(s->Commit(&rev).ok());
  EXPECT_EQ(rev, 4u);  // numbers never repeat
}

// Steady state: one object rewritten at every commit, others never. With
// keep = 2 the data file stops growing once the first cycles are done.
TEST(Retention, SpaceOfExpiredRevisionsIsReusedAndTheFileStaysBounded) {
  TempDir dir;
  std::string path = dir.sub("s");
  Options o = Small(2);
  auto s = MustOpen(path, o);
  ASSERT_TRUE(s->Put("static", Pattern(7, 200000)).ok());
  uint64_t size_at_20 = 0;
  for (int r = 1; r <= 300; r++) {
    ASSERT_TRUE(s->Put("hot", Pattern(r, 150000)).ok());
    ASSERT_TRUE(s->Put("warm", Pattern(r + 1000, 1000 + (r % 7) * 10000)).ok());
    ASSERT_TRUE(s->Commit().ok());
    if (r == 20) size_at_20 = test::FileSize(path + "/data.00000");
  }
  uint64_t size = test::FileSize(path + "/data.00000");
  EXPECT_EQ(size, size_at_20);
  // (K + 1) revisions of ~230 KB new data plus the 200 KB static object,
  // extent-rounded: about 1 MB; without reuse 300 revisions are 45 MB.
  EXPECT_LT(size, 2u << 20);
  SpaceInfo si;
  ASSERT_TRUE(ComputeSpace(path, &si).ok());
  EXPECT_EQ(si.retained, 2u);
  EXPECT_EQ(si.dropped, 298u);
  std::string v;
  ASSERT_TRUE(s->Get("static", &v).ok());
  EXPECT_EQ(v, Pattern(7, 200000));
}

// Reuse never overwrites what a retained revision needs: many cycles of
// random sizes, deletes and pins; after every few commits, every retained
// revision is opened and every value compared with what was written.
TEST(Retention, EveryRetainedRevisionStaysIntactOverManyCycles) {
  TempDir dir;
  std::string path = dir.sub("s");
  Options o = Small(3);
  auto s = MustOpen(path, o);
  std::mt19937_64 g(42);
  std::map<uint64_t, std::map<std::string, std::string>> expect;  // revision -> contents
  std::map<std::string, std::string> now;
  for (int r = 1; r <= 150; r++) {
    int puts = 1 + int(g() % 5);
    for (int i = 0; i < puts; i++) {
      std::string key = "k" + std::to_string(g() % 12);
      std::string val = Pattern(g(), g() % 4 == 0 ? 200000 + g() % 100000 : g() % 40000);
      ASSERT_TRUE(s->Put(key, val).ok());
      now[key] = val;
    }
    if (g() % 4 == 0 && !now.empty()) {
      auto it = now.begin();
      std::advance(it, g() % now.size());
      ASSERT_TRUE(s->Delete(it->first).ok());
      now.erase(it);
    }
    uint64_t rev = 0;
    ASSERT_TRUE(s->Commit(&rev).ok());
    expect[rev] = now;
    if (r % 25 == 0) {
      ASSERT_TRUE(s->Pin(rev).ok());
    }
    if (r == 100) {
      ASSERT_TRUE(s->Unpin(50).ok());
    }
    if (r % 10 != 0) continue;
    for (uint64_t kept : Revs(s.get())) {
      Options ro = o;
      ro.read_only = true;
      ro.revision = kept;
      auto rd = MustOpen(path, ro);
      ASSERT_TRUE(rd);
      for (const auto& [k, v] : expect[kept]) {
        std::string got;
        Status st = rd->Get(k, &got);
        ASSERT_TRUE(st.ok()) << "revision " << kept << " key " << k << ": " << st.ToString();
        ASSERT_EQ(got, v) << "revision " << kept << " key " << k;
      }
    }
  }
  EXPECT_EQ(Revs(s.get()), (std::vector<uint64_t>{25, 75, 100, 125, 148, 149, 150}));
}

// A writer closed and reopened keeps reusing space (the free list is
// rebuilt from the manifest at open).
TEST(Retention, ReopenRebuildsTheFreeList) {
  TempDir dir;
  std::string path = dir.sub("s");
  Options o = Small(2);
  uint64_t first = 0;
  for (int round = 0; round < 5; round++) {
    auto s = MustOpen(path, o);
    for (int r = 0; r < 20; r++) {
      ASSERT_TRUE(s->Put("hot", Pattern(round * 100 + r, 150000)).ok());
      ASSERT_TRUE(s->Commit().ok());
    }
    ASSERT_TRUE(s->Close().ok());
    uint64_t size = test::FileSize(path + "/data.00000");
    if (round == 0) first = size;
    EXPECT_LE(size, first) << "round " << round;
  }
}

// A store written by format version 1 (type-1 records, header version 1)
// is read, and a writer upgrades it: its old revisions count as needing
// everything below their high water until they are dropped.
TEST(Retention, VersionOneStoreIsReadAndUpgraded) {
  TempDir dir;
  std::string path = dir.sub("s");
  {
    auto s = MustOpen(path, Small(0));
    for (int r = 1; r <= 3; r++) {
      ASSERT_TRUE(s->Put("x", Pattern(r, 100000)).ok());
      ASSERT_TRUE(s->Commit().ok());
    }
  }
  // Rewrite the manifest as version 1 would have.
  ParsedManifest pm;
  ASSERT_TRUE(ParseManifest(ReadManifest(path), &pm).ok());
  ManifestHeader h = pm.header;
  h.version = 1;
  std::string m = EncodeManifestHeader(h);
  for (const auto& r : pm.revisions) m += FrameRecord(RecordType::kRevision, EncodeRevisionPayload(r));
  std::ofstream(path + "/MANIFEST", std::ios::binary | std::ios::trunc) << m;
  {
    auto s = MustOpen(path, Small(2));
    EXPECT_EQ(Revs(s.get()), (std::vector<uint64_t>{1, 2, 3}));
    SpaceInfo si;
    ASSERT_TRUE(ComputeSpace(path, &si).ok());
    EXPECT_EQ(si.unknown_extents, 3u);
    EXPECT_EQ(si.files[0].reclaimable, 0u);
    ASSERT_TRUE(s->Put("x", Pattern(4, 100000)).ok());
    ASSERT_TRUE(s->Commit().ok());
    EXPECT_EQ(Revs(s.get()), (std::vector<uint64_t>{3, 4}));
    std::string v;
    ASSERT_TRUE(s->Get("x", &v).ok());
    EXPECT_EQ(v, Pattern(4, 100000));
  }
  ParsedManifest up;
  ASSERT_TRUE(ParseManifest(ReadManifest(path), &up).ok());
  EXPECT_EQ(up.header.version, 2u);
  // Only the retained revisions 3 (version 1) and 4 are in the list.
  ASSERT_EQ(up.revisions.size(), 2u);
  EXPECT_FALSE(up.revisions[0].live_known);
  EXPECT_TRUE(up.revisions[1].live_known);
  Options o = Small(0);
  o.read_only = true;
  o.revision = 3;
  auto r3 = MustOpen(path, o);
  std::string v;
  ASSERT_TRUE(r3->Get("x", &v).ok());
  EXPECT_EQ(v, Pattern(3, 100000));
}

// --- The records themselves ---

TEST(RetentionFormat, RevisionSpaceRecordRoundTrips) {
  RevisionRecord r;
  r.revision = 7;
  r.parent = 6;
  r.nranks = 1;
  r.high_water = {1 << 20, 2 << 20};
  r.namespaces.resize(2);
  r.live_known = true;
  r.extent_size = 65536;
  r.live = {{0, 65536, 131072}, {1, 0, 65536}};
  r.expires = {3, 5};
  RevisionRecord g;
  ASSERT_TRUE(DecodeRevisionSpacePayload(EncodeRevisionSpacePayload(r), &g).ok());
  EXPECT_EQ(g.revision, 7u);
  EXPECT_EQ(g.extent_size, 65536u);
  EXPECT_EQ(g.live, r.live);
  EXPECT_EQ(g.expires, r.expires);
  r.live = {{1, 0, 65536}, {0, 65536, 131072}};  // unsorted
  EXPECT_TRUE(DecodeRevisionSpacePayload(EncodeRevisionSpacePayload(r), &g).IsCorruption());
}

TEST(RetentionFormat, MarksAreCheckedAgainstTheLog) {
  ParsedManifest m;
  RevisionRecord r;
  r.nranks = 0;
  r.namespaces.resize(1);
  for (uint64_t v = 1; v <= 3; v++) {
    r.revision = v;
    ASSERT_TRUE(ApplyRecord(1, EncodeRevisionPayload(r), &m).ok());
  }
  ASSERT_TRUE(ApplyRecord(4, EncodeMarkPayload(2), &m).ok());   // pin 2
  EXPECT_TRUE(ApplyRecord(3, EncodeMarkPayload(2), &m).IsCorruption());  // drop of a pinned one
  EXPECT_TRUE(ApplyRecord(3, EncodeMarkPayload(9), &m).IsCorruption());  // no such revision
  ASSERT_TRUE(ApplyRecord(3, EncodeMarkPayload(1), &m).ok());
  EXPECT_TRUE(ApplyRecord(3, EncodeMarkPayload(1), &m).IsCorruption());  // twice
  EXPECT_TRUE(ApplyRecord(9, EncodeMarkPayload(1), &m).IsNotSupported());
  EXPECT_EQ(m.dropped, (std::set<uint64_t>{1}));
  EXPECT_EQ(m.pinned, (std::set<uint64_t>{2}));
  EXPECT_EQ(RevisionsToExpire(m, 4, 1), (std::vector<uint64_t>{3}));
  EXPECT_EQ(RevisionsToExpire(m, 4, 0), (std::vector<uint64_t>{}));
}

TEST(RetentionFormat, RangeArithmetic) {
  std::vector<ExtentRange> a;
  AddExtentRange(&a, 0, 100, 10, 64);     // [64, 128)
  AddExtentRange(&a, 0, 120, 100, 64);    // touches: [64, 256)
  AddExtentRange(&a, 1, 0, 1, 64);
  AddExtentRange(&a, 0, 1000, 1, 64);     // [960, 1024)
  NormalizeRanges(&a);
  ASSERT_EQ(a.size(), 3u);
  EXPECT_EQ(a[0], (ExtentRange{0, 64, 192}));
  std::vector<ExtentRange> b = {{0, 128, 64}, {0, 900, 100}};
  auto d = SubtractRanges(a, b);
  std::vector<ExtentRange> want = {{0, 64, 64}, {0, 192, 64}, {0, 1000, 24}, {1, 0, 64}};
  EXPECT_EQ(d, want);
  EXPECT_EQ(RangeBytes(d), 216u);
}

}  // namespace
}  // namespace cairn
