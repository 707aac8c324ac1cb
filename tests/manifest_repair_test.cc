// Damaged manifest records between intact ones (issue 10, item 6): a
// read-only open skips them and opens the newest intact revision; a writer
// refuses the store and names `cairn repair`; RepairManifest rewrites the
// manifest of the intact records (keeping the original) and a writer then
// commits again. Every retained revision's data is checked byte for byte,
// and never read back wrong.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>

#include "format/coding.h"
#include "format/manifest_format.h"
#include "store/inspect.h"
#include "store/repair.h"
#include "store_test_util.h"
#include "test_util.h"

namespace cairn {
namespace {

using namespace cairn::test;

std::string Slurp(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(f), {});
}

std::string ValueOf(uint64_t rev) { return Pattern(rev, 40000); }

// Eight commits with keep_revisions = 3; revision 2 is pinned right after
// its commit. Retained at the end: 2 (pinned), 6, 7, 8.
void BuildStore(const std::string& path) {
  Options o = SmallOptions();
  o.keep_revisions = 3;
  auto s = MustOpen(path, o);
  for (uint64_t rev = 1; rev <= 8; rev++) {
    ASSERT_TRUE(s->Put("k", ValueOf(rev)).ok());
    ASSERT_TRUE(s->Put("r" + std::to_string(rev), "small").ok());
    uint64_t got = 0;
    ASSERT_TRUE(s->Commit(&got).ok());
    ASSERT_EQ(got, rev);
    if (rev == 2) ASSERT_TRUE(s->Pin(2).ok());
  }
}

struct Rec {
  uint64_t offset;
  uint32_t type;
  uint64_t revision;  // of a revision record, or the one a mark names
};
// The records of a manifest, in file order (the file must be intact).
std::vector<Rec> Records(const std::string& man) {
  std::vector<Rec> out;
  for (uint64_t off = kManifestHeaderSize; off + kRecordOverhead <= man.size();) {
    uint32_t len = DecodeFixed32(man.data() + off), type = DecodeFixed32(man.data() + off + 4);
    uint64_t rev = DecodeFixed64(man.data() + off + 8 + (type == 2 ? 4 : 0));
    out.push_back(Rec{off, type, rev});
    off += len + kRecordOverhead;
  }
  return out;
}
uint64_t RecordOf(const std::vector<Rec>& rs, uint32_t type, uint64_t rev) {
  for (const Rec& r : rs)
    if (r.type == type && r.revision == rev) return r.offset;
  ADD_FAILURE() << "no record of type " << type << " for revision " << rev;
  return 0;
}

Options ReadOnly(uint64_t rev = 0) {
  Options o = SmallOptions();
  o.read_only = true;
  o.create_if_missing = false;
  o.revision = rev;
  return o;
}

// Opens revision `rev` read-only and checks its data. `exact`: must read
// back whole; otherwise it may also fail with a clear error (a doubtful
// revision whose space a lost record let be reused), never read wrong.
void CheckRevision(const std::string& path, uint64_t rev, bool exact) {
  SCOPED_TRACE("revision " + std::to_string(rev));
  std::unique_ptr<Store> s;
  Status st = Store::Open(ReadOnly(rev), path, &s);
  ASSERT_TRUE(st.ok()) << st.ToString();
  ASSERT_EQ(s->revision(), rev);
  std::string v;
  st = s->Get("k", &v);
  if (exact || st.ok()) {
    ASSERT_TRUE(st.ok()) << st.ToString();
    EXPECT_EQ(v, ValueOf(rev));
  } else {
    EXPECT_TRUE(st.IsCorruption()) << st.ToString();
  }
  VerifyReport rep;
  ASSERT_TRUE(Inspector::Verify(s.get(), &rep).ok());
  std::vector<std::string> data_problems;
  for (const std::string& p : rep.problems)
    if (p.rfind("MANIFEST:", 0) != 0) data_problems.push_back(p);
  if (exact) EXPECT_TRUE(data_problems.empty()) << data_problems[0];
  if (!exact && !st.ok()) EXPECT_FALSE(data_problems.empty());
}

std::vector<uint64_t> Retained(const std::string& path) {
  std::unique_ptr<Store> s;
  Status st = Store::Open(ReadOnly(), path, &s);
  EXPECT_TRUE(st.ok()) << st.ToString();
  std::vector<uint64_t> out;
  if (!st.ok()) return out;
  std::vector<RevisionInfo> revs;
  EXPECT_TRUE(s->ListRevisions(&revs).ok());
  for (const RevisionInfo& r : revs) out.push_back(r.revision);
  return out;
}

struct Case {
  const char* name;
  uint32_t type;         // record to damage: its type and revision
  uint64_t revision;
  uint64_t byte;         // which byte of it (0..3: the length field)
  uint64_t newest;       // what a read-only open shows
  std::vector<uint64_t> exact;     // retained revisions that must read back whole
  std::vector<uint64_t> doubtful;  // retained ones that may fail (never read wrong)
  uint64_t next;         // the number of the commit after repair
};

class ManifestRepair : public ::testing::TestWithParam<Case> {};

TEST_P(ManifestRepair, ReadOnlySkipsDamageRepairRestoresWriting) {
  const Case& c = GetParam();
  TempDir dir;
  std::string path = dir.sub("s");
  BuildStore(path);
  std::string man_path = path + "/MANIFEST";
  uint64_t at = RecordOf(Records(Slurp(man_path)), c.type, c.revision) + c.byte;
  FlipByte(man_path, at, 0x04);

  // Read-only: the newest intact revision, every retained one readable.
  {
    std::unique_ptr<Store> s;
    Status st = Store::Open(ReadOnly(), path, &s);
    ASSERT_TRUE(st.ok()) << st.ToString();
    EXPECT_EQ(s->revision(), c.newest);
  }
  std::vector<uint64_t> want = c.exact;
  want.insert(want.end(), c.doubtful.begin(), c.doubtful.end());
  std::sort(want.begin(), want.end());
  EXPECT_EQ(Retained(path), want);
  for (uint64_t v : c.exact) CheckRevision(path, v, true);
  for (uint64_t v : c.doubtful) CheckRevision(path, v, false);

  // A writer refuses, and says what to do.
  {
    Options o = SmallOptions();
    o.create_if_missing = false;
    std::unique_ptr<Store> s;
    Status st = Store::Open(o, path, &s);
    EXPECT_TRUE(st.IsCorruption()) << st.ToString();
    EXPECT_NE(st.message().find("cairn repair"), std::string::npos) << st.ToString();
  }

  // Repair: the original is kept, the damage reported, the store writable.
  std::string original = Slurp(man_path);
  RepairReport rep;
  Status st = RepairManifest(path, &rep);
  ASSERT_TRUE(st.ok()) << st.ToString();
  EXPECT_TRUE(rep.changed);
  EXPECT_EQ(Slurp(rep.backup), original);
  EXPECT_EQ(rep.dropped.size() + (rep.tail_bytes ? 1 : 0), 1u);
  if (!rep.dropped.empty()) EXPECT_EQ(rep.dropped[0].offset, at - c.byte);
  else EXPECT_EQ(rep.tail_offset, at - c.byte);
  EXPECT_EQ(rep.retained, want);
  EXPECT_FALSE(std::filesystem::exists(man_path + ".repair-tmp"));
  ParsedManifest pm;
  ASSERT_TRUE(ParseManifest(Slurp(man_path), &pm).ok());
  EXPECT_FALSE(pm.has_damage());
  EXPECT_EQ(pm.torn_bytes, 0u);
  for (uint64_t v : c.doubtful) EXPECT_TRUE(pm.pinned.count(v)) << "doubtful revision " << v << " is not pinned";
  EXPECT_TRUE(pm.pinned.count(2)) << "the pin of revision 2 was lost";
  // A second run finds nothing to do.
  RepairReport again;
  ASSERT_TRUE(RepairManifest(path, &again).ok());
  EXPECT_FALSE(again.changed);

  // Writable again: open at the newest intact revision and commit.
  {
    Options o = SmallOptions();
    o.keep_revisions = 3;
    o.create_if_missing = false;
    std::unique_ptr<Store> s;
    st = Store::Open(o, path, &s);
    ASSERT_TRUE(st.ok()) << st.ToString();
    EXPECT_EQ(s->revision(), c.newest);
    ASSERT_TRUE(s->Put("k", ValueOf(c.next)).ok());
    uint64_t got = 0;
    ASSERT_TRUE(s->Commit(&got).ok());
    EXPECT_EQ(got, c.next);
  }
  CheckRevision(path, c.next, true);
  for (uint64_t v : Retained(path)) {
    bool doubtful = std::find(c.doubtful.begin(), c.doubtful.end(), v) != c.doubtful.end();
    CheckRevision(path, v, !doubtful);
  }
}

INSTANTIATE_TEST_SUITE_P(
    Damage, ManifestRepair,
    ::testing::Values(
        // Revision 3's record (expired by commit 6): its payload, and its
        // length field (the reader must resync by scanning).
        Case{"OldExpiredPayload", 2, 3, 40, 8, {2, 6, 7, 8}, {}, 9},
        Case{"OldExpiredLength", 2, 3, 1, 8, {2, 6, 7, 8}, {}, 9},
        // Revision 6's record (retained): 6 is lost; the revision it
        // expired (3) looks retained again, doubtful, kept and pinned.
        Case{"OldRetained", 2, 6, 40, 8, {2, 7, 8}, {3}, 9},
        // The pin of revision 2: 2 was retained before it (doubtful, and
        // pinned by the repair), every later record applies.
        Case{"PinRecord", 4, 2, 9, 8, {6, 7, 8}, {2}, 9},
        // The newest record: revision 8 is lost; 7 is the newest; the next
        // commit takes number 8 again (nothing refers to the lost one).
        Case{"Newest", 2, 8, 40, 7, {2, 6, 7}, {5}, 8}),
    [](const auto& info) { return std::string(info.param.name); });

}  // namespace
}  // namespace cairn
