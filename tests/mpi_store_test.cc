// Collective store behaviour under mpiexec (run with 1, 2 and 4 ranks).
#include <gtest/gtest.h>
#include <mpi.h>

#include <algorithm>
#include <filesystem>

#include "cairn/store.h"
#include "io/fs_layout.h"
#include "mpi_main.h"
#include "test_util.h"

namespace cairn {
namespace {

using test::Rank;
using test::Size;

using test::Pattern;

uint64_t Sum(uint64_t v) {
  uint64_t out;
  MPI_Allreduce(&v, &out, 1, MPI_UINT64_T, MPI_SUM, MPI_COMM_WORLD);
  return out;
}

class MpiStore : public ::testing::Test {
 protected:
  void SetUp() override { dir_ = test::SharedTempDir(MPI_COMM_WORLD); }
  void TearDown() override {
    MPI_Barrier(MPI_COMM_WORLD);
    if (Rank() == 0) std::filesystem::remove_all(dir_);
  }
  std::string Path() const { return dir_ + "/store"; }
  std::unique_ptr<Store> Open(Options o = Small()) {
    std::unique_ptr<Store> s;
    Status st = Store::Open(o, Path(), MPI_COMM_WORLD, &s);
    EXPECT_TRUE(st.ok()) << st.ToString();
    return s;
  }
  static Options Small() {
    Options o;
    o.extent_size = 64 * 1024;
    o.chunk_size = 16 * 1024;
    o.write_buffer_size = 32 * 1024;
    o.inline_value_limit = 64;
    return o;
  }
  std::string dir_;
};

// Whether a store in `dir` gets a data file per rank by default (local file
// systems; io/fs_layout.h), else one per node.
bool PerRankByDefault(const std::string& dir) {
  IoStats st;
  return DefaultLayout(dir, &st) == FileLayout::kPerRank;
}

// The number of ranks' nodes: the data files of the per-node layout.
int Nodes() {
  MPI_Comm node;
  MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, Rank(), MPI_INFO_NULL, &node);
  int nr = 0;
  MPI_Comm_rank(node, &nr);
  MPI_Comm_free(&node);
  return int(Sum(nr == 0 ? 1 : 0));
}

int DataFiles(const std::string& path) {
  int files = 0;
  for (auto& e : std::filesystem::directory_iterator(path))
    files += e.path().filename().string().rfind("data.", 0) == 0;
  return files;
}

// Rank 0 pretends the store lives on a file system with this statfs magic
// while it is in scope (the CAIRN_FS_MAGIC hook; rank 0 decides the layout).
struct FakeFs {
  explicit FakeFs(const char* magic) { if (Rank() == 0) setenv("CAIRN_FS_MAGIC", magic, 1); }
  ~FakeFs() { if (Rank() == 0) unsetenv("CAIRN_FS_MAGIC"); }
};

std::string GridOf(int rank, int rev) { return Pattern(1000 * rank + rev, 50000 + 1000 * rank); }

TEST_F(MpiStore, RevisionsReopenOlderRevisionAndOtherRanks) {
  int me = Rank(), n = Size();
  {
    auto s = Open();
    for (int rev = 1; rev <= 3; rev++) {
      ASSERT_TRUE(s->Put("grid", GridOf(me, rev), {{"step", TagValue::Int(rev * 10)}}).ok());
      ASSERT_TRUE(s->Put("step", std::to_string(rev * 10)).ok());
      uint64_t r = 0;
      ASSERT_TRUE(s->Commit(&r).ok());
      EXPECT_EQ(r, uint64_t(rev));
    }
    ASSERT_TRUE(s->Close().ok());
  }
  auto s = Open();
  EXPECT_EQ(s->revision(), 3u);
  std::string v;
  ASSERT_TRUE(s->Get("grid", &v).ok());
  EXPECT_EQ(v, GridOf(me, 3));
  // Another rank's object, by naming the rank.
  ReadOptions other;
  other.rank = (me + 1) % n;
  ASSERT_TRUE(s->Get("grid", &v, other).ok());
  EXPECT_EQ(v, GridOf(other.rank, 3));
  TagList tags;
  ASSERT_TRUE(s->GetTags("grid", &tags, other).ok());
  ASSERT_EQ(tags.size(), 1u);
  EXPECT_EQ(tags[0].value.as_int(), 30);
  s.reset();

  Options o = Small();
  o.read_only = true;
  o.revision = 2;
  s = Open(o);
  ASSERT_TRUE(s->Get("grid", &v).ok());
  EXPECT_EQ(v, GridOf(me, 2));
  ASSERT_TRUE(s->Get("step", &v).ok());
  EXPECT_EQ(v, "20");
  std::vector<RevisionInfo> revs;
  s->ListRevisions(&revs);
  ASSERT_EQ(revs.size(), 3u);
  EXPECT_EQ(revs[2].ranks, uint32_t(n));
  EXPECT_EQ(revs[2].objects, 2u * n);
}

TEST_F(MpiStore, SharedObjectIsReadOnceAndBroadcast) {
  {
    auto s = Open();
    if (Rank() == 0) ASSERT_TRUE(s->PutShared("mesh", Pattern(77, 100000)).ok());
    else EXPECT_TRUE(s->PutShared("mesh", "x").IsInvalidArgument());
    ASSERT_TRUE(s->Commit().ok());
  }
  auto s = Open();
  IoStats b = s->stats();
  std::string v;
  ASSERT_TRUE(s->GetShared("mesh", &v).ok());
  EXPECT_EQ(v, Pattern(77, 100000));
  uint64_t reads = s->stats().read_requests - b.read_requests;
  // Rank 0 reads the 7 contiguous chunks in one request; nobody else reads.
  EXPECT_EQ(reads, Rank() == 0 ? 1u : 0u);
}

TEST_F(MpiStore, OpenReadsSmallIndexesThroughRankZeroInOneRequest) {
  {
    auto s = Open();
    ASSERT_TRUE(s->Put("a", Pattern(Rank(), 5000)).ok());
    ASSERT_TRUE(s->Put("b", "tiny").ok());
    ASSERT_TRUE(s->Commit().ok());
  }
  auto s = Open();
  IoStats st = s->stats();
  // Rank 0: the manifest, its data file's header check (it leads the one
  // node-local data file), and one block holding every rank's index table.
  // Nobody else reads anything, but for the header of its own data file
  // where each rank has one (local file systems).
  EXPECT_EQ(st.read_requests, Rank() == 0 ? 3u : PerRankByDefault(dir_) ? 1u : 0u);
  // Opens: the store directory (read once by rank 0: is it a store?), the
  // lock file, the manifest, and each rank its data file once.
  EXPECT_EQ(Sum(st.opens), uint64_t(Size()) + 3);
  EXPECT_EQ(Sum(st.creates), 0u);
  std::string v;
  ASSERT_TRUE(s->Get("a", &v).ok());
  EXPECT_EQ(v, Pattern(Rank(), 5000));
  s.reset();

  Options o = Small();
  o.compact_index_limit = 0;  // every table read by its own rank
  {
    auto w = Open(o);
    ASSERT_TRUE(w->Put("c", "x").ok());
    ASSERT_TRUE(w->Commit().ok());
  }
  s = Open(o);
  // Rank 0: manifest, header check, its own table, the shared table.
  EXPECT_EQ(s->stats().read_requests, Rank() == 0 ? 4u : PerRankByDefault(dir_) ? 2u : 1u);
}

// Summed over all ranks: no open/create/stat/mkdir/rename/unlink per
// commit at all, whatever the number of ranks; fsyncs (reported apart):
// one per data file written plus one of the manifest.
void CheckMetadataOpsPerCommit(Store* s, uint64_t data_files) {
  ASSERT_TRUE(s->Put("warm", "x").ok());
  ASSERT_TRUE(s->Commit().ok());
  IoStats b = s->stats();
  const int commits = 5;
  for (int i = 0; i < commits; i++) {
    ASSERT_TRUE(s->Put("v", Pattern(i, 100000)).ok());
    ASSERT_TRUE(s->Commit().ok());
  }
  IoStats a = s->stats();
  EXPECT_EQ(Sum(a.opens - b.opens + a.creates - b.creates), 0u);
  EXPECT_EQ(Sum(a.mkdirs - b.mkdirs + a.stats - b.stats + a.renames - b.renames + a.unlinks - b.unlinks), 0u);
  EXPECT_EQ(Sum(a.fsyncs - b.fsyncs), (data_files + 1) * commits);
}

TEST_F(MpiStore, MetadataOpsPerCommitDoNotGrowWithRanks) {
  // The default layout of the file system the test runs on.
  auto s = Open();
  CheckMetadataOpsPerCommit(s.get(), PerRankByDefault(dir_) ? uint64_t(Size()) : uint64_t(Nodes()));
}

TEST_F(MpiStore, MetadataOpsPerCommitOnLustreLayout) {
  // One data file per node, whose leader alone fsyncs it.
  FakeFs lustre("0bd00bd0");
  auto s = Open();
  CheckMetadataOpsPerCommit(s.get(), uint64_t(Nodes()));
}

TEST_F(MpiStore, DefaultDataFilesFollowTheFileSystem) {
  // Local file systems: a file per rank, made by the first open and never
  // again; Lustre, GPFS, NFS: a file per node. An explicit subfiles wins.
  struct Case { const char* magic; int files; int subfiles; };
  const int nodes = Nodes();
  for (const Case& c : {Case{"ef53", Size(), 0}, Case{"58465342", Size(), 0}, Case{"01021994", Size(), 0},
                        Case{"0bd00bd0", nodes, 0}, Case{"47504653", nodes, 0}, Case{"6969", nodes, 0},
                        Case{"ef53", 1, 1}, Case{"0bd00bd0", std::min(2, Size()), 2}}) {
    if (Rank() == 0) std::filesystem::remove_all(Path());
    MPI_Barrier(MPI_COMM_WORLD);
    FakeFs fs(c.magic);
    Options o = Small();
    o.subfiles = c.subfiles;
    IoStats opened;
    {
      auto s = Open(o);
      ASSERT_TRUE(s->Put("x", GridOf(Rank(), 1)).ok());
      ASSERT_TRUE(s->Commit().ok());
      ASSERT_TRUE(s->Put("x", GridOf(Rank(), 2)).ok());
      IoStats b = s->stats();
      ASSERT_TRUE(s->Commit().ok());
      IoStats a = s->stats();
      EXPECT_EQ(Sum(a.creates - b.creates + a.opens - b.opens), 0u) << c.magic;
      opened = a;
    }
    // Every file is created once, by the first open.
    EXPECT_EQ(Sum(opened.creates), uint64_t(c.files) + 2) << c.magic;  // + MANIFEST, LOCK
    MPI_Barrier(MPI_COMM_WORLD);
    if (Rank() == 0) { EXPECT_EQ(DataFiles(Path()), c.files) << c.magic << " subfiles " << c.subfiles; }
    {
      // A reopen creates nothing and reads every rank's value back.
      auto s = Open(o);
      EXPECT_EQ(Sum(s->stats().creates), 0u) << c.magic;
      std::string v;
      for (int r = 0; r < Size(); r++) {
        ReadOptions ro;
        ro.rank = r;
        ASSERT_TRUE(s->Get("x", &v, ro).ok());
        EXPECT_EQ(v, GridOf(r, 2)) << c.magic;
      }
    }
    MPI_Barrier(MPI_COMM_WORLD);
    if (Rank() == 0) { EXPECT_EQ(DataFiles(Path()), c.files) << c.magic; }
  }
}

TEST_F(MpiStore, ConcurrentExtentAllocationNeverOverlaps) {
  int me = Rank(), n = Size();
  auto sizes = [](int rank, int i) { return size_t(1 + (rank * 7919 + i * 104729) % 90000); };
  {
    auto s = Open();
    for (int i = 0; i < 40; i++)
      ASSERT_TRUE(s->Put("k" + std::to_string(i), Pattern(me * 1000 + i, sizes(me, i))).ok());
    ASSERT_TRUE(s->Commit().ok());
  }
  auto s = Open();
  for (int r = 0; r < n; r++) {
    ReadOptions ro;
    ro.rank = r;
    std::vector<std::string> keys, values;
    std::vector<Status> st;
    for (int i = 0; i < 40; i++) keys.push_back("k" + std::to_string(i));
    ASSERT_TRUE(s->MultiGet(keys, &values, &st, ro).ok());
    for (int i = 0; i < 40; i++) ASSERT_EQ(values[i], Pattern(r * 1000 + i, sizes(r, i))) << r << " " << i;
  }
}

TEST_F(MpiStore, ReadWriteOpenWithOtherRankCountStartsFromNamespaceR) {
  // Rank 0 alone writes a one-rank store.
  if (Rank() == 0) {
    std::unique_ptr<Store> s;
    ASSERT_TRUE(Store::Open(Small(), Path(), MPI_COMM_SELF, &s).ok());
    ASSERT_TRUE(s->Put("solo", Pattern(5, 3000)).ok());
    ASSERT_TRUE(s->Commit().ok());
  }
  MPI_Barrier(MPI_COMM_WORLD);
  {
    // Every rank opens it read-write: rank 0 starts from namespace 0, the
    // others with an empty one.
    std::unique_ptr<Store> s = Open(Small());
    ASSERT_TRUE(s);
    EXPECT_EQ(s->writer_ranks(), 1);
    std::vector<ObjectInfo> own;
    ASSERT_TRUE(s->List(&own).ok());
    EXPECT_EQ(own.size(), Rank() == 0 ? 1u : 0u);
    ASSERT_TRUE(s->Put("r", std::to_string(Rank())).ok());
    ASSERT_TRUE(s->Commit().ok());
    EXPECT_EQ(s->writer_ranks(), Size());
  }
  Options o = Small();
  o.read_only = true;
  o.revision = 1;
  auto s = Open(o);
  EXPECT_EQ(s->writer_ranks(), 1);
  ReadOptions ro;
  ro.rank = 0;
  std::string v;
  ASSERT_TRUE(s->Get("solo", &v, ro).ok());
  EXPECT_EQ(v, Pattern(5, 3000));
  ro.rank = 1;
  EXPECT_TRUE(s->Get("solo", &v, ro).IsInvalidArgument());
}

TEST_F(MpiStore, SeveralDataFiles) {
  Options o = Small();
  o.subfiles = 2;
  {
    auto s = Open(o);
    ASSERT_TRUE(s->Put("x", GridOf(Rank(), 1)).ok());
    ASSERT_TRUE(s->Commit().ok());
  }
  auto s = Open(o);
  std::string v;
  for (int r = 0; r < Size(); r++) {
    ReadOptions ro;
    ro.rank = r;
    ASSERT_TRUE(s->Get("x", &v, ro).ok());
    EXPECT_EQ(v, GridOf(r, 1));
  }
  if (Rank() == 0) {
    int files = 0;
    for (auto& e : std::filesystem::directory_iterator(Path()))
      files += e.path().filename().string().rfind("data.", 0) == 0;
    EXPECT_EQ(files, std::min(2, Size()));
  }
}

TEST_F(MpiStore, CollectiveQueryReturnsTheUnionToEveryRank) {
  int me = Rank(), n = Size();
  auto s = Open();
  // Rank r has objects r*10 .. r*10+9; "hot" when the number is divisible by 3.
  for (int i = me * 10; i < me * 10 + 10; i++)
    ASSERT_TRUE(s->Put("o" + std::to_string(i), "", {{"id", TagValue::Int(i)}, {"hot", TagValue::Int(i % 3 == 0)}}).ok());
  ASSERT_TRUE(s->Commit().ok());
  std::vector<QueryHit> hits;
  ASSERT_TRUE(s->QueryAll({TagQuery::Equal("hot", TagValue::Int(1))}, &hits).ok());
  std::vector<QueryHit> want;
  for (int r = 0; r < n; r++) {
    std::vector<std::string> keys;
    for (int i = r * 10; i < r * 10 + 10; i++)
      if (i % 3 == 0) keys.push_back("o" + std::to_string(i));
    std::sort(keys.begin(), keys.end());
    for (auto& k : keys) want.push_back(QueryHit{r, k});
  }
  EXPECT_EQ(hits, want);
  // Another rank's namespace, queried locally.
  ReadOptions ro;
  ro.rank = (me + 1) % n;
  std::vector<std::string> keys;
  ASSERT_TRUE(s->Query({TagQuery::Range("id", TagValue::Int(ro.rank * 10), TagValue::Int(ro.rank * 10 + 4))}, &keys, ro).ok());
  EXPECT_EQ(keys.size(), 5u);
}

}  // namespace
}  // namespace cairn

CAIRN_MPI_TEST_MAIN
