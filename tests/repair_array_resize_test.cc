// `cairn repair` against global arrays and other rank counts
// (doc/interactions.md, `repair` x `array` and `repair` x `resize`), at 1,
// 2 and 4 ranks: revisions 1-3 are written by all ranks (array "a"
// rewritten each time, "b" put once and carried), revisions 4-5 by half of
// them with another decomposition; revision 2's MANIFEST record (a middle
// one) is damaged and RepairManifest run on rank 0. Then every retained
// revision (1, 3, 4, 5) must read back exactly through GetArray on 1, half
// and all ranks, say which rank count wrote it, and a writer on yet another
// rank count (3 of 4; 2 of 2; 1 of 1) must commit and read back.
#include <gtest/gtest.h>
#include <mpi.h>

#include <set>
#include <string>
#include <vector>

#include "cairn/array.h"
#include "cairn/store.h"
#include "manifest_test_util.h"
#include "mpi_main.h"
#include "store_test_util.h"
#include "store/repair.h"
#include "test_util.h"
#include "two_arrays.h"

namespace cairn::test {
namespace {

Options Small() {
  Options o = SmallUnsyncedOptions();
  o.keep_revisions = 10;
  return o;
}

const uint64_t kN = 30000;  // elements of each array (240 KB of float64)

std::unique_ptr<Store> OpenAt(MPI_Comm comm, const std::string& path, uint64_t rev, bool read_only) {
  Options o = Small();
  o.read_only = read_only;
  o.create_if_missing = !read_only;
  o.revision = rev;
  std::unique_ptr<Store> s;
  Status st = Store::Open(o, path, comm, &s);
  EXPECT_TRUE(st.ok()) << st.ToString();
  return s;
}

// The ranks below `n` of MPI_COMM_WORLD (MPI_COMM_NULL on the others).
MPI_Comm FirstRanks(int n) {
  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm c;
  MPI_Comm_split(MPI_COMM_WORLD, rank < n ? 0 : MPI_UNDEFINED, rank, &c);
  return c;
}

class RepairArrayResize : public MpiDirTest {};

TEST_F(RepairArrayResize, RepairedStoreOfArraysWrittenAtTwoRankCountsReadsBackAndWritesOn) {
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const int half = size > 1 ? size / 2 : 1;
  const int other = size == 4 ? 3 : size;  // the rank count of the writer after repair
  {
    auto s = OpenAt(MPI_COMM_WORLD, Path(), 0, false);
    ASSERT_TRUE(s);
    for (int gen = 1; gen <= 3; gen++) {  // revisions 1-3 on all ranks
      ASSERT_NO_FATAL_FAILURE(PutArrays(s.get(), kN, gen, gen == 1));
      uint64_t got = 0;
      ASSERT_TRUE(s->Commit(&got).ok());
      ASSERT_EQ(got, uint64_t(gen));
    }
    ASSERT_TRUE(s->Close().ok());
  }
  MPI_Comm h = FirstRanks(half);
  if (h != MPI_COMM_NULL) {  // revisions 4-5 on half the ranks, another split
    auto s = OpenAt(h, Path(), 0, false);
    ASSERT_TRUE(s);
    EXPECT_EQ(s->writer_ranks(), size);
    for (int gen = 4; gen <= 5; gen++) {
      ASSERT_NO_FATAL_FAILURE(PutArrays(s.get(), kN, gen, gen == 4, 13));
      uint64_t got = 0;
      ASSERT_TRUE(s->Commit(&got).ok());
      ASSERT_EQ(got, uint64_t(gen));
    }
    ASSERT_TRUE(s->Close().ok());
    MPI_Comm_free(&h);
  }
  MPI_Barrier(MPI_COMM_WORLD);

  // Damage revision 2's record, repair on one process.
  int repaired = 0;
  if (rank == 0) {
    std::string man = Path() + "/MANIFEST";
    uint64_t at = RecordOf(Records(Slurp(man)), 2, 2);
    FlipByte(man, at + 40, 0x04);
    RepairReport rep;
    Status st = RepairManifest(Path(), &rep);
    EXPECT_TRUE(st.ok()) << st.ToString();
    EXPECT_TRUE(rep.changed);
    EXPECT_EQ(rep.dropped.size(), 1u);
    EXPECT_EQ(rep.retained, (std::vector<uint64_t>{1, 3, 4, 5}));
    repaired = st.ok() && rep.changed;
  }
  MPI_Bcast(&repaired, 1, MPI_INT, 0, MPI_COMM_WORLD);
  ASSERT_TRUE(repaired);

  // Every retained revision, read on 1, half and all ranks: "a" of its own
  // generation, "b" of the generation that last put it.
  struct Want { uint64_t rev; int a, b, writers; };
  const std::vector<Want> wants = {{1, 1, 1, size}, {3, 3, 1, size}, {4, 4, 4, half}, {5, 5, 4, half}};
  for (int n : std::set<int>{1, half, size}) {
    MPI_Comm c = FirstRanks(n);
    if (c == MPI_COMM_NULL) continue;
    for (const Want& w : wants) {
      SCOPED_TRACE("revision " + std::to_string(w.rev) + " on " + std::to_string(n) + " ranks");
      auto r = OpenAt(c, Path(), w.rev, true);
      ASSERT_TRUE(r);
      EXPECT_EQ(r->revision(), w.rev);
      EXPECT_EQ(r->writer_ranks(), w.writers);
      EXPECT_NO_FATAL_FAILURE(ExpectArrays(r.get(), kN, w.a, w.b));
    }
    Options o = Small();
    o.read_only = true;
    o.revision = 2;
    std::unique_ptr<Store> lost;
    EXPECT_FALSE(Store::Open(o, Path(), c, &lost).ok()) << "revision 2's record was damaged, yet it opens";
    MPI_Comm_free(&c);
  }
  MPI_Barrier(MPI_COMM_WORLD);

  // A writer on yet another rank count continues from revision 5.
  MPI_Comm w = FirstRanks(other);
  if (w != MPI_COMM_NULL) {
    auto s = OpenAt(w, Path(), 0, false);
    ASSERT_TRUE(s);
    EXPECT_EQ(s->revision(), 5u);
    EXPECT_EQ(s->writer_ranks(), half);
    EXPECT_NO_FATAL_FAILURE(ExpectArrays(s.get(), kN, 5, 4));
    ASSERT_NO_FATAL_FAILURE(PutArrays(s.get(), kN, 6, false, 7));
    uint64_t got = 0;
    Status st = s->Commit(&got);
    ASSERT_TRUE(st.ok()) << st.ToString();
    EXPECT_EQ(got, 6u);
    EXPECT_NO_FATAL_FAILURE(ExpectArrays(s.get(), kN, 6, 4));
    ASSERT_TRUE(s->Close().ok());
    MPI_Comm_free(&w);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  auto r = OpenAt(MPI_COMM_WORLD, Path(), 0, true);
  ASSERT_TRUE(r);
  EXPECT_EQ(r->revision(), 6u);
  EXPECT_EQ(r->writer_ranks(), other);
  EXPECT_NO_FATAL_FAILURE(ExpectArrays(r.get(), kN, 6, 4));
  r.reset();
  auto r1 = OpenAt(MPI_COMM_WORLD, Path(), 1, true);
  ASSERT_TRUE(r1);
  EXPECT_NO_FATAL_FAILURE(ExpectArrays(r1.get(), kN, 1, 1));
}

}  // namespace
}  // namespace cairn::test

CAIRN_MPI_TEST_MAIN
