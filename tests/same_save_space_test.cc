// Space under objects saved again unchanged (the samesave path of
// MakeNextTable, src/store/commit_tables.cc), at 1, 2 and 4 ranks: 200
// commits in each of which every rank puts all its small objects back byte
// for byte, so its table is reused as it lies, while data is written that
// the reused table does not name (a chunked value put and then deleted,
// an object put large and then back as it was, a write stream written,
// closed and deleted). That space must be handed out again: the data
// files must stay within 3 times their size after the second revision, and
// stop growing after the first hundred commits. Every retained revision
// reads back at the end.
#include <gtest/gtest.h>
#include <mpi.h>

#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

#include "cairn/store.h"
#include "cairn/stream.h"
#include "mpi_main.h"
#include "test_util.h"

namespace cairn::test {
namespace {

constexpr int kObjects = 20;
constexpr uint64_t kCommits = 200;

std::string Key(int i) { return "o" + std::to_string(i); }
std::string Small(int rank, int i) { return Pattern(uint64_t(rank) * 97 + uint64_t(i), 100 + 70 * size_t(i)); }
TagList Tags(int rank, int i) { return {{"i", TagValue::Int(i)}, {"rank", TagValue::Int(rank)}}; }

class SameSaveSpaceTest : public MpiDirTest {
 protected:
  uint64_t DataBytes() { return test::DataFileBytes(Path()); }
  void Run(Options o, bool async);
};

// One round: the data nobody keeps, then every small object put back.
Status Round(Store* s, int rank, uint64_t c) {
  Status st = s->Put("scratch", Pattern(c * 31 + uint64_t(rank), 40000));  // not in the base
  if (st.ok()) st = s->Delete("scratch");
  if (st.ok()) st = s->Put(Key(0), Pattern(c, 30000), Tags(rank, 0));  // chunked, then back inline
  std::unique_ptr<StreamWriter> w;
  if (st.ok()) st = s->OpenWriteStream("stream", {}, &w);
  std::string v = Pattern(c * 7 + uint64_t(rank), 20000);
  for (size_t at = 0; st.ok() && at < v.size(); at += 6000) {
    st = w->Write(std::string_view(v).substr(at, 6000));
    if (st.ok()) st = w->Flush();
  }
  if (st.ok()) st = w->Close();
  if (st.ok()) st = s->Delete("stream");
  for (int i = 0; i < kObjects && st.ok(); i++) st = s->Put(Key(i), Small(rank, i), Tags(rank, i));
  return st;
}

void SameSaveSpaceTest::Run(Options o, bool async) {
  int rank = Rank();
  std::unique_ptr<Store> s;
  ASSERT_TRUE(Store::Open(o, Path(), MPI_COMM_WORLD, &s).ok());
  uint64_t second = 0, mid = 0;
  for (uint64_t c = 1; c <= kCommits; c++) {
    ASSERT_TRUE(Round(s.get(), rank, c).ok()) << "round " << c;
    if (rank == 0 && c == 1) { ASSERT_TRUE(s->PutShared("meta", "m").ok()); }
    uint64_t reused = s->stats().index_tables_reused, got = 0;
    if (async) {
      AsyncCommit a;
      ASSERT_TRUE(s->CommitAsync(&a).ok());
      ASSERT_TRUE(a.Wait(&got).ok());
    } else {
      ASSERT_TRUE(s->Commit(&got).ok());
    }
    ASSERT_EQ(got, c);
    if (c > 1) {  // this rank's table, and at rank 0 the shared one
      ASSERT_EQ(s->stats().index_tables_reused - reused, uint64_t(rank == 0 ? 2 : 1)) << "revision " << c;
    }
    MPI_Barrier(MPI_COMM_WORLD);
    if (c == 2) second = DataBytes();
    if (c == kCommits / 2) mid = DataBytes();
  }
  ASSERT_TRUE(s->Close().ok());
  uint64_t end = DataBytes();
  if (rank == 0)
    std::printf("data files: %llu bytes after revision 2, %llu after %llu, %llu after %llu\n",
                (unsigned long long)second, (unsigned long long)mid, (unsigned long long)(kCommits / 2),
                (unsigned long long)end, (unsigned long long)kCommits);
  EXPECT_LE(end, 3 * second) << "after revision 2: " << second << " bytes, after " << kCommits << ": " << end;
  EXPECT_LE(end, mid + 2 * o.extent_size * uint64_t(Size())) << "after " << kCommits / 2 << ": " << mid;

  std::vector<RevisionInfo> kept;
  {
    Options ro = o;
    ro.read_only = true;
    ASSERT_TRUE(Store::Open(ro, Path(), MPI_COMM_WORLD, &s).ok());
    ASSERT_TRUE(s->ListRevisions(&kept).ok());
    ASSERT_TRUE(s->Close().ok());
  }
  ASSERT_EQ(kept.size(), size_t(o.keep_revisions));
  for (const RevisionInfo& ri : kept) {
    Options ro = o;
    ro.read_only = true;
    ro.revision = ri.revision;
    ASSERT_TRUE(Store::Open(ro, Path(), MPI_COMM_WORLD, &s).ok());
    for (int i = 0; i < kObjects; i++) {
      std::string v;
      TagList t;
      ASSERT_TRUE(s->Get(Key(i), &v).ok()) << "revision " << ri.revision << " " << Key(i);
      EXPECT_EQ(v, Small(rank, i)) << "revision " << ri.revision << " " << Key(i);
      ASSERT_TRUE(s->GetTags(Key(i), &t).ok());
      EXPECT_EQ(t, Tags(rank, i));
    }
    std::string v;
    EXPECT_TRUE(s->Get("scratch", &v).IsNotFound());
    EXPECT_TRUE(s->Get("stream", &v).IsNotFound());
    ASSERT_TRUE(s->Close().ok());
  }
}

Options SpaceOptions(uint64_t keep) {
  Options o;
  o.extent_size = 64 * 1024;
  o.chunk_size = 16 * 1024;
  o.write_buffer_size = 32 * 1024;
  o.keep_revisions = keep;
  o.sync = false;
  return o;
}

TEST_F(SameSaveSpaceTest, KeepOne) { Run(SpaceOptions(1), false); }

TEST_F(SameSaveSpaceTest, KeepTwoStagedAsync) {
  Options o = SpaceOptions(2);
  o.staging_bytes = 64 * 1024;
  Run(o, true);
}

}  // namespace
}  // namespace cairn::test

CAIRN_MPI_TEST_MAIN
