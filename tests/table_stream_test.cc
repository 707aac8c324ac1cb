// A large index table of entries all put since the last revision is
// written in pieces from the put arena, and becomes the next base without
// being copied (commit_tables.h). Checked at 1, 2 and 4 ranks: the base
// after such a commit answers reads, edits and deletes; a later commit
// reuses it, or builds from it; the chunks its entries name stay live
// (their space is not handed out again while a revision needs them), for
// the streamed commit itself and for a reuse of its table; and the same
// under an asynchronous commit with puts made while it is in flight.
#include <gtest/gtest.h>
#include <mpi.h>

#include <map>
#include <string>
#include <vector>

#include "cairn/store.h"
#include "mpi_main.h"

namespace cairn::test {
namespace {

int Rank() {
  int r;
  MPI_Comm_rank(MPI_COMM_WORLD, &r);
  return r;
}

Options StreamOptions() {
  Options o;
  o.extent_size = 64 * 1024;
  o.chunk_size = 16 * 1024;
  o.write_buffer_size = 32 * 1024;
  o.inline_value_limit = 64;
  o.compact_index_limit = 1024;  // tables above 1 KiB are not gathered: streamed
  o.keep_revisions = 1;          // space of older revisions is reused at once
  o.sync = false;
  return o;
}

std::string Key(int rank, int i) {
  char b[32];
  snprintf(b, sizeof b, "r%d_k%05d", rank, i);
  return b;
}
// Every fifth value is chunked (over the inline limit), the others inline.
std::string Value(int rank, int i, int gen) {
  size_t n = i % 5 == 0 ? 3000 + size_t(i) * 7 : 10 + size_t(i % 40);
  return std::string(n, char('a' + (rank + i + gen) % 26));
}
TagList Tags(int rank, int i, int gen) {
  return {{"rank", TagValue::Int(rank)}, {"i", TagValue::Int(i)}, {"gen", TagValue::Int(gen)}};
}

// What every key of this rank should read as (value, generation); absent: deleted.
using Want = std::map<std::string, std::pair<std::string, int>>;

void Expect(Store* s, int rank, const Want& want, int n) {
  for (int i = 0; i < n; i++) {
    std::string k = Key(rank, i), v;
    auto it = want.find(k);
    Status st = s->Get(k, &v);
    if (it == want.end()) {
      EXPECT_TRUE(st.IsNotFound()) << k << ": " << st.ToString();
      continue;
    }
    ASSERT_TRUE(st.ok()) << k << ": " << st.ToString();
    EXPECT_EQ(v, it->second.first) << k;
    TagList t;
    ASSERT_TRUE(s->GetTags(k, &t).ok()) << k;
    EXPECT_EQ(t, Tags(rank, i, it->second.second)) << k;
  }
}

class TableStreamTest : public MpiDirTest {};

TEST_F(TableStreamTest, StreamedBaseServesReadsEditsAndLaterCommits) {
  int rank = Rank();
  const int n = 400;
  Want want;
  {
    std::unique_ptr<Store> s;
    ASSERT_TRUE(Store::Open(StreamOptions(), Path(), MPI_COMM_WORLD, &s).ok());
    for (int i = 0; i < n; i++) {
      ASSERT_TRUE(s->Put(Key(rank, i), Value(rank, i, 0), Tags(rank, i, 0)).ok());
      want[Key(rank, i)] = {Value(rank, i, 0), 0};
    }
    ASSERT_TRUE(s->Commit().ok());  // revision 1: streamed
    EXPECT_EQ(s->stats().index_tables_streamed, 1u);
    Expect(s.get(), rank, want, n);  // from the streamed base

    // Revision 2: nothing changed, the streamed table is reused; revision
    // 1 expires (keep 1), so the chunks live only through revision 2.
    ASSERT_TRUE(s->Commit().ok());
    EXPECT_EQ(s->stats().index_tables_reused, rank == 0 ? 2u : 1u);  // rank 0: the shared one too
    // Revision 3: new chunked objects take free space; none of it may be
    // a chunk the streamed table names.
    for (int i = n; i < 2 * n; i++) {
      ASSERT_TRUE(s->Put(Key(rank, i), Value(rank, i, 1), Tags(rank, i, 1)).ok());
      want[Key(rank, i)] = {Value(rank, i, 1), 1};
    }
    // Edits of the streamed base: a re-put, a delete.
    ASSERT_TRUE(s->Put(Key(rank, 3), Value(rank, 3, 2), Tags(rank, 3, 2)).ok());
    want[Key(rank, 3)] = {Value(rank, 3, 2), 2};
    ASSERT_TRUE(s->Delete(Key(rank, 10)).ok());
    want.erase(Key(rank, 10));
    Expect(s.get(), rank, want, 2 * n);
    ASSERT_TRUE(s->Commit().ok());  // built from the base (not streamed)
    EXPECT_EQ(s->stats().index_tables_streamed, 1u);
    Expect(s.get(), rank, want, 2 * n);
    ASSERT_TRUE(s->Close().ok());
  }
  std::unique_ptr<Store> s;
  ASSERT_TRUE(Store::Open(StreamOptions(), Path(), MPI_COMM_WORLD, &s).ok());
  Expect(s.get(), rank, want, 2 * n);
  // Every object re-put: streamed again, over a base read from the file.
  for (int i = 0; i < 2 * n; i++) {
    ASSERT_TRUE(s->Put(Key(rank, i), Value(rank, i, 3), Tags(rank, i, 3)).ok());
    want[Key(rank, i)] = {Value(rank, i, 3), 3};
  }
  ASSERT_TRUE(s->Commit().ok());
  EXPECT_EQ(s->stats().index_tables_streamed, 1u);
  ASSERT_TRUE(s->Close().ok());
  ASSERT_TRUE(Store::Open(StreamOptions(), Path(), MPI_COMM_WORLD, &s).ok());
  Expect(s.get(), rank, want, 2 * n);
  ASSERT_TRUE(s->Close().ok());
}

TEST_F(TableStreamTest, StreamedChunksStayLiveWhenTheirSpaceIsReused) {
  // Revision 1 streamed, with chunked values; revision 2 writes new
  // chunked objects into the free space revision 1's commit handed out.
  int rank = Rank();
  const int n = 300;
  Want want;
  std::unique_ptr<Store> s;
  ASSERT_TRUE(Store::Open(StreamOptions(), Path(), MPI_COMM_WORLD, &s).ok());
  // Revision 1 of throwaway objects, so revision 2's commit frees space.
  for (int i = 0; i < n; i++) ASSERT_TRUE(s->Put("old" + Key(rank, i), Value(rank, i, 9)).ok());
  ASSERT_TRUE(s->Commit().ok());
  for (int i = 0; i < n; i++) ASSERT_TRUE(s->Delete("old" + Key(rank, i)).ok());
  for (int i = 0; i < n; i++) {
    ASSERT_TRUE(s->Put(Key(rank, i), Value(rank, i, 0), Tags(rank, i, 0)).ok());
    want[Key(rank, i)] = {Value(rank, i, 0), 0};
  }
  // Streamed too: no entry of the base is kept (all deleted); revision 1
  // expires.
  ASSERT_TRUE(s->Commit().ok());
  EXPECT_EQ(s->stats().index_tables_streamed, 2u);
  for (int i = 0; i < n; i++) {
    ASSERT_TRUE(s->Put(Key(rank, i), Value(rank, i, 1), Tags(rank, i, 1)).ok());
    want[Key(rank, i)] = {Value(rank, i, 1), 1};
  }
  ASSERT_TRUE(s->Commit().ok());  // streamed: every entry re-put
  EXPECT_EQ(s->stats().index_tables_streamed, 3u);
  for (int i = n; i < 3 * n; i++) {
    ASSERT_TRUE(s->Put(Key(rank, i), Value(rank, i, 2), Tags(rank, i, 2)).ok());
    want[Key(rank, i)] = {Value(rank, i, 2), 2};
  }
  ASSERT_TRUE(s->Commit().ok());
  ASSERT_TRUE(s->Close().ok());
  ASSERT_TRUE(Store::Open(StreamOptions(), Path(), MPI_COMM_WORLD, &s).ok());
  Expect(s.get(), rank, want, 3 * n);
  ASSERT_TRUE(s->Close().ok());
}

TEST_F(TableStreamTest, AsyncStreamedCommitWithPutsInFlight) {
  int rank = Rank();
  const int n = 400;
  Options o = StreamOptions();
  o.staging_bytes = 256 * 1024;  // the table's pieces go through the staging queue
  o.keep_revisions = 0;          // the asynchronous commit's revision is read back
  Want want;
  std::unique_ptr<Store> s;
  ASSERT_TRUE(Store::Open(o, Path(), MPI_COMM_WORLD, &s).ok());
  for (int i = 0; i < n; i++) {
    ASSERT_TRUE(s->Put(Key(rank, i), Value(rank, i, 0), Tags(rank, i, 0)).ok());
    want[Key(rank, i)] = {Value(rank, i, 0), 0};
  }
  AsyncCommit c;
  ASSERT_TRUE(s->CommitAsync(&c).ok());
  EXPECT_EQ(s->stats().index_tables_streamed, 1u);
  Want first = want;
  for (int i = 0; i < n; i += 2) {  // while it is in flight
    ASSERT_TRUE(s->Put(Key(rank, i), Value(rank, i, 1), Tags(rank, i, 1)).ok());
    want[Key(rank, i)] = {Value(rank, i, 1), 1};
  }
  uint64_t rev = 0;
  ASSERT_TRUE(c.Wait(&rev).ok());
  Expect(s.get(), rank, want, n);
  ASSERT_TRUE(s->Commit().ok());
  ASSERT_TRUE(s->Close().ok());
  ASSERT_TRUE(Store::Open(o, Path(), MPI_COMM_WORLD, &s).ok());
  Expect(s.get(), rank, want, n);
  ASSERT_TRUE(s->Close().ok());
  // The asynchronous commit's revision, as it was committed.
  Options ro = o;
  ro.read_only = true;
  ro.revision = rev;
  ASSERT_TRUE(Store::Open(ro, Path(), MPI_COMM_WORLD, &s).ok());
  Expect(s.get(), rank, first, n);
  ASSERT_TRUE(s->Close().ok());
}

// A large table that keeps entries of its base is built in memory and
// written in pieces (WriteBuiltTable: pieces of at least 4 MiB, pages
// dropped behind): a small change to a namespace of 12-13 MiB of entries,
// committed plain and, with staging, asynchronously with puts in flight,
// reads back whole after a reopen, old revisions included.
TEST_F(TableStreamTest, LargeTableBuiltFromItsBaseIsWrittenInPieces) {
  int rank = Rank();
  const int n = 50000;  // about 250 bytes an entry: a table of 12-13 MiB
  Options o = StreamOptions();
  o.inline_value_limit = 256;
  o.keep_revisions = 0;
  auto value = [&](int i, int gen) { return std::string(200, char('a' + (rank + i + gen) % 26)); };
  Want want;
  std::unique_ptr<Store> s;
  ASSERT_TRUE(Store::Open(o, Path(), MPI_COMM_WORLD, &s).ok());
  for (int i = 0; i < n; i++) {
    ASSERT_TRUE(s->Put(Key(rank, i), value(i, 0), Tags(rank, i, 0)).ok());
    want[Key(rank, i)] = {value(i, 0), 0};
  }
  ASSERT_TRUE(s->Commit().ok());  // revision 1: streamed
  ASSERT_TRUE(s->Close().ok());
  const Want rev1 = want;

  // Revision 2, plain: a re-put, a tag edit, a delete, a new key, over the
  // base read back from the file: built, not streamed.
  o.staging_bytes = 0;
  ASSERT_TRUE(Store::Open(o, Path(), MPI_COMM_WORLD, &s).ok());
  ASSERT_TRUE(s->Put(Key(rank, 7), value(7, 2), Tags(rank, 7, 2)).ok());
  want[Key(rank, 7)] = {value(7, 2), 2};
  ASSERT_TRUE(s->SetTag(Key(rank, n / 2), {"gen", TagValue::Int(2)}).ok());
  want[Key(rank, n / 2)].second = 2;
  ASSERT_TRUE(s->Delete(Key(rank, n - 1)).ok());
  want.erase(Key(rank, n - 1));
  ASSERT_TRUE(s->Commit().ok());
  EXPECT_EQ(s->stats().index_tables_streamed, 0u);
  ASSERT_TRUE(s->Close().ok());
  const Want rev2 = want;

  // Revision 3, asynchronous through the staging queue, with a put made
  // while it is in flight (in revision 4).
  o.staging_bytes = 1 << 20;
  ASSERT_TRUE(Store::Open(o, Path(), MPI_COMM_WORLD, &s).ok());
  ASSERT_TRUE(s->SetTag(Key(rank, 1), {"gen", TagValue::Int(3)}).ok());
  want[Key(rank, 1)].second = 3;
  AsyncCommit c;
  ASSERT_TRUE(s->CommitAsync(&c).ok());
  const Want rev3 = want;
  ASSERT_TRUE(s->Put(Key(rank, 2), value(2, 4), Tags(rank, 2, 4)).ok());
  want[Key(rank, 2)] = {value(2, 4), 4};
  uint64_t rev = 0;
  ASSERT_TRUE(c.Wait(&rev).ok());
  EXPECT_EQ(rev, 3u);
  ASSERT_TRUE(s->Commit().ok());
  ASSERT_TRUE(s->Close().ok());

  const Want* revs[] = {&rev1, &rev2, &rev3, &want};
  for (uint64_t r = 1; r <= 4; r++) {
    Options ro = o;
    ro.read_only = true;
    ro.revision = r;
    ASSERT_TRUE(Store::Open(ro, Path(), MPI_COMM_WORLD, &s).ok());
    std::vector<ObjectInfo> keys;
    ASSERT_TRUE(s->List(&keys).ok());
    EXPECT_EQ(keys.size(), revs[r - 1]->size()) << "revision " << r;
    for (int i : {0, 1, 2, 7, n / 2, n - 2, n - 1}) {
      std::string k = Key(rank, i), v;
      auto it = revs[r - 1]->find(k);
      Status st = s->Get(k, &v);
      if (it == revs[r - 1]->end()) {
        EXPECT_TRUE(st.IsNotFound()) << k << " at revision " << r;
        continue;
      }
      ASSERT_TRUE(st.ok()) << k << ": " << st.ToString();
      EXPECT_EQ(v, it->second.first) << k << " at revision " << r;
      TagList t;
      ASSERT_TRUE(s->GetTags(k, &t).ok());
      EXPECT_EQ(t, Tags(rank, i, it->second.second)) << k << " at revision " << r;
    }
    ASSERT_TRUE(s->Close().ok());
  }
  ASSERT_TRUE(Store::Open(o, Path(), MPI_COMM_WORLD, &s).ok());
  Expect(s.get(), rank, want, n);
  ASSERT_TRUE(s->Close().ok());
}

}  // namespace
}  // namespace cairn::test

CAIRN_MPI_TEST_MAIN
