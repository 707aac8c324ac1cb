// A collective commit in which one rank runs out of memory in its own step
// (under mpiexec, 1, 2 and 4 ranks): every rank returns an IOError saying
// so, none waits for ever for the failed one (before, the failed rank
// threw std::bad_alloc out of Commit and the others hung in the commit's
// next collective: ctest's TIMEOUT fails the test), nothing is committed, and
// once memory is back the same changes commit.
//  - Real memory: the failing rank's table does not fit under its soft
//    RLIMIT_AS (address_limit.h), for Commit and CommitAsync, on rank 0
//    (which also gathers the tables) and on the last rank.
//  - Open (one rank's own index table does not fit) and GetShared (one
//    rank cannot hold the value), on rank 0 and on the last rank.
//  - Rank 0's manifest append, which no real limit can single out: the
//    test hook CAIRN_TEST_BAD_ALLOC_POINT=manifest_append (crash_point.h)
//    throws std::bad_alloc there, before the record is written.
#include <gtest/gtest.h>
#include <mpi.h>
#include <stdlib.h>

#include <fstream>
#include <iterator>
#include <new>
#include <stdexcept>
#include <string>
#include <vector>

#include "address_limit.h"
#include "cairn/store.h"
#include "format/manifest_format.h"
#include "store/retention.h"
#include "mpi_main.h"
#include "test_util.h"

namespace cairn {
namespace {

using test::Rank;
using test::Size;

constexpr size_t kTag = 64u << 20;  // the failing rank's tag: its table needs this much more

Options Opts() {
  Options o;
  o.extent_size = 64 * 1024;
  o.chunk_size = 16 * 1024;
  o.write_buffer_size = 32 * 1024;
  o.inline_value_limit = 64;
  o.compact_index_limit = 256u << 20;  // the failing rank's table is built whole (not streamed)
  return o;
}

// Runs a collective call, turning an exception into a failure of the test
// (and a status), so the other ranks' outcome shows.
template <typename F>
Status Collective(const char* name, F&& call) {
  try {
    return call();
  } catch (const std::bad_alloc&) {
    ADD_FAILURE() << "std::bad_alloc out of " << name << " on rank " << Rank();
  } catch (const std::length_error&) {
    ADD_FAILURE() << "std::length_error out of " << name << " on rank " << Rank();
  }
  // As an application that caught it would: the other ranks are still in
  // the call, waiting for this one (the test's TIMEOUT ends it).
  MPI_Barrier(MPI_COMM_WORLD);
  return Status::IOError("threw");
}

// A commit (async: CommitAsync then Wait).
Status RunCommit(Store* s, bool async, uint64_t* rev) {
  return Collective(async ? "CommitAsync" : "Commit", [&] {
    if (!async) return s->Commit(rev);
    AsyncCommit h;
    Status st = s->CommitAsync(&h);
    return st.ok() ? h.Wait(rev) : st;
  });
}

class CommitMemory : public test::MpiDirTest {
 protected:
  // Revision 1 with one key per rank; then each rank puts "next" and the
  // failing rank also "big" with a tag of kTag bytes.
  std::unique_ptr<Store> Prepare(int failing) {
    std::unique_ptr<Store> s;
    Status st = Store::Open(Opts(), Path(), MPI_COMM_WORLD, &s);
    EXPECT_TRUE(st.ok()) << st.ToString();
    if (!s) return s;
    EXPECT_TRUE(s->Put("first", "r" + std::to_string(Rank())).ok());
    EXPECT_TRUE(s->Commit().ok());
    EXPECT_TRUE(s->Put("next", "n" + std::to_string(Rank())).ok());
    if (Rank() == failing) {
      EXPECT_TRUE(s->Put("big", "b", {{"t", TagValue::Bytes(std::string(kTag, 'x'))}}).ok());
    }
    return s;
  }
  // The changes are still pending (no staging): the next commit, with
  // memory, makes revision 2 with them.
  void CommitsAfter(Store* s, int failing) {
    EXPECT_EQ(s->revision(), 1u);
    uint64_t rev = 0;
    Status st = s->Commit(&rev);
    ASSERT_TRUE(st.ok()) << st.ToString();
    EXPECT_EQ(rev, 2u);
    std::string v;
    ASSERT_TRUE(s->Get("next", &v).ok());
    EXPECT_EQ(v, "n" + std::to_string(Rank()));
    uint64_t size = 0;
    EXPECT_EQ(s->GetSize("big", &size).ok(), Rank() == failing);
    EXPECT_TRUE(s->Close().ok());
  }
  void TableOutOfMemory(int failing, bool async) {
    SKIP_UNDER_ASAN();
    auto s = Prepare(failing);
    ASSERT_TRUE(s);
    Status st;
    uint64_t rev = 0;
    {
      std::unique_ptr<test::AddressLimit> limit;
      if (Rank() == failing) {
        limit = std::make_unique<test::AddressLimit>(kTag / 2);
        EXPECT_TRUE(limit->ok());
      }
      st = RunCommit(s.get(), async, &rev);
    }
    EXPECT_TRUE(st.IsIOError()) << st.ToString();
    EXPECT_NE(st.message().find("out of memory"), std::string::npos) << st.ToString();
    if (Size() > 1) {
      EXPECT_EQ(st.message().rfind("rank " + std::to_string(failing) + ": ", 0), 0u) << st.ToString();
    }
    CommitsAfter(s.get(), failing);
  }
};

TEST_F(CommitMemory, TableOfRank0) { TableOutOfMemory(0, false); }
TEST_F(CommitMemory, TableOfLastRank) { TableOutOfMemory(Size() - 1, false); }
TEST_F(CommitMemory, TableOfLastRankAsync) { TableOutOfMemory(Size() - 1, true); }
TEST_F(CommitMemory, TableOfRank0Async) { TableOutOfMemory(0, true); }

// Rank 0 has memory for its own table but not for the tables it gathers:
// the last rank's table (kTag, under compact_index_limit: gathered) does
// not fit in rank 0's gather buffer (Comm::Gather's receive side, outside
// PrepareCommit's guarded steps). Every rank must fail with an IOError, not
// leave the others in the gather (before: rank 0 alone returned "no revision
// was made" and its next collective met rank 1's gather: Open MPI crashed).
// With one rank it is TableOfRank0 again.
TEST_F(CommitMemory, GatherOfRank0) {
  SKIP_UNDER_ASAN();
  const int big = Size() - 1;
  auto s = Prepare(big);
  ASSERT_TRUE(s);
  Status st;
  uint64_t rev = 0;
  {
    std::unique_ptr<test::AddressLimit> limit;
    if (Rank() == 0) {
      limit = std::make_unique<test::AddressLimit>(kTag / 2);
      EXPECT_TRUE(limit->ok());
    }
    st = RunCommit(s.get(), false, &rev);
  }
  EXPECT_TRUE(st.IsIOError()) << st.ToString();
  EXPECT_NE(st.message().find("out of memory"), std::string::npos) << st.ToString();
  CommitsAfter(s.get(), big);
}

TEST_F(CommitMemory, ManifestAppendOfRank0) {
  auto s = Prepare(-1);
  ASSERT_TRUE(s);
  if (Rank() == 0) setenv("CAIRN_TEST_BAD_ALLOC_POINT", "manifest_append", 1);
  uint64_t rev = 0;
  Status st = RunCommit(s.get(), false, &rev);
  if (Rank() == 0) unsetenv("CAIRN_TEST_BAD_ALLOC_POINT");
  EXPECT_TRUE(st.IsIOError()) << st.ToString();
  EXPECT_NE(st.message().find("out of memory"), std::string::npos) << st.ToString();
  EXPECT_NE(st.message().find("not appended"), std::string::npos) << st.ToString();
  CommitsAfter(s.get(), -1);
}

// A rank other than 0 that cannot take in what rank 0 broadcasts: the
// test hook CAIRN_TEST_BAD_ALLOC_POINT makes that rank's allocation for the
// bytes throw (Comm::Bcast; no real limit singles out one message of a few
// hundred bytes), and CAIRN_TEST_MPI_MAX_COUNT=9 sends every broadcast in
// pieces after a 9-byte head, so the others are still sending when it
// fails (before: they waited for it in the next piece, or in the commit's
// agreement, for ever). With one rank nobody receives: the call succeeds.
class ReceiveMemory : public CommitMemory {
 protected:
  // The store open with small broadcast pieces (read at open), at revision
  // 1, "next" pending on every rank.
  std::unique_ptr<Store> PrepareSmallPieces() {
    setenv("CAIRN_TEST_MPI_MAX_COUNT", "9", 1);
    auto s = Prepare(-1);
    unsetenv("CAIRN_TEST_MPI_MAX_COUNT");
    return s;
  }
  // Runs `call` with the broadcast `point` failing on the last rank.
  template <typename F>
  Status FailingOnLastRank(const char* point, F&& call) {
    if (Rank() == Size() - 1 && Rank() != 0) setenv("CAIRN_TEST_BAD_ALLOC_POINT", point, 1);
    Status st = call();
    unsetenv("CAIRN_TEST_BAD_ALLOC_POINT");
    return st;
  }
  void ExpectLastRanksFailure(const Status& st) {
    if (Size() == 1) {
      EXPECT_TRUE(st.ok()) << st.ToString();
      return;
    }
    EXPECT_TRUE(st.IsIOError()) << st.ToString();
    EXPECT_NE(st.message().find("out of memory"), std::string::npos) << st.ToString();
    EXPECT_EQ(st.message().rfind("rank " + std::to_string(Size() - 1) + ": ", 0), 0u) << st.ToString();
  }
  void PlanOutOfMemory(bool async) {
    auto s = PrepareSmallPieces();
    ASSERT_TRUE(s);
    uint64_t rev = 0;
    Status st = FailingOnLastRank("commit_plan", [&] { return RunCommit(s.get(), async, &rev); });
    ExpectLastRanksFailure(st);
    if (Size() == 1) return;
    CommitsAfter(s.get(), -1);
  }
};

TEST_F(ReceiveMemory, PlanOfLastRank) { PlanOutOfMemory(false); }
TEST_F(ReceiveMemory, PlanOfLastRankAsync) { PlanOutOfMemory(true); }

// After the outcome the revision exists: the ranks that took it in return
// it; the last rank, which could not, completes the broadcast, returns an
// IOError and takes no more commits through its handle, and the others
// hear of it at their next commit. Reopened, the store is at revision 2.
TEST_F(ReceiveMemory, OutcomeOfLastRank) {
  auto s = PrepareSmallPieces();
  ASSERT_TRUE(s);
  uint64_t rev = 0;
  const bool failing = Rank() == Size() - 1 && Size() > 1;
  Status st = FailingOnLastRank("commit_outcome", [&] { return RunCommit(s.get(), false, &rev); });
  if (failing) {
    EXPECT_TRUE(st.IsIOError()) << st.ToString();
    EXPECT_NE(st.message().find("out of memory"), std::string::npos) << st.ToString();
    EXPECT_NE(st.message().find("no more commits"), std::string::npos) << st.ToString();
  } else {
    ASSERT_TRUE(st.ok()) << st.ToString();
    EXPECT_EQ(rev, 2u);
  }
  EXPECT_EQ(s->Put("later", "l").ok(), !failing);  // (a poisoned handle takes no more changes)
  st = Collective("Commit", [&] { return s->Commit(); });
  if (Size() > 1) {
    EXPECT_TRUE(st.IsIOError()) << st.ToString();
    EXPECT_EQ(st.message().rfind("rank " + std::to_string(Size() - 1) + ": ", 0), 0u) << st.ToString();
  } else {
    EXPECT_TRUE(st.ok()) << st.ToString();
  }
  EXPECT_TRUE(s->Close().ok());
  ASSERT_TRUE(Store::Open(Opts(), Path(), MPI_COMM_WORLD, &s).ok());
  EXPECT_EQ(s->revision(), Size() > 1 ? 2u : 3u);
  std::string v;
  ASSERT_TRUE(s->Get("next", &v).ok());
  EXPECT_EQ(v, "n" + std::to_string(Rank()));
  EXPECT_TRUE(s->Close().ok());
}

// QueryAll's union: every rank returns the last rank's failure, and the
// next QueryAll returns every rank's keys.
TEST_F(ReceiveMemory, QueryUnionOfLastRank) {
  auto s = PrepareSmallPieces();
  ASSERT_TRUE(s);
  std::vector<QueryHit> hits;
  Status st = FailingOnLastRank("query_union", [&] { return Collective("QueryAll", [&] { return s->QueryAll({}, &hits); }); });
  ExpectLastRanksFailure(st);
  if (Size() > 1) {
    EXPECT_TRUE(hits.empty());
  }
  st = s->QueryAll({}, &hits);
  ASSERT_TRUE(st.ok()) << st.ToString();
  EXPECT_EQ(hits.size(), 2u * size_t(Size()));  // "first" and "next" of every rank
  CommitsAfter(s.get(), -1);
}

// QueryAll's conditions, which rank 0 broadcasts first to check every rank
// asks the same: a rank that cannot hold them, or rank 0 that cannot
// encode them, fails QueryAll on every rank, and the next one answers
// (before: the failing rank returned alone and its next collective call
// met the others' agreement).
TEST_F(ReceiveMemory, QueryConditionsOfLastRank) {
  auto s = PrepareSmallPieces();
  ASSERT_TRUE(s);
  std::vector<QueryHit> hits;
  Status st = FailingOnLastRank("query_conditions", [&] {
    setenv("CAIRN_TEST_MPI_MAX_COUNT", "9", 1);  // (the others still sending when it fails)
    Status q = Collective("QueryAll", [&] { return s->QueryAll({}, &hits); });
    unsetenv("CAIRN_TEST_MPI_MAX_COUNT");
    return q;
  });
  ExpectLastRanksFailure(st);
  st = s->QueryAll({}, &hits);
  ASSERT_TRUE(st.ok()) << st.ToString();
  EXPECT_EQ(hits.size(), 2u * size_t(Size()));
  CommitsAfter(s.get(), -1);
}

TEST_F(ReceiveMemory, QueryConditionsOfRank0) {
  auto s = Prepare(-1);
  ASSERT_TRUE(s);
  std::vector<QueryHit> hits;
  if (Rank() == 0) setenv("CAIRN_TEST_BAD_ALLOC_POINT", "query_conditions_encode", 1);
  Status st = Collective("QueryAll", [&] { return s->QueryAll({}, &hits); });
  unsetenv("CAIRN_TEST_BAD_ALLOC_POINT");
  if (Size() == 1) {  // (one rank checks nothing against itself)
    EXPECT_TRUE(st.ok()) << st.ToString();
  } else {
    EXPECT_TRUE(st.IsIOError()) << st.ToString();
    EXPECT_EQ(st.message().rfind("rank 0: ", 0), 0u) << st.ToString();
    EXPECT_NE(st.message().find("out of memory"), std::string::npos) << st.ToString();
  }
  st = s->QueryAll({}, &hits);
  ASSERT_TRUE(st.ok()) << st.ToString();
  EXPECT_EQ(hits.size(), 2u * size_t(Size()));
  CommitsAfter(s.get(), -1);
}

// The free extents rank 0 sends at a writable open (retention): every rank
// fails the open with the last rank's error, and the store opens after.
// The list spans several of the broadcast's pieces (with
// CAIRN_TEST_MPI_MAX_COUNT=9: 1 byte in the head, then pieces of 9), so
// that the failing rank takes pieces after the head into its 1 MiB: an
// outside review found the list of this test empty (one byte, all in the
// head), where a receiver that left after the head passed too.
TEST_F(ReceiveMemory, FreeExtentsOfLastRank) {
  Options o = Opts();
  o.keep_revisions = 1;
  {
    // Revision 1: ten values of two extents each per rank; revision 2
    // deletes every other one, and revision 1 expires: the extents of the
    // deleted values are free, between those of the values kept.
    std::unique_ptr<Store> s;
    ASSERT_TRUE(Store::Open(o, Path(), MPI_COMM_WORLD, &s).ok());
    for (int i = 0; i < 10; i++)
      ASSERT_TRUE(s->Put("v" + std::to_string(i), std::string(2 * o.extent_size, char('a' + i))).ok());
    ASSERT_TRUE(s->Commit().ok());
    for (int i = 0; i < 10; i += 2) ASSERT_TRUE(s->Delete("v" + std::to_string(i)).ok());
    ASSERT_TRUE(s->Commit().ok());
    ASSERT_TRUE(s->Close().ok());
  }
  {
    // What rank 0 will send (InitSpaceAtOpen): each range is three
    // varints, offset and length at least 64 KiB (three bytes each), so
    // two ranges make at least 15 bytes: past the head and a first piece.
    std::ifstream in(Path() + "/MANIFEST", std::ios::binary);
    std::string man((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    ParsedManifest pm;
    ASSERT_TRUE(ParseManifest(man, &pm).ok());
    std::vector<ExtentRange> free = FreeExtents(pm, RetainedExtents(pm), o.extent_size);
    ASSERT_GE(free.size(), 2u);
  }
  std::unique_ptr<Store> s;
  setenv("CAIRN_TEST_MPI_MAX_COUNT", "9", 1);
  Status st = FailingOnLastRank("free_extents", [&] {
    return Collective("Open", [&] { return Store::Open(o, Path(), MPI_COMM_WORLD, &s); });
  });
  unsetenv("CAIRN_TEST_MPI_MAX_COUNT");
  ExpectLastRanksFailure(st);
  EXPECT_EQ(s != nullptr, Size() == 1);
  s.reset();
  st = Store::Open(o, Path(), MPI_COMM_WORLD, &s);
  ASSERT_TRUE(st.ok()) << st.ToString();
  std::string v;
  EXPECT_TRUE(s->Get("v1", &v).ok());
  EXPECT_EQ(v, std::string(2 * o.extent_size, 'b'));
  EXPECT_TRUE(s->Get("v0", &v).IsNotFound());
  EXPECT_TRUE(s->Close().ok());
}

// A commit's array step (CommitArrays, its own gather and broadcast): a
// rank out of memory for its round (the hook "array_round"), or rank 0 for
// combining the rounds into descriptors ("array_combine"). Every rank
// fails with that rank's error and drops the round's array puts, as for
// any failed array step; the other puts commit next time, and the array
// put again commits (before: the failing rank threw out of the commit and
// the others waited for it in the gather or the broadcast).
class ArrayStepMemory : public CommitMemory {
 protected:
  void ArrayOutOfMemory(const char* point, int failing) {
    auto s = Prepare(-1);
    ASSERT_TRUE(s);
    auto put = [&] {
      std::vector<double> v(4, double(Rank()));
      return s->PutArray("a", DType::kFloat64, {4 * uint64_t(Size())}, {4 * uint64_t(Rank())}, {4}, v.data());
    };
    ASSERT_TRUE(put().ok());
    if (Rank() == failing) setenv("CAIRN_TEST_BAD_ALLOC_POINT", point, 1);
    Status st = Collective("Commit", [&] { return s->Commit(); });
    unsetenv("CAIRN_TEST_BAD_ALLOC_POINT");
    EXPECT_TRUE(st.IsIOError()) << st.ToString();
    EXPECT_EQ(st.message().rfind("rank " + std::to_string(failing) + ": ", 0), 0u) << st.ToString();
    EXPECT_NE(st.message().find("out of memory"), std::string::npos) << st.ToString();
    EXPECT_NE(st.message().find("put them again"), std::string::npos) << st.ToString();
    ASSERT_TRUE(put().ok());
    uint64_t rev = 0;
    st = s->Commit(&rev);
    ASSERT_TRUE(st.ok()) << st.ToString();
    EXPECT_EQ(rev, 2u);
    std::vector<double> all(4 * size_t(Size()));
    ASSERT_TRUE(s->GetArray("a", {0}, {4 * uint64_t(Size())}, all.data()).ok());
    for (int r = 0; r < Size(); r++) EXPECT_EQ(all[4 * size_t(r)], double(r));
    std::string v;
    ASSERT_TRUE(s->Get("next", &v).ok());
    EXPECT_TRUE(s->Close().ok());
  }
};

TEST_F(ArrayStepMemory, RoundOfLastRank) { ArrayOutOfMemory("array_round", Size() - 1); }
TEST_F(ArrayStepMemory, CombineOfRank0) { ArrayOutOfMemory("array_combine", 0); }

// The last rank cannot take in rank 0's reply ("array_outcome": its room
// for it; the reply in 9-byte pieces, so that the others are still
// sending), or runs out applying it ("array_apply"), when the reply says
// the step succeeded: it reads that from the reply's first byte and fails
// the commit's next step, so every rank returns its error; the round stays
// pending (rank 0's descriptors list every rank's blocks) and the next
// commit, with nothing put again, commits the array (before: the rank threw
// out of the commit while the others waited for it in the commit's gather).
// With one rank nobody receives the reply: "array_outcome" fails nothing.
class ArrayReplyMemory : public ArrayStepMemory {
 protected:
  void ReplyOutOfMemory(const char* point) {
    setenv("CAIRN_TEST_MPI_MAX_COUNT", "9", 1);
    auto s = Prepare(-1);
    unsetenv("CAIRN_TEST_MPI_MAX_COUNT");
    ASSERT_TRUE(s);
    std::vector<double> v(4, double(Rank()));
    ASSERT_TRUE(s->PutArray("a", DType::kFloat64, {4 * uint64_t(Size())}, {4 * uint64_t(Rank())}, {4}, v.data()).ok());
    const int failing = Size() - 1;
    const bool fails = Size() > 1 || std::string(point) != "array_outcome";
    if (Rank() == failing) setenv("CAIRN_TEST_BAD_ALLOC_POINT", point, 1);
    uint64_t rev = 0;
    Status st = Collective("Commit", [&] { return s->Commit(&rev); });
    unsetenv("CAIRN_TEST_BAD_ALLOC_POINT");
    if (fails) {
      EXPECT_TRUE(st.IsIOError()) << st.ToString();
      EXPECT_NE(st.message().find("out of memory"), std::string::npos) << st.ToString();
      EXPECT_NE(st.message().find("reply to its array step"), std::string::npos) << st.ToString();
      if (Size() > 1) {
        EXPECT_EQ(st.message().rfind("rank " + std::to_string(failing) + ": ", 0), 0u) << st.ToString();
      }
      EXPECT_EQ(s->revision(), 1u);
      st = s->Commit(&rev);  // nothing put again
    }
    ASSERT_TRUE(st.ok()) << st.ToString();
    EXPECT_EQ(rev, 2u);
    std::vector<double> all(4 * size_t(Size()));
    ASSERT_TRUE(s->GetArray("a", {0}, {4 * uint64_t(Size())}, all.data()).ok());
    for (int r = 0; r < Size(); r++) EXPECT_EQ(all[4 * size_t(r)], double(r));
    std::string got;
    ASSERT_TRUE(s->Get("next", &got).ok());
    EXPECT_TRUE(s->Close().ok());
  }
};

TEST_F(ArrayReplyMemory, ReplyOfLastRank) { ReplyOutOfMemory("array_outcome"); }
TEST_F(ArrayReplyMemory, ApplyOfLastRank) { ReplyOutOfMemory("array_apply"); }

// Rank 0 out of memory after it put one descriptor of the round, and again
// while taking it back: the reply still goes out (every rank fails the
// commit with rank 0's error, none waits), and rank 0's handle, whose
// shared namespace may keep a descriptor of discarded blocks, takes no
// more commits; nor, agreed, does any other rank's. Reopened, the store
// has revision 1, without the array (before: std::bad_alloc left the
// commit on rank 0 while the others waited in the array step's reply).
TEST_F(ArrayStepMemory, RollbackOfRank0) {
  auto s = Prepare(-1);
  ASSERT_TRUE(s);
  std::vector<double> v(4, double(Rank()));
  ASSERT_TRUE(s->PutArray("a", DType::kFloat64, {4 * uint64_t(Size())}, {4 * uint64_t(Rank())}, {4}, v.data()).ok());
  if (Rank() == 0) setenv("CAIRN_TEST_BAD_ALLOC_POINT", "array_rollback", 1);
  Status st = Collective("Commit", [&] { return s->Commit(); });
  unsetenv("CAIRN_TEST_BAD_ALLOC_POINT");
  EXPECT_TRUE(st.IsIOError()) << st.ToString();
  EXPECT_EQ(st.message().rfind("rank 0: ", 0), 0u) << st.ToString();
  EXPECT_NE(st.message().find("out of memory"), std::string::npos) << st.ToString();
  st = Collective("Commit", [&] { return s->Commit(); });
  EXPECT_FALSE(st.ok());
  EXPECT_NE(st.message().find("close and reopen"), std::string::npos) << st.ToString();
  EXPECT_NE(st.message().find("ran out of memory"), std::string::npos) << st.ToString();
  EXPECT_EQ(st.message().find("durable"), std::string::npos) << st.ToString();
  s->Close();
  s.reset();
  ASSERT_TRUE(Store::Open(Opts(), Path(), MPI_COMM_WORLD, &s).ok());
  EXPECT_EQ(s->revision(), 1u);
  std::string got;
  ASSERT_TRUE(s->Get("first", &got).ok());
  EXPECT_EQ(got, "r" + std::to_string(Rank()));
  ArrayInfo info;
  EXPECT_TRUE(s->GetArrayInfo("a", &info).IsNotFound());
  EXPECT_TRUE(s->Close().ok());
}

// The other collective calls that hold a rank's large allocation: a
// rank whose own index table does not fit fails the open of every rank
// (it read it alone: before, it threw while the others waited in the
// agreement); a rank that cannot hold a shared value fails GetShared on
// every rank (before, it threw in the broadcast's resize while the others
// sent the value).
class CollectiveMemory : public test::MpiDirTest {
 protected:
  // Revision 1; `failing` holds a tag of kTag bytes (its table is read by
  // it alone at open: larger than compact_index_limit).
  void MakeStore(int failing) {
    std::unique_ptr<Store> s;
    Options o = Opts();
    o.compact_index_limit = 64 * 1024;
    ASSERT_TRUE(Store::Open(o, Path(), MPI_COMM_WORLD, &s).ok());
    EXPECT_TRUE(s->Put("first", "r" + std::to_string(Rank())).ok());
    if (Rank() == failing) {
      EXPECT_TRUE(s->Put("big", "b", {{"t", TagValue::Bytes(std::string(kTag, 'x'))}}).ok());
    }
    if (Rank() == 0) {
      EXPECT_TRUE(s->PutShared("shared", std::string(kTag, 's')).ok());
    }
    ASSERT_TRUE(s->Commit().ok());
    ASSERT_TRUE(s->Close().ok());
  }
  // `scattered`: the tables are small enough for rank 0 to send (each rank
  // takes room for its own first); else each rank reads its own.
  void OpenOutOfMemory(int failing, bool scattered, bool read_only = false) {
    SKIP_UNDER_ASAN();
    MakeStore(failing);
    std::unique_ptr<Store> s;
    Status st;
    {
      std::unique_ptr<test::AddressLimit> limit;
      if (Rank() == failing) {
        limit = std::make_unique<test::AddressLimit>(kTag / 2);
        EXPECT_TRUE(limit->ok());
      }
      Options o = Opts();
      if (!scattered) o.compact_index_limit = 64 * 1024;
      o.read_only = read_only;
      st = Collective("Open", [&] { return Store::Open(o, Path(), MPI_COMM_WORLD, &s); });
    }
    EXPECT_TRUE(st.IsIOError()) << st.ToString();
    EXPECT_NE(st.message().find("out of memory"), std::string::npos) << st.ToString();
    if (Size() > 1) {  // (the failing rank named, as every agreed failure is)
      EXPECT_EQ(st.message().rfind("rank " + std::to_string(failing) + ": ", 0), 0u) << st.ToString();
    }
    EXPECT_FALSE(s);
    st = Store::Open(Opts(), Path(), MPI_COMM_WORLD, &s);
    ASSERT_TRUE(st.ok()) << st.ToString();
    std::string v;
    EXPECT_TRUE(s->Get("first", &v).ok());
    EXPECT_TRUE(s->Close().ok());
  }
};

TEST_F(CollectiveMemory, OpenOfRank0) { OpenOutOfMemory(0, true); }
TEST_F(CollectiveMemory, OpenOfLastRank) { OpenOutOfMemory(Size() - 1, true); }
TEST_F(CollectiveMemory, OpenOfLastRankReadAlone) { OpenOutOfMemory(Size() - 1, false); }
// A read-only open: the last rank's table, which rank 0 read and scatters,
// does not fit in its memory. No agreement precedes that scatter: the rank
// takes the bytes in pieces into a small buffer it holds, and fails in the
// agreement that follows (before: it threw out of the open while rank 0
// was sending, and the others waited for it for ever).
TEST_F(CollectiveMemory, ReadOnlyOpenOfLastRank) { OpenOutOfMemory(Size() - 1, true, true); }

// Rank 0 sends the ranks' tables it read at a writable open from where it
// read them: before, it copied them end to end first, outside any guarded
// step, and with room for one copy and not two (the last rank's 40 MiB
// table, 50 MiB of room) it threw out of the open while the others waited
// in the scatter. With one rank, rank 0 also takes room for its own table
// (a second copy): whether that fits depends on the heap it kept.
TEST_F(CollectiveMemory, ScatterOfRank0) {
  SKIP_UNDER_ASAN();
  const int big = Size() - 1;
  {
    std::unique_ptr<Store> s;
    ASSERT_TRUE(Store::Open(Opts(), Path(), MPI_COMM_WORLD, &s).ok());
    EXPECT_TRUE(s->Put("first", "r" + std::to_string(Rank())).ok());
    if (Rank() == big) {
      EXPECT_TRUE(s->Put("big", "b", {{"t", TagValue::Bytes(std::string(40u << 20, 'x'))}}).ok());
    }
    ASSERT_TRUE(s->Commit().ok());
    ASSERT_TRUE(s->Close().ok());
  }
  std::unique_ptr<Store> s;
  Status st;
  {
    std::unique_ptr<test::AddressLimit> limit;
    if (Rank() == 0) {
      limit = std::make_unique<test::AddressLimit>(50u << 20);
      EXPECT_TRUE(limit->ok());
    }
    st = Collective("Open", [&] { return Store::Open(Opts(), Path(), MPI_COMM_WORLD, &s); });
  }
  if (Size() == 1 && !st.ok()) {
    EXPECT_TRUE(st.IsIOError()) << st.ToString();
    EXPECT_NE(st.message().find("out of memory"), std::string::npos) << st.ToString();
    ASSERT_TRUE(Store::Open(Opts(), Path(), MPI_COMM_WORLD, &s).ok());
  }
  ASSERT_TRUE(st.ok() || Size() == 1) << st.ToString();
  std::string v;
  EXPECT_TRUE(s->Get("first", &v).ok());
  EXPECT_TRUE(s->Close().ok());
}

// The shared table rank 0 broadcasts at a writable open (40 MiB: a shared
// key's tag) does not fit in the last rank's memory: that rank takes the
// bytes in pieces and discards them, and reads the table from the file
// when it needs it; the open succeeds on every rank (before: it threw out
// of the open while rank 0 was sending, and the others waited for ever).
TEST_F(CollectiveMemory, SharedTableOfLastRank) {
  SKIP_UNDER_ASAN();
  const int failing = Size() - 1;
  {
    std::unique_ptr<Store> s;
    ASSERT_TRUE(Store::Open(Opts(), Path(), MPI_COMM_WORLD, &s).ok());
    EXPECT_TRUE(s->Put("first", "r" + std::to_string(Rank())).ok());
    if (Rank() == 0) {
      EXPECT_TRUE(s->PutShared("shared", "v", {{"t", TagValue::Bytes(std::string(40u << 20, 's'))}}).ok());
    }
    ASSERT_TRUE(s->Commit().ok());
    ASSERT_TRUE(s->Close().ok());
  }
  std::unique_ptr<Store> s;
  Status st;
  {
    std::unique_ptr<test::AddressLimit> limit;
    if (Rank() == failing && failing != 0) {
      limit = std::make_unique<test::AddressLimit>(kTag / 2);
      EXPECT_TRUE(limit->ok());
    }
    st = Collective("Open", [&] { return Store::Open(Opts(), Path(), MPI_COMM_WORLD, &s); });
  }
  ASSERT_TRUE(st.ok()) << st.ToString();
  std::string v;
  EXPECT_TRUE(s->Get("first", &v).ok());
  st = s->GetShared("shared", &v);
  EXPECT_TRUE(st.ok()) << st.ToString();
  EXPECT_EQ(v, "v");
  EXPECT_TRUE(s->Close().ok());
}

// A read-only open sends the compact shared table (here 40 MiB: a shared
// key's tag) with rank 0's first message. The last rank has room for that
// message and not for a second copy of the table: it keeps the table
// where it arrived (or, without room to parse it, reads it on demand), and
// the open succeeds on every rank (before: it copied the table out of the
// message, unguarded, threw out of the open, and the others waited for it
// in the table scatter; an outside review).
TEST_F(CollectiveMemory, ReadOnlySharedCopyOfLastRank) {
  SKIP_UNDER_ASAN();
  const int failing = Size() - 1;
  const size_t kShared = 40u << 20;
  {
    std::unique_ptr<Store> s;
    ASSERT_TRUE(Store::Open(Opts(), Path(), MPI_COMM_WORLD, &s).ok());
    EXPECT_TRUE(s->Put("first", "r" + std::to_string(Rank())).ok());
    if (Rank() == 0) {
      EXPECT_TRUE(s->PutShared("shared", "v", {{"t", TagValue::Bytes(std::string(kShared, 's'))}}).ok());
    }
    ASSERT_TRUE(s->Commit().ok());
    ASSERT_TRUE(s->Close().ok());
  }
  std::unique_ptr<Store> s;
  Status st;
  {
    std::unique_ptr<test::AddressLimit> limit;
    if (Rank() == failing && failing != 0) {
      limit = std::make_unique<test::AddressLimit>(kShared + kShared / 2);  // one copy, not two
      EXPECT_TRUE(limit->ok());
    }
    Options o = Opts();
    o.read_only = true;
    st = Collective("Open", [&] { return Store::Open(o, Path(), MPI_COMM_WORLD, &s); });
  }
  ASSERT_TRUE(st.ok()) << st.ToString();
  std::string v;
  EXPECT_TRUE(s->Get("first", &v).ok());
  EXPECT_EQ(v, "r" + std::to_string(Rank()));
  st = s->GetShared("shared", &v);
  EXPECT_TRUE(st.ok()) << st.ToString();
  EXPECT_EQ(v, "v");
  EXPECT_TRUE(s->Close().ok());
}

TEST_F(CollectiveMemory, GetSharedOfLastRank) {
  SKIP_UNDER_ASAN();
  const int failing = Size() - 1;
  MakeStore(-1);
  std::unique_ptr<Store> s;
  ASSERT_TRUE(Store::Open(Opts(), Path(), MPI_COMM_WORLD, &s).ok());
  std::string v;
  Status st;
  {
    std::unique_ptr<test::AddressLimit> limit;
    if (Rank() == failing) {
      limit = std::make_unique<test::AddressLimit>(kTag / 2);
      EXPECT_TRUE(limit->ok());
    }
    st = Collective("GetShared", [&] { return s->GetShared("shared", &v); });
  }
  EXPECT_TRUE(st.IsIOError()) << st.ToString();
  EXPECT_NE(st.message().find("memory"), std::string::npos) << st.ToString();
  EXPECT_TRUE(v.empty());
  st = s->GetShared("shared", &v);
  ASSERT_TRUE(st.ok()) << st.ToString();
  EXPECT_EQ(v, std::string(kTag, 's'));
  EXPECT_TRUE(s->Close().ok());
}

}  // namespace
}  // namespace cairn

CAIRN_MPI_TEST_MAIN
