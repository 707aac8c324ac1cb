// Write streams against the manifest's own rewrites (doc/interactions.md,
// `stream` x `compact` and `stream` x `repair`), at 1, 2 and 4 ranks:
//  - a write stream open across 30 commits with keep 1 and a 1 KiB
//    compaction threshold (the manifest is rewritten and renamed every few
//    commits while the stream's chunks are held by no record, only by the
//    handle's stream hub), with large puts that take every free extent:
//    the stream reads back byte for byte after its Close and commit;
//  - a stream's chunks written and flushed but never committed (open across
//    revision 4, the handle closed with the stream still open), then the
//    final manifest record torn (a crash during its append) or damaged (a
//    flipped byte), `RepairManifest`: revision 3 reads back exactly, a
//    rewritten stream of the same key and new puts that reuse the orphaned
//    chunks' space commit and read back, and no revision number is reused.
#include <gtest/gtest.h>
#include <mpi.h>
#include <stdlib.h>

#include <fstream>
#include <string>

#include "cairn/store.h"
#include "cairn/stream.h"
#include "format/coding.h"
#include "format/manifest_format.h"
#include "mpi_main.h"
#include "store_test_util.h"
#include "store/repair.h"

namespace cairn::test {
namespace {

std::string Key(int i) { return "k" + std::to_string(i); }
std::string Value(int rank, int i, int gen, size_t base = 5000) {
  std::string v(base + size_t(i) * 311, '\0');
  for (size_t j = 0; j < v.size(); j++) v[j] = char((rank * 131 + i * 17 + gen * 7 + int(j) * 3) & 0xff);
  return v;
}

class StreamManifest : public MpiDirTest {};

TEST_F(StreamManifest, StreamOpenAcrossCompactions) {
  int rank = Rank();
  Options o = SmallUnsyncedOptions();
  o.keep_revisions = 1;
  std::string streamed;
  {
    std::unique_ptr<Store> s;
    ASSERT_TRUE(Store::Open(o, Path(), MPI_COMM_WORLD, &s).ok());
    ASSERT_TRUE(s->Put("log", "old").ok());
    ASSERT_TRUE(s->Commit().ok());  // 1
    uint64_t renames0 = s->stats().renames;
    std::unique_ptr<StreamWriter> sw;
    ASSERT_TRUE(s->OpenWriteStream("log", {}, &sw).ok());
    for (int gen = 1; gen <= 30; gen++) {
      std::string part = Value(rank, 7, gen, 9000);  // about 11 KB a commit, flushed
      streamed += part;
      ASSERT_TRUE(sw->Write(part).ok());
      ASSERT_TRUE(sw->Flush().ok());
      // Four 40 KB puts a commit: with keep 1 every free extent is taken
      // again, so a chunk of the stream handed out would be overwritten.
      for (int i = 0; i < 4; i++) ASSERT_TRUE(s->Put(Key(i), Value(rank, i, gen, 40000)).ok());
      Status st = s->Commit();
      ASSERT_TRUE(st.ok()) << st.ToString();
      std::string v;
      ASSERT_TRUE(s->Get("log", &v).ok());
      EXPECT_EQ(v, "old") << "commit " << gen + 1 << " while the stream is open";
    }
    long long compactions = (long long)(s->stats().renames - renames0), most = 0;
    MPI_Allreduce(&compactions, &most, 1, MPI_LONG_LONG, MPI_MAX, MPI_COMM_WORLD);
    EXPECT_GE(most, 3) << "the manifest was compacted too rarely while the stream was open";
    ASSERT_TRUE(sw->Close().ok());
    uint64_t got = 0;
    ASSERT_TRUE(s->Commit(&got).ok());
    EXPECT_EQ(got, 32u);
    ASSERT_TRUE(s->Close().ok());
  }
  Options ro = o;
  ro.read_only = true;
  std::unique_ptr<Store> s;
  ASSERT_TRUE(Store::Open(ro, Path(), MPI_COMM_WORLD, &s).ok());
  ASSERT_EQ(s->revision(), 32u);
  std::string v;
  ASSERT_TRUE(s->Get("log", &v).ok());
  EXPECT_EQ(v.size(), streamed.size());
  EXPECT_TRUE(v == streamed) << "the stream written across compactions differs";
  for (int i = 0; i < 4; i++) {
    ASSERT_TRUE(s->Get(Key(i), &v).ok());
    EXPECT_EQ(v, Value(rank, i, 30, 40000));
  }
}

// Rank 0: walks the manifest's framing to its final record and either cuts
// it in half (torn) or flips a byte inside it (damaged).
void SpoilFinalRecord(const std::string& path, bool torn) {
  std::string man = path + "/MANIFEST";
  std::ifstream in(man, std::ios::binary);
  std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  in.close();
  uint64_t off = kManifestHeaderSize, last = 0;
  while (off + kRecordOverhead <= bytes.size()) {
    last = off;
    off += DecodeFixed32(bytes.data() + off) + kRecordOverhead;
  }
  ASSERT_EQ(off, bytes.size());
  if (torn)
    bytes.resize(last + (bytes.size() - last) / 2);
  else
    bytes[last + 40] ^= 0x10;
  std::ofstream(man, std::ios::binary | std::ios::trunc) << bytes;
}

void ExpectRevision3(Store* s, int rank) {
  std::string v;
  ASSERT_EQ(s->revision(), 3u);
  ASSERT_TRUE(s->Get("log", &v).ok());
  EXPECT_EQ(v, Value(rank, 9, 3, 20000)) << "the stream committed in revision 3";
  for (int i = 0; i < 4; i++) {
    ASSERT_TRUE(s->Get(Key(i), &v).ok());
    EXPECT_EQ(v, Value(rank, i, 3, 30000)) << Key(i) << " of revision 3";
  }
}

TEST_F(StreamManifest, UncommittedStreamChunksThenRepair) {
  int rank = Rank();
  for (bool torn : {true, false}) {
    SCOPED_TRACE(torn ? "torn final record" : "damaged final record");
    std::string path = Path() + (torn ? "t" : "d");
    Options o = SmallUnsyncedOptions();
    o.keep_revisions = 2;
    {
      std::unique_ptr<Store> s;
      ASSERT_TRUE(Store::Open(o, path, MPI_COMM_WORLD, &s).ok());
      for (int gen = 1; gen <= 3; gen++) {  // revisions 1-3, a committed stream in each
        std::unique_ptr<StreamWriter> sw;
        ASSERT_TRUE(s->OpenWriteStream("log", {}, &sw).ok());
        ASSERT_TRUE(sw->Write(Value(rank, 9, gen, 20000)).ok());
        ASSERT_TRUE(sw->Close().ok());
        for (int i = 0; i < 4; i++) ASSERT_TRUE(s->Put(Key(i), Value(rank, i, gen, 30000)).ok());
        ASSERT_TRUE(s->Commit().ok());
      }
      // A stream of "log" written and flushed (chunks on disk), open across
      // revision 4, and never closed before the handle is.
      std::unique_ptr<StreamWriter> sw;
      ASSERT_TRUE(s->OpenWriteStream("log", {}, &sw).ok());
      ASSERT_TRUE(sw->Write(Value(rank, 8, 4, 50000)).ok());
      ASSERT_TRUE(sw->Flush().ok());
      for (int i = 0; i < 4; i++) ASSERT_TRUE(s->Put(Key(i), Value(rank, i, 4, 30000)).ok());
      uint64_t got = 0;
      ASSERT_TRUE(s->Commit(&got).ok());
      ASSERT_EQ(got, 4u);
      ASSERT_TRUE(sw->Write(Value(rank, 8, 5, 50000)).ok());
      ASSERT_TRUE(sw->Flush().ok());
      ASSERT_TRUE(s->Close().ok());  // the stream is not committed
    }
    if (rank == 0) {
      ASSERT_NO_FATAL_FAILURE(SpoilFinalRecord(path, torn));
      RepairReport rep;
      Status st = RepairManifest(path, &rep);
      ASSERT_TRUE(st.ok()) << st.ToString();
      EXPECT_TRUE(rep.changed);
      EXPECT_EQ(rep.tail_damaged, !torn);
      EXPECT_GT(rep.tail_bytes, 0u);
      // A torn append was never acknowledged, so its number is free again;
      // a damaged complete record may have been seen, so 4 is reserved.
      EXPECT_EQ(rep.reserved_revision, torn ? 0u : 4u);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    {
      Options ro = o;
      ro.read_only = true;
      std::unique_ptr<Store> r;
      ASSERT_TRUE(Store::Open(ro, path, MPI_COMM_WORLD, &r).ok());
      ASSERT_NO_FATAL_FAILURE(ExpectRevision3(r.get(), rank));
    }
    const uint64_t next = torn ? 4 : 5;
    o.keep_revisions = 1;
    std::string streamed;
    {
      std::unique_ptr<Store> s;
      Status st = Store::Open(o, path, MPI_COMM_WORLD, &s);
      ASSERT_TRUE(st.ok()) << st.ToString();
      ASSERT_NO_FATAL_FAILURE(ExpectRevision3(s.get(), rank));
      // Rounds that take all the free space (the orphaned chunks' extents
      // and the lost revision's included), a stream of "log" open across them.
      std::unique_ptr<StreamWriter> sw;
      ASSERT_TRUE(s->OpenWriteStream("log", {}, &sw).ok());
      for (int gen = 0; gen < 6; gen++) {
        std::string part = Value(rank, 6, 10 + gen, 15000);
        streamed += part;
        ASSERT_TRUE(sw->Write(part).ok());
        ASSERT_TRUE(sw->Flush().ok());
        for (int i = 0; i < 4; i++) ASSERT_TRUE(s->Put(Key(i), Value(rank, i, 10 + gen, 30000)).ok());
        uint64_t got = 0;
        ASSERT_TRUE(s->Commit(&got).ok());
        EXPECT_EQ(got, next + uint64_t(gen)) << "a revision number taken twice, or skipped";
        std::string v;
        ASSERT_TRUE(s->Get("log", &v).ok());
        EXPECT_EQ(v, Value(rank, 9, 3, 20000)) << "while the new stream is open";
      }
      ASSERT_TRUE(sw->Close().ok());
      ASSERT_TRUE(s->Commit().ok());
      ASSERT_TRUE(s->Close().ok());
    }
    Options ro = o;
    ro.read_only = true;
    std::unique_ptr<Store> r;
    ASSERT_TRUE(Store::Open(ro, path, MPI_COMM_WORLD, &r).ok());
    EXPECT_EQ(r->revision(), next + 6);
    std::string v;
    ASSERT_TRUE(r->Get("log", &v).ok());
    EXPECT_TRUE(v == streamed) << "the stream written after the repair differs";
    for (int i = 0; i < 4; i++) {
      ASSERT_TRUE(r->Get(Key(i), &v).ok());
      EXPECT_EQ(v, Value(rank, i, 15, 30000));
    }
  }
}

}  // namespace
}  // namespace cairn::test

int main(int argc, char** argv) {
  // Read once per process at the first commit: compact every few commits.
  setenv("CAIRN_MANIFEST_COMPACT_BYTES", "1024", 1);
  return cairn::test::RunMpiTests(&argc, &argv);
}
