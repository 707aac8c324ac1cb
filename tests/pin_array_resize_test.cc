// Pinned revisions against global arrays and other rank counts
// (doc/interactions.md, `pin` x `array` and `pin` x `resize`), at 1, 2 and
// 4 ranks: revision 1 holds two global arrays (one rewritten in every later
// revision, one carried unchanged) and is pinned; eight more revisions with
// keep 1 rewrite the first array, so every extent not pinned is reused;
// then the store is reopened for writing on half the ranks (2 -> 1, 4 -> 2;
// 1 rank stays 1), which put the arrays again with another decomposition
// for six revisions with keep 1, and on all ranks again. Revision 1 must
// read back exactly, on every rank count, after all of it; after Unpin the
// next commit expires it and its number can no longer be opened.
#include <gtest/gtest.h>
#include <mpi.h>

#include <string>
#include <vector>

#include "cairn/array.h"
#include "cairn/store.h"
#include "mpi_main.h"
#include "store_test_util.h"
#include "two_arrays.h"

namespace cairn::test {
namespace {

const uint64_t kN = 48000;  // elements of each array (384 KB of float64)

std::unique_ptr<Store> OpenAt(MPI_Comm comm, const std::string& path, uint64_t rev, bool read_only,
                              uint64_t keep = 1) {
  Options o = SmallUnsyncedOptions();
  o.read_only = read_only;
  o.revision = rev;
  o.keep_revisions = keep;
  std::unique_ptr<Store> s;
  Status st = Store::Open(o, path, comm, &s);
  EXPECT_TRUE(st.ok()) << st.ToString();
  return s;
}

class PinArrayResize : public MpiDirTest {};

TEST_F(PinArrayResize, PinnedRevisionOfArraysSurvivesRetentionAndResize) {
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const int half = size > 1 ? size / 2 : 1;
  MPI_Comm sub;
  MPI_Comm_split(MPI_COMM_WORLD, rank < half ? 0 : MPI_UNDEFINED, rank, &sub);
  {
    auto s = OpenAt(MPI_COMM_WORLD, Path(), 0, false);
    ASSERT_TRUE(s);
    ASSERT_NO_FATAL_FAILURE(PutArrays(s.get(), kN, 1, true));
    uint64_t got = 0;
    ASSERT_TRUE(s->Commit(&got).ok());
    ASSERT_EQ(got, 1u);
    ASSERT_TRUE(s->Pin(1).ok());
    for (int gen = 2; gen <= 9; gen++) {  // revisions 2-9: "a" rewritten, "b" carried; keep 1
      ASSERT_NO_FATAL_FAILURE(PutArrays(s.get(), kN, gen, false));
      ASSERT_TRUE(s->Commit().ok());
    }
    EXPECT_NO_FATAL_FAILURE(ExpectArrays(s.get(), kN, 9, 1));
    ASSERT_TRUE(s->Close().ok());
  }
  {
    auto r = OpenAt(MPI_COMM_WORLD, Path(), 1, true);
    ASSERT_TRUE(r);
    EXPECT_NO_FATAL_FAILURE(ExpectArrays(r.get(), kN, 1, 1));
    std::vector<RevisionInfo> revs;
    ASSERT_TRUE(r->ListRevisions(&revs).ok());
    ASSERT_EQ(revs.size(), 2u) << "keep 1 and a pin: revisions 1 and 9";
  }
  if (sub != MPI_COMM_NULL) {
    // Half the ranks: another decomposition of both arrays, six revisions
    // with keep 1, reading the pinned revision at this rank count between.
    auto s = OpenAt(sub, Path(), 0, false);
    ASSERT_TRUE(s);
    EXPECT_EQ(s->writer_ranks(), size);
    for (int gen = 10; gen <= 15; gen++) {
      ASSERT_NO_FATAL_FAILURE(PutArrays(s.get(), kN, gen, gen == 10));
      ASSERT_TRUE(s->Commit().ok());  // 10-15
      if (gen == 12) {
        auto r = OpenAt(sub, Path(), 1, true);
        ASSERT_TRUE(r);
        EXPECT_NO_FATAL_FAILURE(ExpectArrays(r.get(), kN, 1, 1));
      }
    }
    EXPECT_NO_FATAL_FAILURE(ExpectArrays(s.get(), kN, 15, 10));
    ASSERT_TRUE(s->Close().ok());
  }
  MPI_Barrier(MPI_COMM_WORLD);
  {
    // All ranks again: three more revisions, then the pinned one read.
    auto s = OpenAt(MPI_COMM_WORLD, Path(), 0, false);
    ASSERT_TRUE(s);
    EXPECT_EQ(s->writer_ranks(), half);
    EXPECT_NO_FATAL_FAILURE(ExpectArrays(s.get(), kN, 15, 10));
    for (int gen = 16; gen <= 18; gen++) {
      ASSERT_NO_FATAL_FAILURE(PutArrays(s.get(), kN, gen, false));
      ASSERT_TRUE(s->Commit().ok());  // 16-18
    }
    auto r = OpenAt(MPI_COMM_WORLD, Path(), 1, true);
    ASSERT_TRUE(r);
    EXPECT_EQ(r->writer_ranks(), size);
    EXPECT_NO_FATAL_FAILURE(ExpectArrays(r.get(), kN, 1, 1));
    r.reset();
    // Unpinned, revision 1 expires at the next commit.
    ASSERT_TRUE(s->Unpin(1).ok());
    ASSERT_NO_FATAL_FAILURE(PutArrays(s.get(), kN, 19, false));
    uint64_t got = 0;
    ASSERT_TRUE(s->Commit(&got).ok());
    EXPECT_EQ(got, 19u);
    EXPECT_NO_FATAL_FAILURE(ExpectArrays(s.get(), kN, 19, 10));
    ASSERT_TRUE(s->Close().ok());
  }
  Options o = SmallUnsyncedOptions();
  o.read_only = true;
  o.revision = 1;
  std::unique_ptr<Store> gone;
  Status st = Store::Open(o, Path(), MPI_COMM_WORLD, &gone);
  EXPECT_FALSE(st.ok()) << "revision 1 still opens after Unpin and a commit with keep 1";
  if (sub != MPI_COMM_NULL) MPI_Comm_free(&sub);
}

}  // namespace
}  // namespace cairn::test

CAIRN_MPI_TEST_MAIN
