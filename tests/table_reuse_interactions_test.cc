// Index-table reuse (src/store/commit_tables.*) against the features it
// meets: asynchronous commits with puts made while one is in flight, a tag
// edit with no put, a rollback (an older revision opened read-write), other
// rank counts, global array rounds, a drop and retention reusing the space
// of the revision that first wrote a reused table, manifest compaction (the
// whole binary runs with a small compaction threshold) and repair. Every
// test reads the data back, at 1, 2 and 4 ranks.
#include <gtest/gtest.h>
#include <mpi.h>
#include <stdlib.h>

#include <algorithm>
#include <fstream>
#include <string>
#include <vector>

#include "cairn/store.h"
#include "format/coding.h"
#include "format/manifest_format.h"
#include "mpi_main.h"
#include "store_test_util.h"
#include "store/repair.h"

namespace cairn::test {
namespace {

Options At(uint64_t rev, bool read_only, Options o = SmallUnsyncedOptions()) {
  o.revision = rev;
  o.read_only = read_only;
  o.create_if_missing = false;
  return o;
}

const int kObjects = 4;
std::string Key(int ns, int i) { return "n" + std::to_string(ns) + "_k" + std::to_string(i); }
std::string Value(int ns, int i, int gen) {
  return std::string(300 + i * 41 + gen, char('a' + (ns * 7 + i + gen) % 26));  // chunked
}
TagList Tags(int ns, int i) { return {{"ns", TagValue::Int(ns)}, {"i", TagValue::Int(i)}}; }

void PutAll(Store* s, int ns, int gen) {
  for (int i = 0; i < kObjects; i++) ASSERT_TRUE(s->Put(Key(ns, i), Value(ns, i, gen), Tags(ns, i)).ok());
}
// Every object of namespace `ns` reads back as generation `gen` (this
// view's own namespace).
void Expect(Store* s, int ns, int gen, const std::string& what) {
  for (int i = 0; i < kObjects; i++) {
    std::string v;
    Status st = s->Get(Key(ns, i), &v);
    ASSERT_TRUE(st.ok()) << what << " " << Key(ns, i) << ": " << st.ToString();
    EXPECT_EQ(v, Value(ns, i, gen)) << what << " " << Key(ns, i);
    TagList t;
    ASSERT_TRUE(s->GetTags(Key(ns, i), &t).ok()) << what;
    EXPECT_EQ(t, Tags(ns, i)) << what << " " << Key(ns, i);
  }
}
// Opens revision `rev` (read-only or writable) on every rank and checks
// namespace `rank` holds generation gens[rank].
void ExpectRevision(const std::string& path, uint64_t rev, const std::vector<int>& gens, bool read_only,
                    Options o = SmallUnsyncedOptions()) {
  std::unique_ptr<Store> s;
  Status st = Store::Open(At(rev, read_only, o), path, MPI_COMM_WORLD, &s);
  ASSERT_TRUE(st.ok()) << "revision " << rev << ": " << st.ToString();
  ASSERT_EQ(s->revision(), rev);
  Expect(s.get(), Rank(), gens[Rank()], "revision " + std::to_string(rev));
  ASSERT_TRUE(s->Close().ok());
}

class ReuseWith : public MpiDirTest {};

// Puts made while a CommitAsync is in flight belong to the next revision:
// the revision in flight reuses the tables of the ranks that had not
// changed, and the next one rebuilds exactly the tables changed meanwhile.
// With and without staging.
TEST_F(ReuseWith, AsyncCommitsWithPutsInFlight) {
  int rank = Rank(), size = Size(), changer = size - 1;
  for (uint64_t staging : {uint64_t(0), uint64_t(256 << 10)}) {
    SCOPED_TRACE("staging_bytes " + std::to_string(staging));
    std::string path = Path() + std::to_string(staging);
    Options o = SmallUnsyncedOptions();
    o.staging_bytes = staging;
    {
      std::unique_ptr<Store> s;
      ASSERT_TRUE(Store::Open(o, path, MPI_COMM_WORLD, &s).ok());
      PutAll(s.get(), rank, 0);
      ASSERT_TRUE(s->Commit().ok());  // 1: every table built
      if (rank == changer) PutAll(s.get(), rank, 1);
      AsyncCommit h;
      ASSERT_TRUE(s->CommitAsync(&h).ok());  // 2: only the changer's table is new
      // While 2 is in flight: every other rank changes its objects.
      if (rank != changer) PutAll(s.get(), rank, 2);
      uint64_t got = 0;
      ASSERT_TRUE(h.Wait(&got).ok());
      EXPECT_EQ(got, 2u);
      AsyncCommit h3;
      ASSERT_TRUE(s->CommitAsync(&h3).ok());  // 3: the others' tables are new, the changer's reused
      ASSERT_TRUE(h3.Wait(&got).ok());
      EXPECT_EQ(got, 3u);
      AsyncCommit h4;
      ASSERT_TRUE(s->CommitAsync(&h4).ok());  // 4: nothing changed, all reused
      ASSERT_TRUE(h4.Wait(&got).ok());
      Expect(s.get(), rank, rank == changer ? 1 : 2, "the writer after revision 4");
      ASSERT_TRUE(s->Close().ok());
    }
    std::vector<int> g1(size, 0), g2(size, 0), g3(size, 2);
    g2[changer] = 1;
    g3[changer] = 1;
    for (bool ro : {true, false}) {
      ExpectRevision(path, 1, g1, ro, o);
      ExpectRevision(path, 2, g2, ro, o);
      ExpectRevision(path, 3, g3, ro, o);
      ExpectRevision(path, 4, g3, ro, o);
    }
  }
}

// A tag edit with no put changes the namespace: its table must be rebuilt,
// not reused, and the older revision keeps its own tags.
TEST_F(ReuseWith, TagEditsWithoutAPut) {
  int rank = Rank(), size = Size(), editor = size - 1;
  {
    std::unique_ptr<Store> s;
    ASSERT_TRUE(Store::Open(SmallUnsyncedOptions(), Path(), MPI_COMM_WORLD, &s).ok());
    PutAll(s.get(), rank, 0);
    ASSERT_TRUE(s->Commit().ok());  // 1
    IoStats a = s->stats();
    if (rank == editor) {
      ASSERT_TRUE(s->SetTag(Key(rank, 0), {"edited", TagValue::Int(7)}).ok());
      ASSERT_TRUE(s->DeleteTag(Key(rank, 1), "i").ok());
    }
    ASSERT_TRUE(s->Commit().ok());  // 2
    IoStats b = s->stats();
    EXPECT_EQ(b.index_tables_reused - a.index_tables_reused,
              uint64_t(rank == editor ? 0 : 1) + uint64_t(rank == 0 ? 1 : 0));
    // Only a tag deleted: again a change.
    if (rank == editor) { ASSERT_TRUE(s->DeleteTag(Key(rank, 0), "edited").ok()); }
    ASSERT_TRUE(s->Commit().ok());  // 3
    ASSERT_TRUE(s->Close().ok());
  }
  for (uint64_t rev : {1u, 2u, 3u}) {
    std::unique_ptr<Store> s;
    ASSERT_TRUE(Store::Open(At(rev, true), Path(), MPI_COMM_WORLD, &s).ok());
    for (int i = 0; i < kObjects; i++) {
      std::string v;
      ASSERT_TRUE(s->Get(Key(rank, i), &v).ok());
      EXPECT_EQ(v, Value(rank, i, 0));
      TagList want = Tags(rank, i), t;
      if (rank == editor && i == 0 && rev == 2) want.push_back({"edited", TagValue::Int(7)});
      if (rank == editor && i == 1 && rev >= 2) want = {{"ns", TagValue::Int(rank)}};
      ASSERT_TRUE(s->GetTags(Key(rank, i), &t).ok());
      std::sort(t.begin(), t.end(), [](const Tag& x, const Tag& y) { return x.name < y.name; });
      std::sort(want.begin(), want.end(), [](const Tag& x, const Tag& y) { return x.name < y.name; });
      EXPECT_EQ(t, want) << "revision " << rev << " " << Key(rank, i);
    }
    // The query sees the tags of the revision opened.
    std::vector<std::string> keys;
    ASSERT_TRUE(s->Query({TagQuery::Exists("edited")}, &keys).ok());
    EXPECT_EQ(keys.size(), size_t(rank == editor && rev == 2 ? 1 : 0)) << "revision " << rev;
    ASSERT_TRUE(s->Close().ok());
  }
}

// A rollback: revision 1 opened read-write after 2 and 3. A commit with no
// change must hold revision 1's state (its tables), not the newest's.
TEST_F(ReuseWith, RollbackToAnOlderRevision) {
  int rank = Rank(), size = Size(), changer = size - 1;
  {
    std::unique_ptr<Store> s;
    ASSERT_TRUE(Store::Open(SmallUnsyncedOptions(), Path(), MPI_COMM_WORLD, &s).ok());
    PutAll(s.get(), rank, 0);
    ASSERT_TRUE(s->Commit().ok());  // 1
    if (rank == changer) PutAll(s.get(), rank, 1);
    ASSERT_TRUE(s->Commit().ok());  // 2
    ASSERT_TRUE(s->Commit().ok());  // 3
    ASSERT_TRUE(s->Close().ok());
  }
  {
    std::unique_ptr<Store> s;
    ASSERT_TRUE(Store::Open(At(1, false), Path(), MPI_COMM_WORLD, &s).ok());
    uint64_t got = 0;
    ASSERT_TRUE(s->Commit(&got).ok());  // 4 = 1
    EXPECT_EQ(got, 4u);
    Expect(s.get(), rank, 0, "after the rollback commit");
    if (rank == 0) PutAll(s.get(), rank, 5);
    ASSERT_TRUE(s->Commit(&got).ok());  // 5: rank 0 changed, the others as in 1
    EXPECT_EQ(got, 5u);
    ASSERT_TRUE(s->Close().ok());
  }
  std::vector<int> g1(size, 0), g2(size, 0), g5(size, 0);
  g2[changer] = 1;
  g5[0] = 5;
  ExpectRevision(Path(), 1, g1, true);
  ExpectRevision(Path(), 2, g2, true);
  ExpectRevision(Path(), 3, g2, true);
  ExpectRevision(Path(), 4, g1, true);
  ExpectRevision(Path(), 5, g5, true);
}

// Another rank count: written on the first half of the ranks, continued on
// all (the new ranks start empty), then on the first half again. The old
// ranks' namespaces are unchanged throughout and reuse their tables.
TEST_F(ReuseWith, RestartOnAnotherRankCount) {
  int rank = Rank(), size = Size();
  int half = size > 1 ? size / 2 : 1;
  MPI_Comm sub;
  MPI_Comm_split(MPI_COMM_WORLD, rank < half ? 0 : MPI_UNDEFINED, rank, &sub);
  if (rank < half) {
    std::unique_ptr<Store> s;
    ASSERT_TRUE(Store::Open(SmallUnsyncedOptions(), Path(), sub, &s).ok());
    PutAll(s.get(), rank, 0);
    if (rank == 0) { ASSERT_TRUE(s->PutShared("shared", "s1").ok()); }
    ASSERT_TRUE(s->Commit().ok());  // 1 on `half` ranks
    ASSERT_TRUE(s->Close().ok());
  }
  MPI_Barrier(MPI_COMM_WORLD);
  {
    std::unique_ptr<Store> s;
    ASSERT_TRUE(Store::Open(At(0, false), Path(), MPI_COMM_WORLD, &s).ok());
    if (rank < half) Expect(s.get(), rank, 0, "namespace carried to the larger rank count");
    if (rank >= half) PutAll(s.get(), rank, 3);
    ASSERT_TRUE(s->Commit().ok());  // 2 on all ranks
    ASSERT_TRUE(s->Close().ok());
  }
  if (rank < half) {
    std::unique_ptr<Store> s;
    ASSERT_TRUE(Store::Open(At(0, false), Path(), sub, &s).ok());
    ASSERT_TRUE(s->Commit().ok());  // 3 on `half` ranks, nothing changed
    Expect(s.get(), rank, 0, "revision 3");
    ASSERT_TRUE(s->Close().ok());
    MPI_Comm_free(&sub);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  for (uint64_t rev : {1u, 2u, 3u}) {
    std::unique_ptr<Store> s;
    ASSERT_TRUE(Store::Open(At(rev, true), Path(), MPI_COMM_WORLD, &s).ok());
    bool present = rank < half || rev == 2;
    if (present) {
      Expect(s.get(), rank, rank < half ? 0 : 3, "revision " + std::to_string(rev));
    } else {
      std::string v;
      EXPECT_TRUE(s->Get(Key(rank, 0), &v).IsNotFound()) << "revision " << rev;
    }
    std::string sv;
    ASSERT_TRUE(s->GetShared("shared", &sv).ok());
    EXPECT_EQ(sv, "s1");
    std::vector<QueryHit> hits;
    ASSERT_TRUE(s->QueryAll({TagQuery::Exists("ns")}, &hits).ok());
    EXPECT_EQ(hits.size(), size_t(kObjects) * size_t(rev == 2 ? size : half)) << "revision " << rev;
    ASSERT_TRUE(s->Close().ok());
  }
}

// Global array rounds: arrays carried by unchanged namespaces, a re-put, a
// delete by one rank; then retention with keep 1 while one rank churns,
// reusing the space of the revisions that wrote the arrays' blocks.
std::vector<double> Slab(int rank, int n, int gen) {
  std::vector<double> v(static_cast<size_t>(n), 0.0);
  for (int i = 0; i < n; i++) v[size_t(i)] = rank * 1000 + i + gen * 0.5;
  return v;
}
void ExpectArray(Store* s, const std::string& name, int size, int n, int gen, const std::string& what) {
  std::vector<double> all(size_t(size * n));
  Status st = s->GetArray(name, {0}, {uint64_t(size * n)}, all.data());
  ASSERT_TRUE(st.ok()) << what << " " << name << ": " << st.ToString();
  for (int r = 0; r < size; r++)
    for (int i = 0; i < n; i++)
      ASSERT_EQ(all[size_t(r * n + i)], r * 1000 + i + gen * 0.5) << what << " " << name << " rank " << r << " i " << i;
}

TEST_F(ReuseWith, GlobalArrayRoundsAndRetention) {
  int rank = Rank(), size = Size();
  const int n = 3000;  // 24 KB per rank: chunked blocks
  const uint64_t shape = uint64_t(size * n), start = uint64_t(rank * n);
  {
    std::unique_ptr<Store> s;
    ASSERT_TRUE(Store::Open(SmallUnsyncedOptions(), Path(), MPI_COMM_WORLD, &s).ok());
    auto a0 = Slab(rank, n, 0);
    ASSERT_TRUE(s->PutArray("A", DType::kFloat64, {shape}, {start}, {uint64_t(n)}, a0.data()).ok());
    ASSERT_TRUE(s->PutArray("B", DType::kFloat64, {shape}, {start}, {uint64_t(n)}, a0.data()).ok());
    ASSERT_TRUE(s->Commit().ok());  // 1: A0 B0
    if (rank == 0) { ASSERT_TRUE(s->Put("plain", "x").ok()); }
    ASSERT_TRUE(s->Commit().ok());  // 2: arrays untouched, tables reused
    auto a1 = Slab(rank, n, 1);
    ASSERT_TRUE(s->PutArray("A", DType::kFloat64, {shape}, {start}, {uint64_t(n)}, a1.data()).ok());
    ASSERT_TRUE(s->Commit().ok());  // 3: A1 B0
    if (rank == size - 1) { ASSERT_TRUE(s->DeleteArray("B").ok()); }
    ASSERT_TRUE(s->Commit().ok());  // 4: A1, no B
    ExpectArray(s.get(), "A", size, n, 1, "writer at 4");
    ASSERT_TRUE(s->Close().ok());
  }
  struct Want { uint64_t rev; int a; int b; };  // b < 0: absent
  for (Want w : {Want{1, 0, 0}, Want{2, 0, 0}, Want{3, 1, 0}, Want{4, 1, -1}}) {
    std::unique_ptr<Store> s;
    ASSERT_TRUE(Store::Open(At(w.rev, true), Path(), MPI_COMM_WORLD, &s).ok());
    std::string what = "revision " + std::to_string(w.rev);
    ExpectArray(s.get(), "A", size, n, w.a, what);
    if (w.b >= 0) {
      ExpectArray(s.get(), "B", size, n, w.b, what);
    } else {
      ArrayInfo info;
      EXPECT_TRUE(s->GetArrayInfo("B", &info).IsNotFound()) << what;
    }
    ASSERT_TRUE(s->Close().ok());
  }
  // Retention: keep 1 while rank 0 rewrites a large object 20 times; the
  // arrays are never put again (their namespaces' tables are reused from
  // revision 3 and 4), so the space of 1..4 is reused around them.
  Options o = SmallUnsyncedOptions();
  o.keep_revisions = 1;
  {
    std::unique_ptr<Store> s;
    ASSERT_TRUE(Store::Open(At(0, false, o), Path(), MPI_COMM_WORLD, &s).ok());
    for (int gen = 0; gen < 20; gen++) {
      if (rank == 0) { ASSERT_TRUE(s->Put("churn", std::string(40000 + gen, char('a' + gen))).ok()); }
      ASSERT_TRUE(s->Commit().ok());
    }
    ExpectArray(s.get(), "A", size, n, 1, "after 20 commits with keep 1");
    ASSERT_TRUE(s->Close().ok());
  }
  std::unique_ptr<Store> s;
  ASSERT_TRUE(Store::Open(At(0, true), Path(), MPI_COMM_WORLD, &s).ok());
  ExpectArray(s.get(), "A", size, n, 1, "reopened after retention");
  ArrayInfo info;
  EXPECT_TRUE(s->GetArrayInfo("B", &info).IsNotFound());
  std::string v;
  if (rank == 0) {
    ASSERT_TRUE(s->Get("churn", &v).ok());
    EXPECT_EQ(v, std::string(40000 + 19, char('a' + 19)));
  }
}

// The revision that first wrote a reused table is dropped (Drop, then keep
// 2 expiring the rest) while one rank keeps rewriting: the tables stay
// live and every rank's objects read back, also through a reader opened
// before the drop.
TEST_F(ReuseWith, DropOfTheRevisionThatWroteTheTable) {
  int rank = Rank(), size = Size(), changer = size - 1;
  Options o = SmallUnsyncedOptions();
  o.keep_revisions = 2;
  std::unique_ptr<Store> s;
  ASSERT_TRUE(Store::Open(o, Path(), MPI_COMM_WORLD, &s).ok());
  PutAll(s.get(), rank, 0);
  ASSERT_TRUE(s->Commit().ok());  // 1 writes every table
  if (rank == changer) PutAll(s.get(), rank, 1);
  ASSERT_TRUE(s->Commit().ok());  // 2 reuses 1's tables (but the changer's)
  std::unique_ptr<Store> reader;
  ASSERT_TRUE(Store::Open(At(2, true), Path(), MPI_COMM_WORLD, &reader).ok());
  ASSERT_TRUE(s->Drop(1).ok());
  for (int gen = 2; gen < 25; gen++) {
    if (rank == changer) {
      for (int i = 0; i < kObjects; i++)
        ASSERT_TRUE(s->Put(Key(rank, i), Value(rank, i, gen) + std::string(30000, 'z'), Tags(rank, i)).ok());
      PutAll(s.get(), rank, gen);
    }
    ASSERT_TRUE(s->Commit().ok());
  }
  Expect(s.get(), rank, rank == changer ? 24 : 0, "the writer");
  ASSERT_TRUE(s->Close().ok());
  // Revision 2 expired meanwhile: the reader opened before fails clearly or
  // reads right, never wrong data. The unchanged ranks' tables are still
  // live (the newest revision names them), so those read back.
  if (rank != changer) Expect(reader.get(), rank, 0, "the reader of revision 2");
  ASSERT_TRUE(reader->Close().ok());
  std::vector<int> gens(size, 0);
  gens[changer] = 24;
  ExpectRevision(Path(), 25, gens, true, o);
  ExpectRevision(Path(), 25, gens, false, o);
}

// Repair after the newest record rots: the store continues from the
// revision before, whose tables are reused by the next commits, and the
// lost number is not taken again.
TEST_F(ReuseWith, RepairThenCommitReusingTables) {
  int rank = Rank(), size = Size(), changer = size - 1;
  // Plain: revisions 1-3, keep all. Compacted: revisions 1-12 with keep 2,
  // so the log that rots has been compacted (repair of a compacted log).
  for (bool compacted : {false, true}) {
    SCOPED_TRACE(compacted ? "compacted log" : "plain log");
    std::string path = Path() + (compacted ? "c" : "p");
    const uint64_t changes = compacted ? 11 : 2;  // changer commits 2 .. changes + 1
    const uint64_t rotten = changes + 1, newest = changes;
    Options o1 = SmallUnsyncedOptions();
    o1.keep_revisions = compacted ? 2 : 0;
    {
      std::unique_ptr<Store> s;
      ASSERT_TRUE(Store::Open(o1, path, MPI_COMM_WORLD, &s).ok());
      PutAll(s.get(), rank, 0);
      ASSERT_TRUE(s->Commit().ok());  // 1
      for (uint64_t gen = 1; gen <= changes; gen++) {
        if (rank == changer) PutAll(s.get(), rank, int(gen));
        ASSERT_TRUE(s->Commit().ok());  // gen + 1; the last one's record will rot
      }
      ASSERT_TRUE(s->Close().ok());
    }
    if (rank == 0) {
      std::string man = path + "/MANIFEST";
      std::ifstream in(man, std::ios::binary);
      std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
      in.close();
      // The last record: walk the framing.
      uint64_t off = kManifestHeaderSize, last = 0;
      int records = 0;
      for (; off + kRecordOverhead <= bytes.size(); records++) {
        last = off;
        off += DecodeFixed32(bytes.data() + off) + kRecordOverhead;
      }
      ASSERT_EQ(off, bytes.size());
      if (compacted) { EXPECT_LT(uint64_t(records), rotten) << "the log was never compacted"; }
      bytes[last + 40] ^= 0x10;
      std::ofstream(man, std::ios::binary | std::ios::trunc) << bytes;
      RepairReport rep;
      Status st = RepairManifest(path, &rep);
      ASSERT_TRUE(st.ok()) << st.ToString();
      EXPECT_TRUE(rep.tail_damaged);
      EXPECT_EQ(rep.reserved_revision, rotten);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    Options o = SmallUnsyncedOptions();
    o.keep_revisions = 1;
    {
      std::unique_ptr<Store> s;
      ASSERT_TRUE(Store::Open(At(0, false, o), path, MPI_COMM_WORLD, &s).ok());
      EXPECT_EQ(s->revision(), newest);
      uint64_t got = 0;
      ASSERT_TRUE(s->Commit(&got).ok());
      EXPECT_EQ(got, rotten + 1) << "the lost revision's number was taken again";
      for (int gen = 30; gen < 40; gen++) {
        if (rank == 0) PutAll(s.get(), rank, gen);
        ASSERT_TRUE(s->Commit().ok());
      }
      ASSERT_TRUE(s->Close().ok());
    }
    std::vector<int> gens(size, 0);
    gens[changer] = int(newest - 1);
    gens[0] = 39;
    ExpectRevision(path, rotten + 11, gens, true, o);
    std::unique_ptr<Store> s;
    EXPECT_TRUE(Store::Open(At(rotten, true), path, MPI_COMM_WORLD, &s).IsNotFound());
  }
}

// Compaction (every few commits, CAIRN_MANIFEST_COMPACT_BYTES below) with
// asynchronous commits: 40 rounds with keep 2 where one rank changes and
// the others reuse tables written by revisions long expired.
TEST_F(ReuseWith, CompactionWithAsyncCommits) {
  int rank = Rank(), size = Size(), changer = size - 1;
  Options o = SmallUnsyncedOptions();
  o.keep_revisions = 2;
  {
    std::unique_ptr<Store> s;
    ASSERT_TRUE(Store::Open(o, Path(), MPI_COMM_WORLD, &s).ok());
    PutAll(s.get(), rank, 0);
    ASSERT_TRUE(s->Commit().ok());
    AsyncCommit h;
    for (int gen = 1; gen <= 40; gen++) {
      if (rank == changer) PutAll(s.get(), rank, gen);  // while the previous commit may be in flight
      if (h.valid()) { ASSERT_TRUE(h.Wait().ok()); }
      ASSERT_TRUE(s->CommitAsync(&h).ok());
    }
    ASSERT_TRUE(h.Wait().ok());
    ASSERT_TRUE(s->Close().ok());
  }
  std::vector<int> g41(size, 0), g40(size, 0);
  g41[changer] = 40;
  g40[changer] = 39;
  ExpectRevision(Path(), 41, g41, true, o);
  ExpectRevision(Path(), 40, g40, true, o);
  if (rank == 0) {  // compactions happened: the log holds far fewer than 41 records
    std::ifstream in(Path() + "/MANIFEST", std::ios::binary);
    std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    ParsedManifest pm;
    ASSERT_TRUE(ParseManifest(bytes, &pm).ok());
    EXPECT_EQ(pm.last_revision, 41u);
    int records = 0;
    for (uint64_t off = kManifestHeaderSize; off + kRecordOverhead <= bytes.size(); records++)
      off += DecodeFixed32(bytes.data() + off) + kRecordOverhead;
    EXPECT_LT(records, 20) << "no compaction happened";
  }
}

}  // namespace
}  // namespace cairn::test

int main(int argc, char** argv) {
  // Compact the manifest every few commits in every test (read once per
  // process, before the first commit).
  setenv("CAIRN_MANIFEST_COMPACT_BYTES", "1024", 1);
  return cairn::test::RunMpiTests(&argc, &argv);
}
