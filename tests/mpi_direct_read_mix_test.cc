// Direct reads (CAIRN_DIRECT_READ_BYTES) across ranks, under mpiexec with
// 1, 2 and 4 ranks: each rank reads the namespace of the next rank, whose
// data file that rank writes, with keep_revisions 1 reusing the extents of
// expired revisions, synchronous or staged and asynchronous commits, and
// reads made while an asynchronous commit is in flight (the other ranks
// then writing into their files). Every read returns exactly the bytes of
// the revision it reads, never Corruption; bytes only on the device are
// read directly, bytes another rank just wrote (in the node's page cache)
// are not. direct_read_mix_test has the single-process cases.
#include <gtest/gtest.h>
#include <mpi.h>

#include <cstdio>
#include <map>
#include <string>

#include "cairn/store.h"
#include "direct_mix.h"
#include "mpi_main.h"

namespace cairn {
namespace {

using test::kMixBytes;
using test::MixOffsets;
using test::MixWant;
using test::Rank;
using test::ReadMix;
using test::Size;

// Whether clean pages can be dropped where the store lives (rank 0 asks,
// all learn it: the probe is one file).
bool AllDropCleanPages(const std::string& dir) {
  int ok = Rank() == 0 ? int(test::DropsCleanPages(dir)) : 0;
  MPI_Bcast(&ok, 1, MPI_INT, 0, MPI_COMM_WORLD);
  return ok != 0;
}

class MpiDirectReadMix : public test::MpiDirTest, public ::testing::WithParamInterface<bool> {
 protected:
  bool async() const { return GetParam(); }
  std::string MyFile() const {
    char name[32];
    std::snprintf(name, sizeof name, "/data.%05d", Rank());
    return Path() + name;
  }
  // Every rank makes its own data file durable and drops it from the page
  // cache, with no rank writing meanwhile.
  void DropAll() {
    MPI_Barrier(MPI_COMM_WORLD);
    test::DropFile(MyFile());
    MPI_Barrier(MPI_COMM_WORLD);
  }
  void CommitMix(Store* s) {
    Status st;
    if (async()) {
      AsyncCommit h;
      st = s->CommitAsync(&h);
      if (st.ok()) st = h.Wait();
    } else {
      st = s->Commit();
    }
    ASSERT_TRUE(st.ok()) << st.ToString();
  }
};

// A, then revisions in new space whose commits expire A, then C put into
// A's extents (the third revision with synchronous commits; the fourth
// with asynchronous ones, whose commits hold an expiring parent's extents
// one commit longer). Each rank reads the next rank's revision before C
// cold (directly), then C just written (through the cache), then C cold
// (directly). Asynchronous, on more than one rank: rank 0's revision
// before C is read by the others while C's commit is in flight for them
// and finished for rank 0, which puts more meanwhile; it must come back
// whole (an asynchronous commit holds the extents of the parent it
// expires until the next commit: retention.h HoldExpiringParent).
TEST_P(MpiDirectReadMix, EachRankReadsTheNextRanksValuesAfterReuse) {
  if (!AllDropCleanPages(dir_)) GTEST_SKIP() << "this file system keeps clean pages cached: nothing is cold";
  const int me = Rank(), next = (me + 1) % Size();
  const int reuse = async() ? 4 : 3;
  ReadOptions theirs;
  theirs.rank = next;
  test::DirectEnv env;
  std::unique_ptr<Store> s;
  // Staged writes with asynchronous commits; one data file per rank.
  Status st = Store::Open(test::MixOptions(true, async(), Size()), Path(), MPI_COMM_WORLD, &s);
  ASSERT_TRUE(st.ok()) << st.ToString();

  test::PutMix(s.get(), uint32_t(me), me, 1);
  CommitMix(s.get());
  const std::vector<uint64_t> a_at = MixOffsets(MyFile(), MixWant(me, 1));
  for (int rev = 2; rev < reuse; rev++) {
    test::PutMix(s.get(), uint32_t(me), me, rev);
    CommitMix(s.get());
  }
  DropAll();
  const auto before = MixWant(next, reuse - 1);
  test::ExpectDirect(ReadMix(s.get(), before, theirs), kMixBytes, "the next rank's revision before C, cold");

  test::PutMix(s.get(), uint32_t(me), me, reuse);
  if (async()) {
    AsyncCommit h;
    ASSERT_TRUE(s->CommitAsync(&h).ok());
    ASSERT_TRUE(s->Put("late", test::MixValue(me, 9, 0)).ok());  // for the next revision
    if (Size() == 1) {
      // In flight: the one namespace shows the revision in flight.
      ReadMix(s.get(), MixWant(me, reuse));
      h.Test();
      ReadMix(s.get(), MixWant(me, reuse));
      st = h.Wait();
      ASSERT_TRUE(st.ok()) << st.ToString();
    } else if (me == 0) {
      // Rank 0 finishes first, once the others have agreed (it sends the
      // outcome only from its Wait), and puts more: its writer takes the
      // extents the commit freed, not those of the revision before C,
      // which the other ranks still show. Then it tells them.
      for (int r = 1; r < Size(); r++) MPI_Recv(nullptr, 0, MPI_INT, r, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      st = h.Wait();
      ASSERT_TRUE(st.ok()) << st.ToString();
      std::map<std::string, std::string> more;
      for (int i = 0; i < test::kMixKeys; i++) more["d" + std::to_string(i)] = test::MixValue(0, 10, i);
      for (const auto& [k, v] : more) ASSERT_TRUE(s->Put(k, v).ok());
      ReadMix(s.get(), more);  // (written: a read of this rank's own values drains its writes)
      for (int r = 1; r < Size(); r++) MPI_Send(nullptr, 0, MPI_INT, r, 1, MPI_COMM_WORLD);
    } else {
      // The other ranks take their part of the commit up to the agreement
      // (each read of their own values drains their writes and the fsync
      // a Test queued; a Test moves on) and cannot see its outcome, which
      // rank 0 sends only from its Wait, after this: their view stays at
      // the revision before C while rank 0 finishes and puts more. Rank
      // 0's values of that revision, read then (directly: they were
      // dropped), are whole.
      for (int k = 0; k < 4; k++) {
        ReadMix(s.get(), MixWant(me, reuse));
        ASSERT_FALSE(h.Test()) << "the commit finished without rank 0";
      }
      MPI_Send(nullptr, 0, MPI_INT, 0, 0, MPI_COMM_WORLD);
      MPI_Recv(nullptr, 0, MPI_INT, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      ReadOptions zero;
      zero.rank = 0;
      test::ExpectDirect(ReadMix(s.get(), MixWant(0, reuse - 1), zero), kMixBytes,
                         "rank 0's revision before C, read while rank 0 puts after its commit");
      st = h.Wait();
      ASSERT_TRUE(st.ok()) << st.ToString();
    }
  } else {
    ASSERT_TRUE(s->Commit().ok());
  }
  MPI_Barrier(MPI_COMM_WORLD);
  EXPECT_EQ(MixOffsets(MyFile(), MixWant(me, reuse)), a_at) << "C was not put into A's extents";
  test::ExpectCached(ReadMix(s.get(), MixWant(next, reuse), theirs), "the next rank's C, just written");
  DropAll();
  test::ExpectDirect(ReadMix(s.get(), MixWant(next, reuse), theirs), kMixBytes, "the next rank's C, cold");
  if (async()) {
    ASSERT_TRUE(s->Commit().ok());  // "late" joins C
    MPI_Barrier(MPI_COMM_WORLD);
    ReadMix(s.get(), {{"late", test::MixValue(next, 9, 0)}}, theirs);  // (cold or not: put before DropAll)
  }
  ASSERT_TRUE(s->Close().ok());
}

INSTANTIATE_TEST_SUITE_P(SyncOrStagedAsync, MpiDirectReadMix, ::testing::Bool());

}  // namespace
}  // namespace cairn

CAIRN_MPI_TEST_MAIN
