// Features tested against each other where doc/interactions.md found no
// test: a read-only handle beside a writer whose retention expires (and
// reuses the space of) the revision it opened; a write stream open across
// commits in a namespace whose table is otherwise reused, with keep 1; tag
// edits, Pin/Unpin/Drop, and read-only opens, while an asynchronous commit
// is in flight (with and without staging). At
// 1, 2 and 4 ranks; every test reads the data back.
#include <gtest/gtest.h>
#include <mpi.h>

#include <string>
#include <vector>

#include "cairn/store.h"
#include "cairn/stream.h"
#include "mpi_main.h"
#include "store_test_util.h"

namespace cairn::test {
namespace {

std::string Key(int i) { return "k" + std::to_string(i); }
std::string Value(int rank, int i, int gen, size_t base = 5000) {
  std::string v(base + size_t(i) * 311, '\0');
  for (size_t j = 0; j < v.size(); j++) v[j] = char((rank * 131 + i * 17 + gen * 7 + int(j) * 3) & 0xff);
  return v;
}

class Interactions : public MpiDirTest {};

// A read-only handle of revision 1 beside a writer that then commits 30
// revisions with keep 1, rewriting every key (four 64 KiB extents a
// revision): revision 1 expires and its space is reused. The reader's Gets must return revision 1's values or
// fail with Corruption: never another revision's bytes, never wrong data.
TEST_F(Interactions, ReaderBesideAWriterWhoseRetentionReusesItsRevision) {
  int rank = Rank();
  const int n = 6;
  const size_t kBig = 40000;  // 6 x 40 KB a revision: every free extent is needed again
  Options o = SmallUnsyncedOptions();
  o.keep_revisions = 1;
  std::unique_ptr<Store> w;
  ASSERT_TRUE(Store::Open(o, Path(), MPI_COMM_WORLD, &w).ok());
  for (int i = 0; i < n; i++) ASSERT_TRUE(w->Put(Key(i), Value(rank, i, 0, kBig)).ok());
  ASSERT_TRUE(w->Commit().ok());  // 1
  Options ro = SmallUnsyncedOptions();
  ro.read_only = true;
  ro.revision = 1;
  std::unique_ptr<Store> r;
  ASSERT_TRUE(Store::Open(ro, Path(), MPI_COMM_WORLD, &r).ok());
  std::string v;
  ASSERT_TRUE(r->Get(Key(0), &v).ok());  // read once before
  EXPECT_EQ(v, Value(rank, 0, 0, kBig));
  for (int gen = 1; gen <= 30; gen++) {
    for (int i = 0; i < n; i++) ASSERT_TRUE(w->Put(Key(i), Value(rank, i, gen, kBig)).ok());
    ASSERT_TRUE(w->Commit().ok());
  }
  int corrupt = 0;
  for (int i = 0; i < n; i++) {
    std::string got;
    Status st = r->Get(Key(i), &got);
    if (st.ok()) {
      EXPECT_EQ(got, Value(rank, i, 0, kBig)) << Key(i) << ": the reader of revision 1 got other bytes";
    } else {
      EXPECT_TRUE(st.IsCorruption()) << Key(i) << ": " << st.ToString();
      corrupt++;
    }
  }
  // The space was reused, so at least one read must have noticed.
  EXPECT_GT(corrupt, 0) << "revision 1's space was not reused: the test proves nothing";
  ASSERT_TRUE(r->Close().ok());
  for (int i = 0; i < n; i++) {
    ASSERT_TRUE(w->Get(Key(i), &v).ok());
    EXPECT_EQ(v, Value(rank, i, 30, kBig));
  }
  ASSERT_TRUE(w->Close().ok());
}

// A write stream stays open across commits in which nothing else of its
// namespace changes (its table is reused), with keep 1 expiring the
// revisions around it: the stream's bytes are never reused, the commits
// made meanwhile hold the key's previous object, and the commit after its
// Close rebuilds the table with the stream's object.
TEST_F(Interactions, StreamOpenAcrossCommitsWithReusedTables) {
  int rank = Rank();
  Options o = SmallUnsyncedOptions();
  o.keep_revisions = 1;
  std::string streamed;
  {
    std::unique_ptr<Store> s;
    ASSERT_TRUE(Store::Open(o, Path(), MPI_COMM_WORLD, &s).ok());
    ASSERT_TRUE(s->Put("log", "old").ok());
    ASSERT_TRUE(s->Put("other", Value(rank, 1, 0)).ok());
    ASSERT_TRUE(s->Commit().ok());  // 1
    std::unique_ptr<StreamWriter> sw;
    ASSERT_TRUE(s->OpenWriteStream("log", {{"kind", TagValue::Int(1)}}, &sw).ok());
    for (int gen = 1; gen <= 12; gen++) {
      std::string part = Value(rank, 2, gen);  // 5.6 KB per commit, flushed as it goes
      streamed += part;
      ASSERT_TRUE(sw->Write(part).ok());
      ASSERT_TRUE(sw->Flush().ok());
      if (rank == 0 && gen % 3 == 0) { ASSERT_TRUE(s->PutShared("tick", std::to_string(gen)).ok()); }
      ASSERT_TRUE(s->Commit().ok());  // 2..13: this rank's table reused; space of the expired ones reused
      std::string v;
      ASSERT_TRUE(s->Get("log", &v).ok());
      EXPECT_EQ(v, "old") << "commit " << gen + 1 << " while the stream is open";
    }
    ASSERT_TRUE(sw->Close().ok());
    uint64_t got = 0;
    ASSERT_TRUE(s->Commit(&got).ok());  // 14: the stream's object
    EXPECT_EQ(got, 14u);
    ASSERT_TRUE(s->Close().ok());
  }
  Options ro = o;
  ro.read_only = true;
  std::unique_ptr<Store> s;
  ASSERT_TRUE(Store::Open(ro, Path(), MPI_COMM_WORLD, &s).ok());
  ASSERT_EQ(s->revision(), 14u);
  std::string v;
  ASSERT_TRUE(s->Get("log", &v).ok());
  EXPECT_EQ(v.size(), streamed.size());
  EXPECT_TRUE(v == streamed) << "the streamed object differs";
  TagList t;
  ASSERT_TRUE(s->GetTags("log", &t).ok());
  EXPECT_EQ(t, (TagList{{"kind", TagValue::Int(1)}}));
  ASSERT_TRUE(s->Get("other", &v).ok());
  EXPECT_EQ(v, Value(rank, 1, 0));
  std::string tick;
  ASSERT_TRUE(s->GetShared("tick", &tick).ok());
  EXPECT_EQ(tick, "12");
}

// Tag edits (no put) made while a CommitAsync is in flight belong to the
// next revision; the revision in flight keeps the tags it had at the call.
TEST_F(Interactions, TagEditsWhileAnAsyncCommitIsInFlight) {
  int rank = Rank();
  for (uint64_t staging : {uint64_t(0), uint64_t(256 << 10)}) {
    SCOPED_TRACE("staging_bytes " + std::to_string(staging));
    std::string path = Path() + std::to_string(staging);
    Options o = SmallUnsyncedOptions();
    o.staging_bytes = staging;
    {
      std::unique_ptr<Store> s;
      ASSERT_TRUE(Store::Open(o, path, MPI_COMM_WORLD, &s).ok());
      ASSERT_TRUE(s->Put("a", Value(rank, 0, 0), {{"v", TagValue::Int(1)}}).ok());
      ASSERT_TRUE(s->Commit().ok());  // 1
      ASSERT_TRUE(s->Put("b", Value(rank, 1, 0)).ok());
      AsyncCommit h;
      ASSERT_TRUE(s->CommitAsync(&h).ok());  // 2: a{v=1}, b
      ASSERT_TRUE(s->SetTag("a", {"v", TagValue::Int(2)}).ok());
      ASSERT_TRUE(s->SetTag("b", {"w", TagValue::String("x")}).ok());
      ASSERT_TRUE(h.Wait().ok());
      ASSERT_TRUE(s->CommitAsync(&h).ok());  // 3: a{v=2}, b{w=x}
      ASSERT_TRUE(s->DeleteTag("a", "v").ok());
      ASSERT_TRUE(h.Wait().ok());
      ASSERT_TRUE(s->Commit().ok());  // 4: a{}, b{w=x}
      ASSERT_TRUE(s->Close().ok());
    }
    struct Want { uint64_t rev; TagList a; TagList b; };
    for (const Want& w : {Want{2, {{"v", TagValue::Int(1)}}, {}},
                          Want{3, {{"v", TagValue::Int(2)}}, {{"w", TagValue::String("x")}}},
                          Want{4, {}, {{"w", TagValue::String("x")}}}}) {
      Options ro = o;
      ro.read_only = true;
      ro.revision = w.rev;
      std::unique_ptr<Store> s;
      ASSERT_TRUE(Store::Open(ro, path, MPI_COMM_WORLD, &s).ok());
      TagList ta, tb;
      ASSERT_TRUE(s->GetTags("a", &ta).ok());
      ASSERT_TRUE(s->GetTags("b", &tb).ok());
      EXPECT_EQ(ta, w.a) << "revision " << w.rev;
      EXPECT_EQ(tb, w.b) << "revision " << w.rev;
      std::string v;
      ASSERT_TRUE(s->Get("a", &v).ok());
      EXPECT_EQ(v, Value(rank, 0, 0));
      ASSERT_TRUE(s->Get("b", &v).ok());
      EXPECT_EQ(v, Value(rank, 1, 0));
      std::vector<std::string> keys;
      ASSERT_TRUE(s->Query({TagQuery::Exists("w")}, &keys).ok());
      EXPECT_EQ(keys, (w.rev >= 3 ? std::vector<std::string>{"b"} : std::vector<std::string>{}));
    }
  }
}

// Pin, Unpin and Drop called while a CommitAsync is in flight: the commit
// finishes first (one collective at a time), so a revision it expires can
// no longer be pinned (NotFound), and the manifest stays readable with
// every retained revision intact.
TEST_F(Interactions, PinAndDropWhileAnAsyncCommitIsInFlight) {
  int rank = Rank();
  for (uint64_t keep : {uint64_t(0), uint64_t(1)}) {
    SCOPED_TRACE("keep_revisions " + std::to_string(keep));
    std::string path = Path() + std::to_string(keep);
    Options o = SmallUnsyncedOptions();
    o.keep_revisions = keep;
    {
      std::unique_ptr<Store> s;
      ASSERT_TRUE(Store::Open(o, path, MPI_COMM_WORLD, &s).ok());
      ASSERT_TRUE(s->Put("a", Value(rank, 0, 1)).ok());
      ASSERT_TRUE(s->Commit().ok());  // 1
      ASSERT_TRUE(s->Put("a", Value(rank, 0, 2)).ok());
      AsyncCommit h;
      ASSERT_TRUE(s->CommitAsync(&h).ok());  // 2 (expires 1 with keep 1)
      Status st = s->Pin(1);
      if (keep == 1) {
        EXPECT_TRUE(st.IsNotFound()) << st.ToString();
      } else {
        ASSERT_TRUE(st.ok()) << st.ToString();
        EXPECT_TRUE(s->Drop(1).IsInvalidArgument());  // pinned
        ASSERT_TRUE(s->Unpin(1).ok());
      }
      ASSERT_TRUE(h.Wait().ok());
      ASSERT_TRUE(s->Put("a", Value(rank, 0, 3)).ok());
      ASSERT_TRUE(s->CommitAsync(&h).ok());  // 3
      st = s->Drop(2);  // expired by 3 (keep 1), or dropped now (keep 0)
      if (keep == 1) {
        EXPECT_TRUE(st.IsNotFound()) << st.ToString();
      } else {
        EXPECT_TRUE(st.ok()) << st.ToString();
      }
      ASSERT_TRUE(h.Wait().ok());
      ASSERT_TRUE(s->Close().ok());
    }
    std::vector<RevisionInfo> revs;
    {
      Options ro = o;
      ro.read_only = true;
      std::unique_ptr<Store> s;
      ASSERT_TRUE(Store::Open(ro, path, MPI_COMM_WORLD, &s).ok());
      ASSERT_TRUE(s->ListRevisions(&revs).ok());
    }
    std::vector<uint64_t> got;
    for (const RevisionInfo& r : revs) got.push_back(r.revision);
    EXPECT_EQ(got, (keep == 1 ? std::vector<uint64_t>{3} : std::vector<uint64_t>{1, 3}));
    for (uint64_t rev : got) {
      Options ro = o;
      ro.read_only = true;
      ro.revision = rev;
      std::unique_ptr<Store> s;
      ASSERT_TRUE(Store::Open(ro, path, MPI_COMM_WORLD, &s).ok()) << "revision " << rev;
      std::string v;
      ASSERT_TRUE(s->Get("a", &v).ok());
      EXPECT_EQ(v, Value(rank, 0, int(rev))) << "revision " << rev;
    }
    std::unique_ptr<Store> w;  // and a writer still opens and commits
    ASSERT_TRUE(Store::Open(o, path, MPI_COMM_WORLD, &w).ok());
    uint64_t next = 0;
    ASSERT_TRUE(w->Commit(&next).ok());
    EXPECT_EQ(next, 4u);
  }
}

// Every writer rank's keys of the revision `r` opened, read through
// ReadOptions::rank: all of generation r->revision() (each revision
// rewrites every key with its own number), so a mix of two revisions, or
// puts not yet committed, show as other bytes.
void ExpectWholeRevision(Store* r, int writers, int n, size_t base) {
  int gen = int(r->revision());
  for (int wr = 0; wr < writers; wr++) {
    ReadOptions ro;
    ro.rank = wr;
    for (int i = 0; i < n; i++) {
      std::string v;
      Status st = r->Get(Key(i), &v, ro);
      ASSERT_TRUE(st.ok()) << "revision " << gen << ", rank " << wr << ", " << Key(i) << ": " << st.ToString();
      EXPECT_EQ(v, Value(wr, i, gen, base)) << "revision " << gen << ", rank " << wr << ", " << Key(i)
                                            << ": not that revision's bytes";
    }
  }
}

// Read-only handles (MPI_COMM_SELF, one per rank) beside asynchronous
// commits in flight, with and without staging, keep 3: while commit g runs
// and the writer puts generation g + 1 (half before the reads, half after),
// each rank opens the newest revision over and over until the commit has
// finished (Test), and reads a handle of revision g - 1 opened before it.
// Every open must show revision g - 1 or g, whole: every rank's every key
// of that very revision, never a mix, never the puts in flight; at least
// one open over the run must have happened while a commit was in flight.
TEST_F(Interactions, ReadOnlyOpensBesideAnAsyncCommitInFlight) {
  int rank = Rank(), size;
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const int n = 6;
  const size_t kBase = 20000;
  for (uint64_t staging : {uint64_t(0), uint64_t(256 << 10)}) {
    SCOPED_TRACE("staging_bytes " + std::to_string(staging));
    std::string path = Path() + std::to_string(staging);
    Options o = SmallUnsyncedOptions();
    o.staging_bytes = staging;
    o.keep_revisions = 3;
    o.sync = true;  // a commit in flight long enough to open beside it
    Options ro = SmallUnsyncedOptions();
    ro.read_only = true;
    ro.create_if_missing = false;
    std::unique_ptr<Store> w;
    ASSERT_TRUE(Store::Open(o, path, MPI_COMM_WORLD, &w).ok());
    for (int i = 0; i < n; i++) ASSERT_TRUE(w->Put(Key(i), Value(rank, i, 1, kBase)).ok());
    ASSERT_TRUE(w->Commit().ok());  // 1
    for (int i = 0; i < n; i++) ASSERT_TRUE(w->Put(Key(i), Value(rank, i, 2, kBase)).ok());
    long in_flight = 0, opens = 0;
    for (int gen = 2; gen <= 12; gen++) {
      std::unique_ptr<Store> before;
      ASSERT_TRUE(Store::Open(ro, path, MPI_COMM_SELF, &before).ok());
      ASSERT_EQ(before->revision(), uint64_t(gen - 1));
      AsyncCommit h;
      ASSERT_TRUE(w->CommitAsync(&h).ok());  // revision gen
      for (int i = 0; i < n / 2; i++) ASSERT_TRUE(w->Put(Key(i), Value(rank, i, gen + 1, kBase)).ok());
      bool done = false;
      do {
        done = h.Test();
        std::unique_ptr<Store> r;
        Status st = Store::Open(ro, path, MPI_COMM_SELF, &r);
        ASSERT_TRUE(st.ok()) << st.ToString();
        opens++;
        if (!done && !h.Test()) in_flight++;  // still in flight after the open
        ASSERT_TRUE(r->revision() == uint64_t(gen - 1) || r->revision() == uint64_t(gen))
            << "opened revision " << r->revision() << " beside commit " << gen;
        ASSERT_NO_FATAL_FAILURE(ExpectWholeRevision(r.get(), size, n, kBase));
        ASSERT_NO_FATAL_FAILURE(ExpectWholeRevision(before.get(), size, n, kBase));
      } while (!done);
      for (int i = n / 2; i < n; i++) ASSERT_TRUE(w->Put(Key(i), Value(rank, i, gen + 1, kBase)).ok());
      uint64_t got = 0;
      ASSERT_TRUE(h.Wait(&got).ok());
      ASSERT_EQ(got, uint64_t(gen));
      ASSERT_NO_FATAL_FAILURE(ExpectWholeRevision(before.get(), size, n, kBase));
    }
    uint64_t last = 0;
    ASSERT_TRUE(w->Commit(&last).ok());  // 13: the puts made while 12 was in flight
    ASSERT_EQ(last, 13u);
    ASSERT_TRUE(w->Close().ok());
    std::unique_ptr<Store> r;
    ASSERT_TRUE(Store::Open(ro, path, MPI_COMM_SELF, &r).ok());
    EXPECT_EQ(r->revision(), 13u);
    EXPECT_NO_FATAL_FAILURE(ExpectWholeRevision(r.get(), size, n, kBase));
    long total = 0;
    MPI_Allreduce(&in_flight, &total, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
    EXPECT_GT(total, 0) << "no open happened while a commit was in flight (" << opens
                        << " opens on rank " << rank << "): the test proves nothing";
  }
}

}  // namespace
}  // namespace cairn::test

CAIRN_MPI_TEST_MAIN
