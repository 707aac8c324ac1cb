// Unchanged namespaces are not rebuilt, gathered or rewritten at commit: a
// rank whose namespace did not change since the last revision reuses that
// revision's index table (its descriptor is carried into the new record).
// Checked at 1, 2 and 4 ranks: what rank 0 gathers, that every rank's
// objects reopen from every revision (also after the revisions that wrote
// the reused tables expired and their space was reused), and that damage to
// a reused table is still reported.
#include <gtest/gtest.h>
#include <mpi.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "cairn/store.h"
#include "format/manifest_format.h"
#include "mpi_main.h"

namespace cairn::test {
namespace {

Options SmallOptions() {
  Options o;
  o.extent_size = 64 * 1024;
  o.chunk_size = 16 * 1024;
  o.write_buffer_size = 32 * 1024;
  o.inline_value_limit = 64;
  o.sync = false;
  return o;
}

std::string Key(int rank, int i) { return "r" + std::to_string(rank) + "_k" + std::to_string(i); }
std::string Value(int rank, int i, int gen) {
  return std::string(200 + i * 37, char('a' + (rank + i + gen) % 26));  // chunked (> inline limit)
}
TagList Tags(int rank, int i) { return {{"rank", TagValue::Int(rank)}, {"i", TagValue::Int(i)}}; }

// Every object rank `rank` put (generation gen of its values) reads back.
void ExpectObjects(Store* s, int rank, int n, int gen) {
  for (int i = 0; i < n; i++) {
    std::string v;
    ASSERT_TRUE(s->Get(Key(rank, i), &v).ok()) << Key(rank, i);
    EXPECT_EQ(v, Value(rank, i, gen)) << Key(rank, i);
    TagList t;
    ASSERT_TRUE(s->GetTags(Key(rank, i), &t).ok());
    EXPECT_EQ(t, Tags(rank, i));
  }
}

ParsedManifest ReadManifest(const std::string& store) {
  std::ifstream f(store + "/MANIFEST", std::ios::binary);
  std::string bytes((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  ParsedManifest pm;
  EXPECT_TRUE(ParseManifest(bytes, &pm).ok());
  return pm;
}

class TableReuseTest : public MpiDirTest {};

TEST_F(TableReuseTest, OnlyTheChangedRankIsGatheredAndEveryRankReopens) {
  int rank = Rank(), size = Size(), changer = size - 1;
  const int n = 5;
  {
    std::unique_ptr<Store> s;
    ASSERT_TRUE(Store::Open(SmallOptions(), Path(), MPI_COMM_WORLD, &s).ok());
    for (int i = 0; i < n; i++) ASSERT_TRUE(s->Put(Key(rank, i), Value(rank, i, 0), Tags(rank, i)).ok());
    if (rank == 0) { ASSERT_TRUE(s->PutShared("shared", "s0").ok()); }
    ASSERT_TRUE(s->Commit().ok());  // revision 1: every table built
    IoStats a = s->stats();
    EXPECT_EQ(a.index_tables_reused, 0u);
    if (rank == 0) { EXPECT_GT(a.index_bytes_gathered, 0u); }

    // Revision 2: one rank changes one object.
    if (rank == changer) { ASSERT_TRUE(s->Put(Key(rank, 0), Value(rank, 0, 1), Tags(rank, 0)).ok()); }
    ASSERT_TRUE(s->Commit().ok());
    IoStats b = s->stats();
    EXPECT_EQ(b.index_tables_reused - a.index_tables_reused,
              uint64_t(rank == changer ? 0 : 1) + uint64_t(rank == 0 ? 1 : 0));  // + the shared one
    uint64_t one_table = b.index_bytes_gathered - a.index_bytes_gathered;
    if (rank == 0) {
      EXPECT_GT(one_table, 0u);  // the changed rank's table only
      EXPECT_LT(one_table * uint64_t(size), a.index_bytes_gathered + uint64_t(size));
    }

    // Revision 3: nothing changed anywhere: nothing gathered at all.
    ASSERT_TRUE(s->Commit().ok());
    IoStats c = s->stats();
    EXPECT_EQ(c.index_bytes_gathered, b.index_bytes_gathered);
    EXPECT_EQ(c.index_tables_reused - b.index_tables_reused, uint64_t(rank == 0 ? 2 : 1));
    ASSERT_TRUE(s->Close().ok());
  }
  if (rank == 0) {  // the reused tables are the same bytes at the same place
    ParsedManifest pm = ReadManifest(Path());
    ASSERT_GE(pm.revisions.size(), 3u);
    const auto& r1 = pm.revisions[0].namespaces;
    const auto& r2 = pm.revisions[1].namespaces;
    const auto& r3 = pm.revisions[2].namespaces;
    for (int r = 0; r < size; r++) {
      EXPECT_EQ(r3[r].offset, r2[r].offset) << "rank " << r;
      if (r == changer) {
        EXPECT_NE(r2[r].offset, r1[r].offset);
      } else {
        EXPECT_EQ(r2[r].offset, r1[r].offset) << "rank " << r;
      }
    }
  }
  // Every revision reopens at every rank, writable and read-only; the
  // changed rank sees its object 0 as of the revision opened.
  for (uint64_t rev : {1u, 2u, 3u, 0u}) {
    for (bool ro : {false, true}) {
      Options o = SmallOptions();
      o.revision = rev;
      o.read_only = ro;
      std::unique_ptr<Store> s;
      ASSERT_TRUE(Store::Open(o, Path(), MPI_COMM_WORLD, &s).ok()) << "revision " << rev;
      for (int i = 0; i < n; i++) {
        int gen = rank == changer && i == 0 && rev != 1 ? 1 : 0;
        std::string v;
        ASSERT_TRUE(s->Get(Key(rank, i), &v).ok()) << Key(rank, i) << " revision " << rev;
        EXPECT_EQ(v, Value(rank, i, gen)) << Key(rank, i) << " revision " << rev;
        TagList t;
        ASSERT_TRUE(s->GetTags(Key(rank, i), &t).ok());
        EXPECT_EQ(t, Tags(rank, i));
      }
      std::string sv;  // collective: rank 0 reads, every rank receives
      ASSERT_TRUE(s->GetShared("shared", &sv).ok());
      EXPECT_EQ(sv, "s0");
      ASSERT_TRUE(s->Close().ok());
    }
  }
}

// Retention expires the revision that wrote a reused table while the
// changed rank keeps rewriting: the table's extents stay live (the new
// record names them), so freed space never lands on them.
TEST_F(TableReuseTest, ReusedTablesSurviveRetentionAndSpaceReuse) {
  int rank = Rank(), size = Size(), changer = size - 1;
  const int n = 4;
  Options o = SmallOptions();
  o.keep_revisions = 1;
  {
    std::unique_ptr<Store> s;
    ASSERT_TRUE(Store::Open(o, Path(), MPI_COMM_WORLD, &s).ok());
    for (int i = 0; i < n; i++) ASSERT_TRUE(s->Put(Key(rank, i), Value(rank, i, 0), Tags(rank, i)).ok());
    ASSERT_TRUE(s->Commit().ok());
    for (int gen = 1; gen <= 30; gen++) {
      if (rank == changer) {
        for (int i = 0; i < n; i++) ASSERT_TRUE(s->Put(Key(rank, i), Value(rank, i, gen) + std::string(20000, 'x'), Tags(rank, i)).ok());
        for (int i = 0; i < n; i++) ASSERT_TRUE(s->Put(Key(rank, i), Value(rank, i, gen), Tags(rank, i)).ok());
      }
      ASSERT_TRUE(s->Commit().ok());
    }
    ExpectObjects(s.get(), rank, n, rank == changer ? 30 : 0);
    ASSERT_TRUE(s->Close().ok());
  }
  std::unique_ptr<Store> s;
  ASSERT_TRUE(Store::Open(o, Path(), MPI_COMM_WORLD, &s).ok());
  ExpectObjects(s.get(), rank, n, rank == changer ? 30 : 0);
  ASSERT_TRUE(s->Close().ok());
}

// A reused table is checked like any other: flipping a byte of it (it
// still lies where the revision that first wrote it put it) makes the
// open of the newer revision report corruption.
TEST_F(TableReuseTest, DamageToAReusedTableIsReported) {
  int rank = Rank(), size = Size();
  {
    std::unique_ptr<Store> s;
    ASSERT_TRUE(Store::Open(SmallOptions(), Path(), MPI_COMM_WORLD, &s).ok());
    for (int i = 0; i < 3; i++) ASSERT_TRUE(s->Put(Key(rank, i), Value(rank, i, 0), Tags(rank, i)).ok());
    ASSERT_TRUE(s->Commit().ok());
    if (rank == 0) { ASSERT_TRUE(s->PutShared("only", "the shared namespace changes").ok()); }
    ASSERT_TRUE(s->Commit().ok());
    ASSERT_TRUE(s->Close().ok());
  }
  int victim = size - 1;
  if (rank == 0) {
    ParsedManifest pm = ReadManifest(Path());
    ASSERT_EQ(pm.revisions.size(), 2u);
    const NamespaceDesc& d2 = pm.revisions[1].namespaces[victim];
    const NamespaceDesc& d1 = pm.revisions[0].namespaces[victim];
    ASSERT_EQ(d2.offset, d1.offset);  // reused, not rewritten
    ASSERT_EQ(d2.checksum, d1.checksum);
    char name[32];
    std::snprintf(name, sizeof name, "/data.%05u", d2.subfile);
    std::fstream f(Path() + name, std::ios::in | std::ios::out | std::ios::binary);
    ASSERT_TRUE(f.good()) << Path() + name;
    f.seekg(std::streamoff(d2.offset + d2.length / 2));
    char c;
    f.read(&c, 1);
    c ^= 0x20;
    f.seekp(std::streamoff(d2.offset + d2.length / 2));
    f.write(&c, 1);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  std::unique_ptr<Store> s;
  Status st = Store::Open(SmallOptions(), Path(), MPI_COMM_WORLD, &s);  // revision 2
  // The victim's table lies in rank 0's block: the open reads it and fails
  // on every rank (agreed), naming the checksum.
  ASSERT_FALSE(st.ok());
  EXPECT_TRUE(st.IsCorruption()) << st.ToString();
  EXPECT_NE(st.ToString().find("checksum"), std::string::npos) << st.ToString();
}

// A program that saves all its state at every checkpoint puts every object
// again. Objects put back byte for byte as they were (small values, tags)
// leave the namespace unchanged, so its table is reused as if nothing had
// been put; one changed tag, a deleted object or a value rewritten as
// chunks makes the table new, and every revision reads back its own state.
TEST_F(TableReuseTest, ObjectsSavedAgainUnchangedReuseTheTable) {
  int rank = Rank(), size = Size(), changer = size - 1;
  const int n = 40;
  auto small = [](int r, int i) { return "v" + std::to_string(r) + "_" + std::to_string(i); };  // inline
  auto tags = [](int r, int i, int gen) {
    return TagList{{"rank", TagValue::Int(r)}, {"i", TagValue::Int(i)}, {"gen", TagValue::Int(gen)}};
  };
  // The state of revision `rev` for rank r: object i's value and its "gen" tag.
  auto gen_of = [&](int r, int i, uint64_t rev) { return r == changer && i == 7 && rev >= 3 ? 1 : 0; };
  auto saved = [&](Store* s) {  // every object put again, as a checkpoint does
    for (int i = 0; i < n; i++) ASSERT_TRUE(s->Put(Key(rank, i), small(rank, i), tags(rank, i, 0)).ok());
  };
  std::unique_ptr<Store> s;
  ASSERT_TRUE(Store::Open(SmallOptions(), Path(), MPI_COMM_WORLD, &s).ok());
  saved(s.get());
  if (rank == 0) { ASSERT_TRUE(s->PutShared("shared", "s0").ok()); }
  ASSERT_TRUE(s->Commit().ok());  // revision 1
  IoStats a = s->stats();

  // Revision 2: everything saved again, unchanged, shared object too:
  // every table reused, nothing gathered.
  saved(s.get());
  if (rank == 0) { ASSERT_TRUE(s->PutShared("shared", "s0").ok()); }
  ASSERT_TRUE(s->Commit().ok());
  IoStats b = s->stats();
  EXPECT_EQ(b.index_tables_reused - a.index_tables_reused, uint64_t(rank == 0 ? 2 : 1));
  EXPECT_EQ(b.index_bytes_gathered, a.index_bytes_gathered);

  // Revision 3: saved again, with one tag of one object changed on the last
  // rank (put as a changed copy, then SetTag on a second object and back).
  saved(s.get());
  if (rank == changer) {
    ASSERT_TRUE(s->Put(Key(rank, 7), small(rank, 7), tags(rank, 7, 1)).ok());
    ASSERT_TRUE(s->SetTag(Key(rank, 8), {"gen", TagValue::Int(5)}).ok());
    ASSERT_TRUE(s->SetTag(Key(rank, 8), {"gen", TagValue::Int(0)}).ok());  // back as it was
  }
  ASSERT_TRUE(s->Commit().ok());
  IoStats c = s->stats();
  EXPECT_EQ(c.index_tables_reused - b.index_tables_reused,
            uint64_t(rank == changer ? 0 : 1) + uint64_t(rank == 0 ? 1 : 0));

  // Revision 4: a new object put and deleted again, an object deleted and
  // put back as it was: unchanged, reused.
  saved(s.get());
  ASSERT_TRUE(s->Put("passing", "x").ok());
  ASSERT_TRUE(s->Delete("passing").ok());
  ASSERT_TRUE(s->Delete(Key(rank, 3)).ok());
  ASSERT_TRUE(s->Put(Key(rank, 3), small(rank, 3), tags(rank, 3, 0)).ok());
  if (rank == changer) { ASSERT_TRUE(s->Put(Key(rank, 7), small(rank, 7), tags(rank, 7, 1)).ok()); }
  ASSERT_TRUE(s->Commit().ok());
  IoStats d = s->stats();
  EXPECT_EQ(d.index_tables_reused - c.index_tables_reused, uint64_t(rank == 0 ? 2 : 1));

  // Revision 5: rank 0 deletes an object; the others put one object's
  // value again as chunks (a larger value written the same twice): both
  // change the table.
  if (rank == 0) {
    ASSERT_TRUE(s->Delete(Key(rank, 5)).ok());
  } else {
    ASSERT_TRUE(s->Put(Key(rank, 2), Value(rank, 2, 0), tags(rank, 2, 0)).ok());
  }
  ASSERT_TRUE(s->Commit().ok());
  IoStats e = s->stats();
  EXPECT_EQ(e.index_tables_reused - d.index_tables_reused, uint64_t(rank == 0 ? 1 : 0));  // rank 0: shared
  ASSERT_TRUE(s->Close().ok());

  // Revision 6: the chunked value put again, same bytes: new chunks, so
  // the table is new (chunk places differ), and it reads back.
  {
    ASSERT_TRUE(Store::Open(SmallOptions(), Path(), MPI_COMM_WORLD, &s).ok());
    if (rank != 0) { ASSERT_TRUE(s->Put(Key(rank, 2), Value(rank, 2, 0), tags(rank, 2, 0)).ok()); }
    ASSERT_TRUE(s->Commit().ok());
    EXPECT_EQ(s->stats().index_tables_reused, uint64_t(rank == 0 ? 2 : 0));
    ASSERT_TRUE(s->Close().ok());
  }

  for (uint64_t rev = 1; rev <= 6; rev++) {
    Options o = SmallOptions();
    o.revision = rev;
    o.read_only = true;
    ASSERT_TRUE(Store::Open(o, Path(), MPI_COMM_WORLD, &s).ok()) << "revision " << rev;
    std::vector<ObjectInfo> objs;
    ASSERT_TRUE(s->List(&objs).ok());
    bool deleted5 = rank == 0 && rev >= 5;
    EXPECT_EQ(objs.size(), size_t(deleted5 ? n - 1 : n)) << "revision " << rev;
    for (int i = 0; i < n; i++) {
      std::string v;
      Status g = s->Get(Key(rank, i), &v);
      if (deleted5 && i == 5) {
        EXPECT_TRUE(g.IsNotFound()) << g.ToString();
        continue;
      }
      ASSERT_TRUE(g.ok()) << Key(rank, i) << " revision " << rev << ": " << g.ToString();
      bool chunked = rank != 0 && i == 2 && rev >= 5;
      EXPECT_EQ(v, chunked ? Value(rank, 2, 0) : small(rank, i)) << Key(rank, i) << " revision " << rev;
      TagList t;
      ASSERT_TRUE(s->GetTags(Key(rank, i), &t).ok());
      EXPECT_EQ(t, tags(rank, i, gen_of(rank, i, rev))) << Key(rank, i) << " revision " << rev;
    }
    std::string sv;
    ASSERT_TRUE(s->GetShared("shared", &sv).ok());
    EXPECT_EQ(sv, "s0");
    ASSERT_TRUE(s->Close().ok());
  }
}

}  // namespace
}  // namespace cairn::test

CAIRN_MPI_TEST_MAIN
