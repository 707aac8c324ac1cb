// Bad input to the collective calls, under mpiexec (2 and 4 ranks): a store
// opened read-write by fewer ranks than wrote it (which continues it), shared
// puts on other ranks,
// and errors that only rank 0 can see, which every rank must return alike.
#include <gtest/gtest.h>
#include <mpi.h>

#include <fstream>

#include "cairn/store.h"
#include "mpi_main.h"
#include "test_util.h"

namespace cairn {
namespace {

using test::Pattern;

Options Small() {
  Options o;
  o.extent_size = 64 * 1024;
  o.chunk_size = 16 * 1024;
  o.write_buffer_size = 32 * 1024;
  return o;
}

class MpiBadInput : public ::testing::Test {
 protected:
  void SetUp() override {
    MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
    MPI_Comm_size(MPI_COMM_WORLD, &size_);
    dir_ = test::SharedTempDir(MPI_COMM_WORLD);
  }
  void TearDown() override {
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank_ == 0) std::filesystem::remove_all(dir_);
  }
  int rank_ = 0, size_ = 1;
  std::string dir_;
};

// Every rank got the same status (code and message).
void ExpectSameEverywhere(const Status& s) {
  std::string mine = s.ToString(), root = mine;
  int n = int(root.size());
  MPI_Bcast(&n, 1, MPI_INT, 0, MPI_COMM_WORLD);
  root.resize(size_t(n));
  MPI_Bcast(root.data(), n, MPI_CHAR, 0, MPI_COMM_WORLD);
  EXPECT_EQ(mine, root);
}

// An inter-communicator is refused on every rank, before any collective
// (its broadcasts go from one group to the other, and Open hung for ever).
TEST_F(MpiBadInput, AnIntercommunicatorIsRefusedOnEveryRank) {
  MPI_Comm half, inter;
  MPI_Comm_split(MPI_COMM_WORLD, rank_ % 2, rank_, &half);
  // The other group's leader, by its rank in MPI_COMM_WORLD: rank 1 or 0.
  MPI_Intercomm_create(half, 0, MPI_COMM_WORLD, 1 - rank_ % 2, 7, &inter);
  std::unique_ptr<Store> store;
  Options o = Small();
  o.create_if_missing = true;
  Status s = Store::Open(o, dir_ + "/inter", inter, &store);
  EXPECT_TRUE(s.IsInvalidArgument()) << s.ToString();
  EXPECT_NE(s.message().find("inter-communicator"), std::string::npos) << s.ToString();
  EXPECT_EQ(store, nullptr);
  EXPECT_FALSE(std::filesystem::exists(dir_ + "/inter"));
  MPI_Comm_free(&inter);
  MPI_Comm_free(&half);
}

TEST_F(MpiBadInput, FewerRanksThanWroteTheStoreReadAndContinueIt) {
  std::string path = dir_ + "/s";
  {
    std::unique_ptr<Store> s;
    ASSERT_TRUE(Store::Open(Small(), path, MPI_COMM_WORLD, &s).ok());
    ASSERT_TRUE(s->Put("mine", Pattern(rank_, 20000)).ok());
    ASSERT_TRUE(s->Commit().ok());
  }
  // The lower half of the ranks (rank 0 alone at 2 ranks) opens it
  // read-write: rank r starts from namespace r, every namespace of the
  // revision stays readable, and the next commit has only the half's.
  MPI_Comm half;
  int in_half = rank_ < (size_ + 1) / 2;
  MPI_Comm_split(MPI_COMM_WORLD, in_half, rank_, &half);
  if (in_half && size_ > 1) {
    int m = (size_ + 1) / 2;
    std::unique_ptr<Store> s;
    Status st = Store::Open(Small(), path, half, &s);
    ASSERT_TRUE(st.ok()) << st.ToString();
    EXPECT_EQ(s->writer_ranks(), size_);
    EXPECT_EQ(s->size(), m);
    std::string v;
    ASSERT_TRUE(s->Get("mine", &v).ok());  // its own namespace: namespace rank_
    EXPECT_EQ(v, Pattern(rank_, 20000));
    for (int r = 0; r < size_; r++) {  // every rank's namespace is readable
      ReadOptions o;
      o.rank = r;
      ASSERT_TRUE(s->Get("mine", &v, o).ok()) << r;
      EXPECT_EQ(v, Pattern(r, 20000));
    }
    ASSERT_TRUE(s->Commit().ok());
    EXPECT_EQ(s->writer_ranks(), m);
    ReadOptions o;
    o.rank = m;  // not carried: no rank of the half owned it
    EXPECT_TRUE(s->Get("mine", &v, o).IsInvalidArgument());
    std::vector<RevisionInfo> revs;
    s->ListRevisions(&revs);
    ASSERT_EQ(revs.size(), 2u);
    EXPECT_EQ(revs[0].ranks, uint32_t(size_));
    EXPECT_EQ(revs[1].ranks, uint32_t(m));
    s->Close();
    // The first revision still opens read-only with all its namespaces.
    Options ro = Small();
    ro.read_only = true;
    ro.revision = 1;
    ASSERT_TRUE(Store::Open(ro, path, half, &s).ok());
    EXPECT_EQ(s->writer_ranks(), size_);
    o.rank = size_ - 1;
    ASSERT_TRUE(s->Get("mine", &v, o).ok());
    EXPECT_EQ(v, Pattern(size_ - 1, 20000));
    s->Close();
  }
  MPI_Comm_free(&half);
}

TEST_F(MpiBadInput, SharedPutsOnlyOnRankZero) {
  std::unique_ptr<Store> s;
  ASSERT_TRUE(Store::Open(Small(), dir_ + "/s", MPI_COMM_WORLD, &s).ok());
  Status st = s->PutShared("sh", "v");
  EXPECT_EQ(st.ok(), rank_ == 0) << st.ToString();
  if (rank_ != 0) {
    EXPECT_TRUE(st.IsInvalidArgument());
  }
  ASSERT_TRUE(s->Commit().ok());
  std::string v;
  ASSERT_TRUE(s->GetShared("sh", &v).ok());
  EXPECT_EQ(v, "v");
  st = s->GetShared("absent", &v);  // only rank 0 looks; every rank is told
  EXPECT_TRUE(st.IsNotFound()) << st.ToString();
  ExpectSameEverywhere(st);
}

TEST_F(MpiBadInput, ErrorsOnlyRankZeroSeesAreEveryRanks) {
  std::unique_ptr<Store> s;
  std::string file = dir_ + "/file";
  if (rank_ == 0) std::ofstream(file) << "x";
  MPI_Barrier(MPI_COMM_WORLD);
  Status st = Store::Open(Small(), file, MPI_COMM_WORLD, &s);
  EXPECT_TRUE(st.IsInvalidArgument()) << st.ToString();
  ExpectSameEverywhere(st);
  st = Store::Open(Small(), file + "/under", MPI_COMM_WORLD, &s);
  EXPECT_TRUE(st.IsIOError()) << st.ToString();
  ExpectSameEverywhere(st);
  Options o = Small();
  o.create_if_missing = false;
  st = Store::Open(o, dir_ + "/none", MPI_COMM_WORLD, &s);
  EXPECT_TRUE(st.IsNotFound()) << st.ToString();
  ExpectSameEverywhere(st);
  o = Small();
  o.extent_size = 3000;
  st = Store::Open(o, dir_ + "/bad", MPI_COMM_WORLD, &s);
  EXPECT_TRUE(st.IsInvalidArgument()) << st.ToString();
  ExpectSameEverywhere(st);
}

// Issue 10, item 4: a failed fsync in Flush poisons one rank's handle; the
// next Commit (and CommitAsync, Pin) must fail on every rank alike, not
// leave the others waiting in the commit's collectives. The timeout turns
// a hang into an abort naming the collective.
TEST_F(MpiBadInput, FailedFsyncOnOneRankFailsTheNextCommitOnEveryRank) {
  Options o = Small();
  o.collective_timeout_s = 20;
  std::string path = dir_ + "/s";
  std::unique_ptr<Store> s;
  ASSERT_TRUE(Store::Open(o, path, MPI_COMM_WORLD, &s).ok());
  ASSERT_TRUE(s->Put("v", Pattern(rank_, 50000)).ok());
  ASSERT_TRUE(s->Commit().ok());
  ASSERT_TRUE(s->Put("v", Pattern(rank_ + 100, 50000)).ok());
  const int bad = size_ - 1;
  if (rank_ == bad) setenv("CAIRN_TEST_FAIL_FSYNC", "1", 1);
  Status st = s->Flush();
  if (rank_ == bad) unsetenv("CAIRN_TEST_FAIL_FSYNC");
  EXPECT_EQ(st.ok(), rank_ != bad) << st.ToString();
  for (int attempt = 0; attempt < 2; attempt++) {
    st = s->Commit();
    EXPECT_TRUE(st.IsIOError()) << st.ToString();
    EXPECT_NE(st.message().find("rank " + std::to_string(bad) + ":"), std::string::npos) << st.ToString();
    EXPECT_NE(st.message().find("CAIRN_TEST_FAIL_FSYNC"), std::string::npos) << st.ToString();
    ExpectSameEverywhere(st);
  }
  AsyncCommit h;
  st = s->CommitAsync(&h);
  EXPECT_TRUE(st.IsIOError()) << st.ToString();
  ExpectSameEverywhere(st);
  st = s->Pin(1);
  EXPECT_FALSE(st.ok());
  ExpectSameEverywhere(st);
  // The handle still reads what was committed (the failing rank included).
  std::string v;
  ReadOptions other;
  other.rank = (rank_ + 1) % size_;
  st = s->Get("v", &v, other);
  EXPECT_TRUE(st.ok()) << st.ToString();
  EXPECT_EQ(v, Pattern(other.rank, 50000));
  EXPECT_EQ(s->revision(), 1u);
  EXPECT_TRUE(s->Close().ok());
  // Revision 1 is intact and still the newest.
  Options ro = Small();
  ro.read_only = true;
  ASSERT_TRUE(Store::Open(ro, path, MPI_COMM_WORLD, &s).ok());
  EXPECT_EQ(s->revision(), 1u);
  ASSERT_TRUE(s->Get("v", &v).ok());
  EXPECT_EQ(v, Pattern(rank_, 50000));
  s->Close();
}

// Issue 10, item 9: options that change what the ranks do together, and the
// store path, must be the same on every rank. One rank (the last) differs;
// every rank gets the same InvalidArgument naming the option, rank 0's value
// and the differing rank's. A timeout turns a hang into an abort.
TEST_F(MpiBadInput, OptionsThatDifferAcrossRanksAreRefusedOnEveryRank) {
  const int odd = size_ - 1;
  {  // a store to open (read_only needs one)
    std::unique_ptr<Store> s;
    ASSERT_TRUE(Store::Open(Small(), dir_ + "/s", MPI_COMM_WORLD, &s).ok());
    ASSERT_TRUE(s->Put("v", "x").ok());
    ASSERT_TRUE(s->Commit().ok());
  }
  struct Case {
    const char* name;
    void (*set)(Options*, std::string*);
    const char* rank0, *other;
  };
  const Case cases[] = {
      {"sync", [](Options* o, std::string*) { o->sync = false; }, "true", "false"},
      {"staging_bytes", [](Options* o, std::string*) { o->staging_bytes = 1 << 20; }, "0", "1048576"},
      {"extent_size", [](Options* o, std::string*) { o->extent_size = 128 * 1024; }, "65536", "131072"},
      {"keep_revisions", [](Options* o, std::string*) { o->keep_revisions = 3; }, "0", "3"},
      {"subfiles", [](Options* o, std::string*) { o->subfiles = 1; }, "0", "1"},
      {"compact_index_limit", [](Options* o, std::string*) { o->compact_index_limit = 1000; }, "65536", "1000"},
      {"collective_timeout_s", [](Options* o, std::string*) { o->collective_timeout_s = 25; }, "20", "25"},
      {"read_only", [](Options* o, std::string*) { o->read_only = true; }, "false", "true"},
      {"revision", [](Options* o, std::string*) { o->revision = 1; }, "0", "1"},
      {"require_writer_lock", [](Options* o, std::string*) { o->require_writer_lock = false; }, "true", "false"},
      {"store path", [](Options*, std::string* p) { *p += "-other"; }, "/s'", "/s-other'"},
  };
  for (const Case& c : cases) {
    Options o = Small();
    o.collective_timeout_s = 20;
    std::string path = dir_ + "/s";
    if (rank_ == odd) c.set(&o, &path);
    std::unique_ptr<Store> s;
    Status st = Store::Open(o, path, MPI_COMM_WORLD, &s);
    EXPECT_TRUE(st.IsInvalidArgument()) << c.name << ": " << st.ToString();
    std::string want = std::string(c.name) + " is ";
    EXPECT_NE(st.message().find(want), std::string::npos) << st.ToString();
    EXPECT_NE(st.message().find(std::string(c.rank0) + " on rank 0"), std::string::npos) << st.ToString();
    EXPECT_NE(st.message().find(std::string(c.other) + " on rank " + std::to_string(odd)), std::string::npos)
        << st.ToString();
    ExpectSameEverywhere(st);
    if (s) s->Close();
  }
  // Options that are local tuning may differ.
  Options o = Small();
  if (rank_ == odd) o.write_buffer_size = 64 * 1024;
  std::unique_ptr<Store> s;
  Status st = Store::Open(o, dir_ + "/s", MPI_COMM_WORLD, &s);
  EXPECT_TRUE(st.ok()) << st.ToString();
  if (s) s->Close();
  // ...but each rank's must be valid, checked on that rank and agreed: an
  // invalid tuning option on one rank alone used to open (rank 0 checked
  // only its own) and that rank then wrote with it.
  for (int which = 0; which < 3; which++) {
    Options bad = Small();
    if (rank_ == odd) {
      if (which == 0) bad.chunk_size = 1000;
      if (which == 1) bad.write_buffer_size = 0;
      if (which == 2) bad.inline_value_limit = uint64_t(1) << 40;
    }
    std::unique_ptr<Store> b;
    st = Store::Open(bad, dir_ + "/s", MPI_COMM_WORLD, &b);
    EXPECT_TRUE(st.IsInvalidArgument()) << which << ": " << st.ToString();
    EXPECT_NE(st.message().find("rank " + std::to_string(odd) + ": "), std::string::npos) << st.ToString();
    ExpectSameEverywhere(st);
    if (b) b->Close();
  }
}

// Collective reads and marks whose argument differs on one rank (an outside
// pass, tests/breaker/FINDINGS5.md 3): GetShared of another key returned
// rank 0's object as that rank's data (OK), and Pin/Unpin/Drop of another
// revision returned OK while rank 0's revision was marked (that rank's list
// of revisions then marked the one it named). The differing rank gets
// InvalidArgument naming both; the others get what rank 0 asked for.
TEST_F(MpiBadInput, CollectiveCallsWithAnotherArgumentOnOneRank) {
  const int odd = size_ - 1;
  std::unique_ptr<Store> s;
  ASSERT_TRUE(Store::Open(Small(), dir_ + "/s", MPI_COMM_WORLD, &s).ok());
  if (rank_ == 0) {
    ASSERT_TRUE(s->PutShared("a", "value of a").ok());
    ASSERT_TRUE(s->PutShared("b", "value of b").ok());
  }
  ASSERT_TRUE(s->Put("k", "1").ok());
  ASSERT_TRUE(s->Commit().ok());  // revision 1
  ASSERT_TRUE(s->Put("k", "2").ok());
  ASSERT_TRUE(s->Commit().ok());  // revision 2
  ASSERT_TRUE(s->Put("k", "3").ok());
  ASSERT_TRUE(s->Commit().ok());  // revision 3

  std::string v = "untouched";
  Status st = s->GetShared(rank_ == odd ? "b" : "a", &v);
  if (rank_ == odd) {
    EXPECT_TRUE(st.IsInvalidArgument()) << st.ToString() << " value '" << v << "'";
    EXPECT_NE(v, "value of a");  // never another key's value as this one's
    EXPECT_NE(st.message().find("'a'"), std::string::npos) << st.ToString();
  } else {
    EXPECT_TRUE(st.ok()) << st.ToString();
    EXPECT_EQ(v, "value of a");
  }
  // The calls still line up: the same key everywhere works.
  st = s->GetShared("b", &v);
  EXPECT_TRUE(st.ok() && v == "value of b") << st.ToString();

  // Pin: rank 0's revision is pinned; the differing rank is told so.
  st = s->Pin(rank_ == odd ? 2 : 1);
  if (rank_ == odd) {
    EXPECT_TRUE(st.IsInvalidArgument()) << st.ToString();
  } else {
    EXPECT_TRUE(st.ok()) << st.ToString();
  }
  std::vector<RevisionInfo> revs;
  ASSERT_TRUE(s->ListRevisions(&revs).ok());
  for (const RevisionInfo& r : revs) EXPECT_EQ(r.pinned, r.revision == 1) << "revision " << r.revision;
  // Drop: the same.
  st = s->Drop(rank_ == odd ? 1 : 2);
  if (rank_ == odd) {
    EXPECT_TRUE(st.IsInvalidArgument()) << st.ToString();
  } else {
    EXPECT_TRUE(st.ok()) << st.ToString();
  }
  ASSERT_TRUE(s->ListRevisions(&revs).ok());
  std::string listed;
  for (const RevisionInfo& r : revs) listed += std::to_string(r.revision) + " ";
  EXPECT_EQ(listed, "1 3 ");  // what the manifest holds, on every rank
  ASSERT_TRUE(s->Close().ok());
}

// QueryAll with other conditions on one rank: each rank answered its own and
// the union came back as OK. Now every rank is refused, told both.
TEST_F(MpiBadInput, QueryAllWithOtherConditionsOnOneRank) {
  const int odd = size_ - 1;
  std::unique_ptr<Store> s;
  ASSERT_TRUE(Store::Open(Small(), dir_ + "/s", MPI_COMM_WORLD, &s).ok());
  TagList red = {{"color", TagValue::String("red")}};
  TagList blue = {{"color", TagValue::String("blue")}};
  ASSERT_TRUE(s->Put("r", "1", red).ok());
  ASSERT_TRUE(s->Put("b", "2", blue).ok());
  ASSERT_TRUE(s->Commit().ok());
  std::vector<QueryHit> hits;
  Status st = s->QueryAll({TagQuery::Equal("color", TagValue::String(rank_ == odd ? "blue" : "red"))}, &hits);
  EXPECT_TRUE(st.IsInvalidArgument()) << st.ToString() << " with " << hits.size() << " hits";
  EXPECT_TRUE(hits.empty());
  EXPECT_NE(st.message().find("rank " + std::to_string(odd)), std::string::npos) << st.ToString();
  EXPECT_NE(st.message().find("red"), std::string::npos) << st.ToString();
  EXPECT_NE(st.message().find("blue"), std::string::npos) << st.ToString();
  // Conditions that read the same but differ in a value's type (int64 42 and
  // float64 42; Query takes them alike, the agreement compares bytes) are
  // shown with their types, not as "'n' == 42" on both sides (breaker7).
  st = s->QueryAll({TagQuery::Equal("n", rank_ == odd ? TagValue::Float64(42) : TagValue::Int(42))}, &hits);
  EXPECT_TRUE(st.IsInvalidArgument()) << st.ToString();
  EXPECT_NE(st.message().find("int64 42"), std::string::npos) << st.ToString();
  EXPECT_NE(st.message().find("float64 42"), std::string::npos) << st.ToString();
  // The calls still line up: the same conditions everywhere work.
  st = s->QueryAll({TagQuery::Equal("color", TagValue::String("red"))}, &hits);
  EXPECT_TRUE(st.ok()) << st.ToString();
  EXPECT_EQ(hits.size(), size_t(size_));
  ASSERT_TRUE(s->Close().ok());
}

}  // namespace
}  // namespace cairn

CAIRN_MPI_TEST_MAIN
