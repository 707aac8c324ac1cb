// What a read-only open reads (doc/design.md, "Opening a store"): the
// manifest and the rank's own index table, not the shared namespace's
// table, which is read, verified and parsed on first use. Counted with
// Store::stats(); a damaged table the open did not read is reported as
// Corruption when it is first read, and a writable open and Verify (`cairn
// verify`) still check it. Run at 1, 2 and 4 ranks.
#include <gtest/gtest.h>
#include <mpi.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>

#include "cairn/store.h"
#include "format/manifest_format.h"
#include "mpi_main.h"
#include "store/inspect.h"

namespace cairn::test {
namespace {

Options Writable() {
  Options o;
  o.extent_size = 1 << 20;
  o.write_buffer_size = 256 * 1024;
  o.inline_value_limit = 4096;
  o.sync = false;
  return o;
}

Options ReadOnly() {
  Options o = Writable();
  o.read_only = true;
  o.create_if_missing = false;
  return o;
}

std::string Own(int rank, int i) { return "r" + std::to_string(rank) + "_" + std::to_string(i); }
std::string Shared(int i) { return "s" + std::to_string(i); }
std::string ValueOf(const std::string& key, size_t n) { return std::string(n, char('a' + key.size() % 26)) + key; }

ParsedManifest ReadManifest(const std::string& store, uint64_t* file_size) {
  std::ifstream f(store + "/MANIFEST", std::ios::binary);
  std::string bytes((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  *file_size = bytes.size();
  ParsedManifest pm;
  EXPECT_TRUE(ParseManifest(bytes, &pm).ok());
  return pm;
}

class LazyOpenTest : public MpiDirTest {
 protected:
  // Every rank puts 4 small objects; rank 0 puts `shared` shared ones of
  // 2 KiB (inline: with 300, a shared table of about 600 KiB, 40x a rank's,
  // above compact_index_limit; with 10, about 20 KiB, a compact one).
  void Build(int shared = 300) {
    std::unique_ptr<Store> s;
    ASSERT_TRUE(Store::Open(Writable(), Path(), MPI_COMM_WORLD, &s).ok());
    int r = Rank();
    for (int i = 0; i < 4; i++) ASSERT_TRUE(s->Put(Own(r, i), ValueOf(Own(r, i), 100)).ok());
    if (r == 0) {
      for (int i = 0; i < shared; i++) ASSERT_TRUE(s->PutShared(Shared(i), ValueOf(Shared(i), 2048)).ok());
    }
    ASSERT_TRUE(s->Commit().ok());
    ASSERT_TRUE(s->Close().ok());
  }

  void DamagedSharedTableIsCorruptionWhenFirstRead(int shared);
};

TEST_F(LazyOpenTest, ReadOnlyOpenReadsTheManifestAndItsOwnTableOnly) {
  Build();
  uint64_t manifest_size = 0;
  ParsedManifest pm = ReadManifest(Path(), &manifest_size);
  ASSERT_EQ(pm.revisions.size(), 1u);
  const RevisionRecord& rec = pm.revisions[0];
  int r = Rank();
  uint64_t shared_len = rec.shared().length;
  ASSERT_GT(shared_len, 300u * 2048);

  std::unique_ptr<Store> s;
  Status st = Store::Open(ReadOnly(), Path(), MPI_COMM_WORLD, &s);
  ASSERT_TRUE(st.ok()) << st.ToString();
  // Rank 0 reads the manifest and the small tables for every rank (one
  // block, scattered); the others read nothing themselves. Nobody reads
  // the shared table.
  uint64_t opened = s->stats().read_bytes;
  uint64_t tables = 0;
  for (const NamespaceDesc& d : rec.namespaces)
    if (&d != &rec.shared()) tables += d.length;
  if (r == 0) {
    EXPECT_LE(opened, manifest_size + 2 * tables) << "the open read the shared table too";
  } else {
    EXPECT_LE(opened, rec.namespaces[r].length);
  }
  std::string v;
  ASSERT_TRUE(s->Get(Own(r, 3), &v).ok());
  EXPECT_EQ(v, ValueOf(Own(r, 3), 100));
  EXPECT_EQ(s->stats().read_bytes, opened);  // inline: nothing more read

  // The first read of a shared object reads the shared table, once.
  ReadOptions sh;
  sh.rank = ReadOptions::kShared;
  ASSERT_TRUE(s->Get(Shared(7), &v, sh).ok());
  EXPECT_EQ(v, ValueOf(Shared(7), 2048));
  EXPECT_EQ(s->stats().read_bytes, opened + shared_len);
  ASSERT_TRUE(s->Get(Shared(299), &v, sh).ok());
  EXPECT_EQ(v, ValueOf(Shared(299), 2048));
  EXPECT_EQ(s->stats().read_bytes, opened + shared_len);
  // GetShared (collective: rank 0 reads, everyone gets the value).
  ASSERT_TRUE(s->GetShared(Shared(42), &v).ok());
  EXPECT_EQ(v, ValueOf(Shared(42), 2048));
  std::vector<ObjectInfo> objects;
  ASSERT_TRUE(s->List(&objects, sh).ok());
  EXPECT_EQ(objects.size(), 300u);
  ASSERT_TRUE(s->Close().ok());
}

// A large shared table is not read by a read-only open; a compact one is
// (with rank 0's block, then broadcast), but a damaged one does not fail the
// read-only open either: the open leaves it to its first use.
TEST_F(LazyOpenTest, DamagedSharedTableIsCorruptionWhenFirstRead) { DamagedSharedTableIsCorruptionWhenFirstRead(300); }
TEST_F(LazyOpenTest, DamagedCompactSharedTableIsCorruptionWhenFirstRead) {
  DamagedSharedTableIsCorruptionWhenFirstRead(10);
}

void LazyOpenTest::DamagedSharedTableIsCorruptionWhenFirstRead(int shared) {
  Build(shared);
  if (Rank() == 0) {
    uint64_t manifest_size;
    ParsedManifest pm = ReadManifest(Path(), &manifest_size);
    const NamespaceDesc& d = pm.revisions[0].shared();
    char name[32];
    std::snprintf(name, sizeof name, "/data.%05u", d.subfile);
    std::fstream f(Path() + name, std::ios::in | std::ios::out | std::ios::binary);
    ASSERT_TRUE(f.good()) << Path() + name;
    f.seekg(std::streamoff(d.offset + d.length / 2));
    char c;
    f.read(&c, 1);
    c ^= 0x20;
    f.seekp(std::streamoff(d.offset + d.length / 2));
    f.write(&c, 1);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  int r = Rank();
  {
    // A read-only open does not read a large shared table, and leaves a
    // compact one that fails its checksum to its first use: it opens, and
    // the rank's own objects read back.
    std::unique_ptr<Store> s;
    Status st = Store::Open(ReadOnly(), Path(), MPI_COMM_WORLD, &s);
    ASSERT_TRUE(st.ok()) << st.ToString();
    std::string v;
    ASSERT_TRUE(s->Get(Own(r, 1), &v).ok());
    EXPECT_EQ(v, ValueOf(Own(r, 1), 100));
    // Reading a shared object reads the table: Corruption naming the
    // checksum, never data; and again on a second try.
    ReadOptions sh;
    sh.rank = ReadOptions::kShared;
    for (int attempt = 0; attempt < 2; attempt++) {
      st = s->Get(Shared(5), &v, sh);
      EXPECT_TRUE(st.IsCorruption()) << st.ToString();
      EXPECT_NE(st.ToString().find("checksum"), std::string::npos) << st.ToString();
    }
    st = s->GetShared(Shared(5), &v);  // every rank gets rank 0's verdict
    EXPECT_TRUE(st.IsCorruption()) << st.ToString();
    // Verify (`cairn verify`) checks every table, the shared one included.
    if (r == 0) {
      VerifyReport report;
      ASSERT_TRUE(Inspector::Verify(s.get(), &report).ok());
      ASSERT_FALSE(report.problems.empty());
      bool named = false;
      for (const std::string& p : report.problems) named |= p.find("checksum") != std::string::npos;
      EXPECT_TRUE(named) << report.problems[0];
    }
    ASSERT_TRUE(s->Close().ok());
  }
  // A writable open needs the shared table (rank 0 commits into it): it
  // reads it at open and fails there, on every rank.
  std::unique_ptr<Store> s;
  Status st = Store::Open(Writable(), Path(), MPI_COMM_WORLD, &s);
  EXPECT_TRUE(st.IsCorruption()) << st.ToString();
}

}  // namespace
}  // namespace cairn::test

CAIRN_MPI_TEST_MAIN
