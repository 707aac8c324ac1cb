// Retention under mpiexec (1, 2 and 4 ranks): keep_revisions across ranks
// sharing a data file, collective Pin/Drop, reuse bounded, values of every
// retained revision intact on every rank, and with several data files.
#include <gtest/gtest.h>
#include <mpi.h>

#include <filesystem>

#include "cairn/store.h"
#include "mpi_main.h"
#include "test_util.h"

namespace cairn {
namespace {

using test::Rank;

using test::Pattern;


class MpiRetention : public ::testing::Test {
 public:
  void SetUp() override { dir_ = test::SharedTempDir(MPI_COMM_WORLD); }
  void TearDown() override {
    MPI_Barrier(MPI_COMM_WORLD);
    if (Rank() == 0) std::filesystem::remove_all(dir_);
  }
  std::string Path() const { return dir_ + "/store"; }
  static Options Small(uint64_t keep) {
    Options o;
    o.extent_size = 64 * 1024;
    o.chunk_size = 16 * 1024;
    o.write_buffer_size = 32 * 1024;
    o.inline_value_limit = 64;
    o.keep_revisions = keep;
    o.sync = false;
    return o;
  }
  std::unique_ptr<Store> Open(Options o) {
    std::unique_ptr<Store> s;
    Status st = Store::Open(o, Path(), MPI_COMM_WORLD, &s);
    EXPECT_TRUE(st.ok()) << st.ToString();
    return s;
  }
  uint64_t DataBytes() { return test::DataFileBytes(Path()); }
  std::string dir_;
};

std::string Hot(int rank, uint64_t rev) { return Pattern(rev * 100 + rank, 40000 + 9000 * ((rev + rank) % 5)); }

void RunCycles(MpiRetention* t, Options o, int cycles, uint64_t* size_mid, uint64_t* size_end,
               std::vector<uint64_t>* kept) {
  int me = Rank();
  std::unique_ptr<Store> s;
  ASSERT_TRUE(Store::Open(o, t->Path(), MPI_COMM_WORLD, &s).ok());
  ASSERT_TRUE(s->Put("static", Pattern(me + 5, 70000)).ok());
  for (int c = 1; c <= cycles; c++) {
    ASSERT_TRUE(s->Put("hot", Hot(me, uint64_t(c))).ok());
    if (me == 0) {
      ASSERT_TRUE(s->PutShared("meta", Pattern(c, 20000)).ok());
    }
    uint64_t rev;
    ASSERT_TRUE(s->Commit(&rev).ok());
    ASSERT_EQ(rev, uint64_t(c));
    if (c == 5) {
      ASSERT_TRUE(s->Pin(5).ok());
    }
    if (c == cycles / 2) *size_mid = t->DataBytes();
  }
  *size_end = t->DataBytes();
  std::vector<RevisionInfo> ri;
  s->ListRevisions(&ri);
  kept->clear();
  for (auto& r : ri) kept->push_back(r.revision);
  ASSERT_TRUE(s->Close().ok());
  // Every retained revision, every rank's objects, read by every rank.
  int n;
  MPI_Comm_size(MPI_COMM_WORLD, &n);
  for (uint64_t rev : *kept) {
    Options ro = o;
    ro.read_only = true;
    ro.revision = rev;
    std::unique_ptr<Store> r;
    ASSERT_TRUE(Store::Open(ro, t->Path(), MPI_COMM_WORLD, &r).ok());
    for (int k = 0; k < n; k++) {
      ReadOptions rd;
      rd.rank = k;
      std::string v;
      ASSERT_TRUE(r->Get("hot", &v, rd).ok()) << "revision " << rev << " rank " << k;
      EXPECT_EQ(v, Hot(k, rev)) << "revision " << rev << " rank " << k;
      ASSERT_TRUE(r->Get("static", &v, rd).ok());
      EXPECT_EQ(v, Pattern(k + 5, 70000));
    }
    std::string m;
    ASSERT_TRUE(r->GetShared("meta", &m).ok());
    EXPECT_EQ(m, Pattern(rev, 20000));
    ASSERT_TRUE(r->Close().ok());
  }
}

TEST_F(MpiRetention, KeepTwoReusesSpaceAndKeepsRetainedRevisionsIntact) {
  uint64_t mid = 0, end = 0;
  std::vector<uint64_t> kept;
  RunCycles(this, Small(2), 80, &mid, &end, &kept);
  EXPECT_EQ(kept, (std::vector<uint64_t>{5, 79, 80}));
  EXPECT_LE(end, mid + 2 * 64 * 1024) << "the data files kept growing";
}

TEST_F(MpiRetention, SeveralDataFiles) {
  Options o = Small(1);
  o.subfiles = 2;
  uint64_t mid = 0, end = 0;
  std::vector<uint64_t> kept;
  // 120 cycles, measured at 60 and 120: at cycle 30 the files still fill
  // up to their level (the pinned revision, the ranks' peak needs), and
  // where cycle 30 falls in that climb decided the test (np4: 2.16 or 2.23
  // MB at cycle 30, 2.36 MB at 60, 2.42-2.49 MB at 150, before and after
  // the split by deficit of async_commit_test
  // SharedDataFileLevelsOffWithPutsStreamsAndArraysInFlight).
  RunCycles(this, o, 120, &mid, &end, &kept);
  EXPECT_EQ(kept, (std::vector<uint64_t>{5, 120}));
  EXPECT_LE(end, mid + 2 * 64 * 1024);
}

// Ranks that trade sizes in phases (every 100 commits rank 0 puts 600 KB
// and the others 50 KB, then the other way round) on one shared data file,
// synchronous commits. Free extents are split by each rank's recent peak
// need; with that peak decaying by 1/16 per commit, a rank forgot within
// a phase that it had needed 600 KB, got a slice sized for 50 KB when its
// size jumped back, and extended the file at every switch while the space
// sat in the others' slices: 2 ranks 4.76 MB after 600 commits, 6.19 MB
// after 1,200; 4 ranks 8.78 and 10.30 MB, still growing at 20,000
// commits. Decaying by 1/1024 per commit, the peaks outlive such phases
// and the file stays level (2.88 and 6.75-6.82 MB).
TEST_F(MpiRetention, SharedDataFileLevelsOffWhenRanksTradeSizes) {
  Options o = test::SharedFileSpaceOptions();
  o.create_if_missing = true;
  std::unique_ptr<Store> s;
  ASSERT_TRUE(Store::Open(o, Path(), MPI_COMM_WORLD, &s).ok());
  const uint64_t me = uint64_t(Rank());
  const int kPhase = 100, kCommits = 1200, kWarm = 600;
  uint64_t at_warm = 0;
  std::string v;
  for (int i = 1; i <= kCommits; i++) {
    size_t k = ((i / kPhase) % 2 == 0) == (me == 0) ? 600000 : 50000;
    v = Pattern(me * 100000 + uint64_t(i), k);
    ASSERT_TRUE(s->Put("k", v).ok());
    ASSERT_TRUE(s->Commit().ok());
    if (i == kWarm) at_warm = test::DataFileBytesBetweenBarriers(Path());
  }
  uint64_t at_end = test::DataFileBytesBetweenBarriers(Path());
  const uint64_t n = uint64_t(test::Size());
  EXPECT_LE(at_end, at_warm + 4 * o.extent_size * n)
      << "the data file grew from " << at_warm << " bytes after " << kWarm << " commits to " << at_end << " after "
      << kCommits;
  std::string got;
  ASSERT_TRUE(s->Get("k", &got).ok());
  EXPECT_TRUE(got == v);
}

// Each data file has its own extent counter: with two files, every rank's
// first run lies right after its own file's header reserve and its file's
// earlier runs, whatever the other file's ranks took. It failed under
// MPICH 4.0 at 4 ranks (the ranks that host no counter gave the window
// size 0, and MPICH then sent every file's fetch-and-add to one counter).
TEST_F(MpiRetention, SeparateCountersPerDataFile) {
  int n;
  MPI_Comm_size(MPI_COMM_WORLD, &n);
  Options o = Small(0);
  o.subfiles = 2;
  auto s = Open(o);
  ASSERT_TRUE(s->Put("v", Pattern(Rank(), 1000)).ok());  // one run of one extent per rank
  ASSERT_TRUE(s->Commit().ok());
  MPI_Barrier(MPI_COMM_WORLD);
  int files = std::min(2, n);
  for (int f = 0; f < files; f++) {
    int ranks_here = 0;  // ranks r with r * files / n == f (store.cc's rule)
    for (int r = 0; r < n; r++) ranks_here += r * files / n == f;
    char name[32];
    std::snprintf(name, sizeof name, "data.%05d", f);
    uint64_t size = std::filesystem::file_size(Path() + "/" + name);
    EXPECT_LE(size, uint64_t(1 + ranks_here) * o.extent_size)
        << name << ": its " << ranks_here << " ranks took runs past what they wrote";
  }
  ASSERT_TRUE(s->Close().ok());
}

TEST_F(MpiRetention, CollectiveDropAndPinAgreeOnEveryRank) {
  int n;
  MPI_Comm_size(MPI_COMM_WORLD, &n);
  auto s = Open(Small(0));
  const size_t kSize = 200000;  // about 3 extents per rank per revision
  for (int c = 1; c <= 4; c++) {
    ASSERT_TRUE(s->Put("x", Pattern(c, kSize)).ok());
    ASSERT_TRUE(s->Commit().ok());
  }
  ASSERT_TRUE(s->Pin(2).ok());
  Status st = s->Drop(2);
  EXPECT_TRUE(st.IsInvalidArgument()) << st.ToString();
  ASSERT_TRUE(s->Drop(1).ok());
  ASSERT_TRUE(s->Drop(3).ok());
  std::vector<RevisionInfo> ri;
  s->ListRevisions(&ri);
  ASSERT_EQ(ri.size(), 2u);
  EXPECT_EQ(ri[0].revision, 2u);
  EXPECT_TRUE(ri[0].pinned);
  EXPECT_EQ(ri[1].revision, 4u);
  // The first commit after the drops still writes where each rank was sent
  // at the commit before them; the one after it reuses the dropped space.
  ASSERT_TRUE(s->Put("x", Pattern(5, kSize)).ok());
  ASSERT_TRUE(s->Commit().ok());
  MPI_Barrier(MPI_COMM_WORLD);
  uint64_t before = DataBytes();
  ASSERT_TRUE(s->Put("x", Pattern(6, kSize)).ok());
  ASSERT_TRUE(s->Commit().ok());
  MPI_Barrier(MPI_COMM_WORLD);
  EXPECT_LT(DataBytes(), before + uint64_t(n) * kSize / 2) << "revision 6 did not reuse dropped space";
  std::string v;
  ASSERT_TRUE(s->Get("x", &v).ok());
  EXPECT_EQ(v, Pattern(6, kSize));
  ASSERT_TRUE(s->Close().ok());
  for (uint64_t rev : {2, 4, 5, 6}) {
    Options ro = Small(0);
    ro.read_only = true;
    ro.revision = rev;
    auto r = Open(ro);
    ASSERT_TRUE(r->Get("x", &v).ok());
    EXPECT_EQ(v, Pattern(rev, kSize)) << "revision " << rev;
  }
}

}  // namespace
}  // namespace cairn

CAIRN_MPI_TEST_MAIN
