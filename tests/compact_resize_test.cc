// Manifest compaction across restarts on other rank counts
// (doc/interactions.md, `compact` x `resize`), at 1, 2 and 4 ranks, with a
// 512-byte compaction threshold (CAIRN_MANIFEST_COMPACT_BYTES). Revisions
// 1-6 are written by half the ranks (4 -> 2; 2 and 1 -> 1) and revision 2
// is pinned; all ranks then write revisions 7-36, dropping 1, 3 and each of
// their own revisions but 7 once the next is committed, so the manifest is
// compacted (its inode changes) while it holds records of both rank counts.
// Every kept revision then reads back exactly on one rank (every
// namespace, the shared one, its writer_ranks()), then on 3 ranks (of 4; 2
// of 2, 1 of 1), which write 20 more revisions the same way (more
// compactions, now of three rank counts), and on one rank again. Values are
// rewritten by every revision and dropped revisions' space is reused, so a
// compaction that loses a record's rank count, namespaces or live ranges
// shows as a wrong count, a missing namespace or a checksum mismatch.
#include <gtest/gtest.h>
#include <mpi.h>
#include <stdlib.h>
#include <sys/stat.h>

#include <map>
#include <string>
#include <vector>

#include "cairn/store.h"
#include "mpi_main.h"
#include "store_test_util.h"
#include "test_util.h"

namespace cairn::test {
namespace {

constexpr int kKeys = 4;
const size_t kSizes[kKeys] = {20, 100, 3000, 40000};  // the first inline (limit 64)

std::string Value(uint64_t rev, int ns, int j) {
  return Pattern(rev * 1000 + uint64_t(ns) * 10 + uint64_t(j), kSizes[j]);
}
std::string Shared(uint64_t rev) { return "shared of revision " + std::to_string(rev); }

Options Opt(bool read_only = false, uint64_t rev = 0) {
  Options o = SmallUnsyncedOptions();
  o.read_only = read_only;
  o.revision = rev;
  return o;
}

std::unique_ptr<Store> OpenOn(MPI_Comm comm, const Options& o, const std::string& path) {
  std::unique_ptr<Store> s;
  Status st = Store::Open(o, path, comm, &s);
  EXPECT_TRUE(st.ok()) << st.ToString();
  return s;
}

// Puts revision `rev`'s values (every key rewritten) and commits it.
void CommitRevision(Store* s, uint64_t rev) {
  for (int j = 0; j < kKeys; j++) ASSERT_TRUE(s->Put("k" + std::to_string(j), Value(rev, s->rank(), j)).ok());
  if (s->rank() == 0) { ASSERT_TRUE(s->PutShared("sh", Shared(rev)).ok()); }
  uint64_t got = 0;
  Status st = s->Commit(&got);
  ASSERT_TRUE(st.ok()) << st.ToString();
  ASSERT_EQ(got, rev);
}

// Opens revision `rev` read-only on `comm` and reads every namespace of it
// (each rank all of them) and the shared one. A wrong read fails the test
// without returning early, so that every rank makes the same collective
// calls after it (else the job would hang instead of failing).
void ExpectRevision(MPI_Comm comm, const std::string& path, uint64_t rev, int writers) {
  auto r = OpenOn(comm, Opt(true, rev), path);
  EXPECT_TRUE(r) << "revision " << rev;  // the same on every rank of comm
  if (!r) return;
  EXPECT_EQ(r->revision(), rev);
  EXPECT_EQ(r->writer_ranks(), writers) << "revision " << rev;
  for (int ns = 0; ns < writers; ns++) {
    ReadOptions ro;
    ro.rank = ns;
    for (int j = 0; j < kKeys; j++) {
      std::string v;
      Status st = r->Get("k" + std::to_string(j), &v, ro);
      EXPECT_TRUE(st.ok()) << "revision " << rev << " namespace " << ns << " k" << j << ": " << st.ToString();
      if (st.ok()) { EXPECT_TRUE(v == Value(rev, ns, j)) << "revision " << rev << " namespace " << ns << " k" << j
                                          << ": other bytes"; }
    }
  }
  ReadOptions sh;
  sh.rank = ReadOptions::kShared;
  std::string v;
  Status st = r->Get("sh", &v, sh);
  EXPECT_TRUE(st.ok()) << "revision " << rev << " shared: " << st.ToString();
  if (st.ok()) { EXPECT_EQ(v, Shared(rev)); }
  EXPECT_TRUE(r->Close().ok());
}

// The retained revisions, with "*" after pinned ones.
std::string Listed(Store* s) {
  std::vector<RevisionInfo> ri;
  EXPECT_TRUE(s->ListRevisions(&ri).ok());
  std::string out;
  for (const RevisionInfo& i : ri) out += std::to_string(i.revision) + (i.pinned ? "* " : " ");
  return out;
}

uint64_t ManifestInode(const std::string& path) {
  struct stat st;
  return ::stat((path + "/MANIFEST").c_str(), &st) == 0 ? uint64_t(st.st_ino) : 0;
}

// Commits revisions first..last on `s`, dropping each once the next is
// committed (but `first`, which stays); true if the manifest was compacted
// meanwhile (its inode changed, seen by the caller's rank 0).
bool CommitAndDrop(Store* s, const std::string& path, uint64_t first, uint64_t last) {
  uint64_t inode = ManifestInode(path);
  bool compacted = false;
  for (uint64_t rev = first; rev <= last; rev++) {
    CommitRevision(s, rev);
    if (::testing::Test::HasFatalFailure()) return false;
    if (rev > first + 1) { EXPECT_TRUE(s->Drop(rev - 1).ok()) << rev - 1; }
    uint64_t now = ManifestInode(path);
    compacted = compacted || now != inode;
    inode = now;
  }
  return compacted;
}

class CompactResize : public MpiDirTest {};

TEST_F(CompactResize, KeptRevisionsOfEveryRankCountReadBackAfterCompactions) {
  setenv("CAIRN_MANIFEST_COMPACT_BYTES", "512", 1);  // read at this process's first commit
  const int size = Size(), rank = Rank();
  const int half = size > 1 ? size / 2 : 1;
  const int three = size >= 4 ? 3 : size > 1 ? size - 1 : 1;
  MPI_Comm first, second, one;
  MPI_Comm_split(MPI_COMM_WORLD, rank < half ? 0 : MPI_UNDEFINED, rank, &first);
  MPI_Comm_split(MPI_COMM_WORLD, rank < three ? 0 : MPI_UNDEFINED, rank, &second);
  MPI_Comm_split(MPI_COMM_WORLD, rank == 0 ? 0 : MPI_UNDEFINED, rank, &one);
  // Every kept revision and how many ranks wrote it.
  std::map<uint64_t, int> kept;
  auto expect_kept = [&](MPI_Comm comm) {
    if (comm == MPI_COMM_NULL) return;
    for (auto [rev, writers] : kept) ExpectRevision(comm, Path(), rev, writers);
  };

  if (first != MPI_COMM_NULL) {
    auto s = OpenOn(first, Opt(), Path());
    ASSERT_TRUE(s);
    for (uint64_t rev = 1; rev <= 6; rev++) ASSERT_NO_FATAL_FAILURE(CommitRevision(s.get(), rev));
    ASSERT_TRUE(s->Pin(2).ok());
    EXPECT_EQ(Listed(s.get()), "1 2* 3 4 5 6 ");
    ASSERT_TRUE(s->Close().ok());
  }
  MPI_Barrier(MPI_COMM_WORLD);
  for (uint64_t rev : {2, 4, 5, 6}) kept[rev] = half;

  {
    // All ranks: revisions 1 and 3 dropped, 7-36 committed and dropped as
    // they are replaced (7 stays); compactions with half-rank records kept.
    auto s = OpenOn(MPI_COMM_WORLD, Opt(), Path());
    ASSERT_TRUE(s);
    EXPECT_EQ(s->writer_ranks(), half);
    ASSERT_TRUE(s->Drop(1).ok());
    ASSERT_TRUE(s->Drop(3).ok());
    bool compacted = CommitAndDrop(s.get(), Path(), 7, 36);
    ASSERT_FALSE(HasFatalFailure());
    if (rank == 0) { EXPECT_TRUE(compacted) << "no compaction in 30 commits with a 512-byte threshold"; }
    EXPECT_EQ(Listed(s.get()), "2* 4 5 6 7 36 ");
    ASSERT_TRUE(s->Close().ok());
  }
  kept[7] = kept[36] = size;
  MPI_Barrier(MPI_COMM_WORLD);
  expect_kept(one);
  MPI_Barrier(MPI_COMM_WORLD);

  if (second != MPI_COMM_NULL) {
    // Three ranks (of 4): read everything, then 20 more revisions the same way.
    expect_kept(second);
    auto s = OpenOn(second, Opt(), Path());
    ASSERT_TRUE(s);
    EXPECT_EQ(s->writer_ranks(), size);
    bool compacted = CommitAndDrop(s.get(), Path(), 37, 56);
    ASSERT_FALSE(HasFatalFailure());
    if (rank == 0) { EXPECT_TRUE(compacted) << "no compaction in 20 commits with a 512-byte threshold"; }
    EXPECT_EQ(Listed(s.get()), "2* 4 5 6 7 36 37 56 ");
    ASSERT_TRUE(s->Close().ok());
  }
  kept[37] = kept[56] = three;
  MPI_Barrier(MPI_COMM_WORLD);
  expect_kept(one);
  MPI_Barrier(MPI_COMM_WORLD);
  // And on all ranks, the pinned revision among them.
  expect_kept(MPI_COMM_WORLD);
  for (MPI_Comm* c : {&first, &second, &one})
    if (*c != MPI_COMM_NULL) MPI_Comm_free(c);
  unsetenv("CAIRN_MANIFEST_COMPACT_BYTES");
}

}  // namespace
}  // namespace cairn::test

CAIRN_MPI_TEST_MAIN
