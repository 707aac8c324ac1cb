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

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include "format/manifest_format.h"
#include "manifest_test_util.h"
#include "store/inspect.h"
#include "store/repair.h"
#include "store_test_util.h"
#include "test_util.h"

namespace cairn {
namespace {

using namespace cairn::test;

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
    if (rev == 2) { ASSERT_TRUE(s->Pin(2).ok()); }
  }
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
  if (exact) { EXPECT_TRUE(data_problems.empty()) << data_problems[0]; }
  if (!exact && !st.ok()) { EXPECT_FALSE(data_problems.empty()); }
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
  // No number a lost record may have held is given to a later commit.
  EXPECT_EQ(rep.reserved_revision, c.next > c.newest + 1 ? c.next - 1 : 0);
  EXPECT_EQ(pm.last_revision, c.next - 1);
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
  // The skipped number opens as nothing, not as the new state.
  for (uint64_t v = c.newest + 1; v < c.next; v++) {
    std::unique_ptr<Store> s;
    Status st = Store::Open(ReadOnly(v), path, &s);
    EXPECT_TRUE(st.IsNotFound()) << "revision " << v << ": " << st.ToString();
  }
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
        // commit is 9: a reader may have seen the lost 8, so its number
        // never names another state (repair records it as dropped).
        Case{"Newest", 2, 8, 40, 7, {2, 6, 7}, {5}, 9}),
    [](const auto& info) { return std::string(info.param.name); });

// What repair cannot fix, it names, and writes nothing: a damaged header
// (repair keeps the header), and an intact record that contradicts the log
// (a pin of a revision the log never had, framed with a valid checksum, so
// not damage). The message said "(repair rewrites records, not the header)"
// for both, which blamed the header for the second.
TEST(Unrepairable, DamagedHeaderAndContradictingRecordAreNamedAndNothingIsWritten) {
  TempDir dir;
  std::string path = dir.path() + "/s";
  BuildStore(path);
  std::string man_path = path + "/MANIFEST";
  const std::string whole = Slurp(man_path);
  struct Variant {
    const char* name;
    std::string manifest;
    const char* says;
    const char* not_says;
  };
  std::string bad_header = whole;
  bad_header[20] ^= 0x5a;  // inside the header, under its checksum
  std::string contradicting = whole + FrameRecord(RecordType::kPin, EncodeMarkPayload(999));
  for (const Variant& v : {Variant{"header", bad_header, "header is damaged", "that record is intact"},
                           Variant{"record", contradicting, "that record is intact", "header is damaged"}}) {
    SCOPED_TRACE(v.name);
    std::ofstream(man_path, std::ios::binary | std::ios::trunc) << v.manifest;
    RepairReport rep;
    Status st = RepairManifest(path, &rep);
    EXPECT_TRUE(st.IsCorruption()) << st.ToString();
    EXPECT_NE(st.message().find(man_path), std::string::npos) << st.ToString();
    EXPECT_NE(st.message().find(v.says), std::string::npos) << st.ToString();
    EXPECT_EQ(st.message().find(v.not_says), std::string::npos) << st.ToString();
    EXPECT_NE(st.message().find("Nothing was written"), std::string::npos) << st.ToString();
    EXPECT_FALSE(rep.changed);
    EXPECT_EQ(Slurp(man_path), v.manifest) << "repair wrote over a MANIFEST it could not fix";
    for (const auto& e : std::filesystem::directory_iterator(path))
      EXPECT_EQ(e.path().filename().string().rfind("MANIFEST.", 0), std::string::npos) << e.path();
  }
  // The advice for the second works: a copy whose MANIFEST is cut where the
  // message says opens, with every retained revision intact.
  std::ofstream(man_path, std::ios::binary | std::ios::trunc) << contradicting;
  RepairReport rep;
  Status st = RepairManifest(path, &rep);
  std::string copy = dir.path() + "/copy";
  size_t at = st.message().find("truncate -s ");
  ASSERT_NE(at, std::string::npos) << st.ToString();
  uint64_t cut = std::stoull(st.message().substr(at + 12));
  EXPECT_EQ(cut, whole.size());
  std::filesystem::copy(path, copy, std::filesystem::copy_options::recursive);
  std::filesystem::resize_file(copy + "/MANIFEST", cut);
  for (uint64_t rev : {2, 6, 7, 8}) CheckRevision(copy, rev, true);
  std::ofstream(man_path, std::ios::binary | std::ios::trunc) << whole;
  CheckRevision(path, 8, true);
}

// A MANIFEST cut inside its first record (issue: it opened as an empty
// store, and a writer wrote a new revision 1 over it). The header says a
// revision was committed, so it is Corruption naming the file and offset,
// for readers and writers, and nothing is written.
TEST(FirstRecord, CutInsideTheFirstRecordIsCorruptionNotAnEmptyStore) {
  TempDir dir;
  std::string path = dir.sub("s");
  {
    auto s = MustOpen(path);
    ASSERT_TRUE(s->Put("k", ValueOf(1)).ok());
    uint64_t got = 0;
    ASSERT_TRUE(s->Commit(&got).ok());
    ASSERT_EQ(got, 1u);
  }
  std::string man_path = path + "/MANIFEST", data_path = path + "/data.00000";
  const std::string whole = Slurp(man_path), data = Slurp(data_path);
  ASSERT_GT(whole.size(), kManifestHeaderSize + kRecordOverhead);
  for (uint64_t cut : {kManifestHeaderSize, kManifestHeaderSize + 3, kManifestHeaderSize + 20,
                       uint64_t(whole.size() - 1)}) {
    SCOPED_TRACE("MANIFEST cut to " + std::to_string(cut) + " bytes");
    std::filesystem::resize_file(man_path, cut);
    std::unique_ptr<Store> s;
    Status st = Store::Open(ReadOnly(), path, &s);
    EXPECT_TRUE(st.IsCorruption()) << st.ToString();
    EXPECT_NE(st.message().find(man_path), std::string::npos) << st.ToString();
    EXPECT_NE(st.message().find("offset 64"), std::string::npos) << st.ToString();
    Options o = SmallOptions();
    o.create_if_missing = false;
    st = Store::Open(o, path, &s);
    EXPECT_TRUE(st.IsCorruption()) << st.ToString();
    o.create_if_missing = true;
    st = Store::Open(o, path, &s);
    EXPECT_TRUE(st.IsCorruption()) << st.ToString();
    s.reset();
    // Repair has no intact record to rebuild from: it says so (the log
    // was committed, no record is intact, nothing can be recovered
    // automatically, nothing was written), and writes nothing.
    RepairReport rep;
    st = RepairManifest(path, &rep);
    EXPECT_TRUE(st.IsCorruption()) << st.ToString();
    for (const char* part : {"says a revision was committed", "no revision record after the header is intact",
                             "Nothing can be recovered automatically",
                             "MANIFEST and the data files are left untouched", "Restore MANIFEST from a backup"})
      EXPECT_NE(st.message().find(part), std::string::npos) << "missing '" << part << "' in " << st.ToString();
    EXPECT_EQ(st.message().find("not the header"), std::string::npos) << st.ToString();
    EXPECT_FALSE(rep.changed);
    EXPECT_TRUE(rep.backup.empty());
    for (const auto& e : std::filesystem::directory_iterator(path))
      EXPECT_EQ(e.path().filename().string().rfind("MANIFEST.", 0), std::string::npos) << e.path();
    EXPECT_EQ(Slurp(man_path), whole.substr(0, cut)) << "a writable open wrote over the damaged MANIFEST";
    EXPECT_EQ(Slurp(data_path), data) << "a writable open wrote over the data file";
    std::ofstream(man_path, std::ios::binary | std::ios::trunc) << whole;
  }
  CheckRevision(path, 1, true);
}

// The legitimate case: a crash during the very first commit's manifest
// append (half the record written, then kill -9). That commit was never
// acknowledged, and the flag is written only after its fsync: the store is
// one with no revision, and the next writer cuts the torn bytes and commits.
TEST(FirstRecord, CrashDuringTheFirstCommitLeavesAnEmptyStore) {
  TempDir dir;
  std::string path = dir.sub("s");
  pid_t pid = fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    setenv("CAIRN_CRASH_POINT", "torn_manifest", 1);
    std::unique_ptr<Store> s;
    if (!Store::Open(SmallOptions(), path, &s).ok()) _exit(2);
    if (!s->Put("k", ValueOf(1)).ok()) _exit(2);
    s->Commit();
    _exit(3);  // not reached: the crash point kills the process
  }
  int status = 0;
  ASSERT_EQ(waitpid(pid, &status, 0), pid);
  ASSERT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL) << "child status " << status;
  std::string man_path = path + "/MANIFEST";
  ASSERT_GT(Slurp(man_path).size(), kManifestHeaderSize) << "no torn record was left";
  {
    std::unique_ptr<Store> s;
    Status st = Store::Open(ReadOnly(), path, &s);
    EXPECT_FALSE(st.IsCorruption()) << st.ToString();
  }
  Options o = SmallOptions();
  o.create_if_missing = false;
  {
    auto s = MustOpen(path, o);
    ASSERT_TRUE(s);
    EXPECT_EQ(s->revision(), 0u);
    ASSERT_TRUE(s->Put("k", ValueOf(1)).ok());
    uint64_t got = 0;
    ASSERT_TRUE(s->Commit(&got).ok());
    EXPECT_EQ(got, 1u);
  }
  CheckRevision(path, 1, true);
}

}  // namespace
}  // namespace cairn
