// Early writeback (Options::writeback_bytes): a rank asks the kernel to
// start writing each writeback_bytes of data it wrote contiguously, ahead of
// the commit's fsync, whether the bytes left through the write buffer, went
// to the file directly (large values) or through the staging queue; 0 turns
// it off. Counted in IoStats::writeback_requests. What was written reads
// back after a reopen either way. Run at 1, 2 and 4 ranks (each rank counts
// its own requests).
#include <gtest/gtest.h>
#include <mpi.h>

#include <string>

#include "cairn/store.h"
#include "mpi_main.h"

namespace cairn::test {
namespace {

std::string Key(int i) { return "k" + std::to_string(i); }
std::string Value(int rank, int i, size_t n) {
  std::string v(n, char('a' + (rank + i) % 26));
  v[0] = char('A' + i % 26);
  return v;
}

class WritebackTest : public MpiDirTest {
 protected:
  // Puts `count` values of `size` bytes, returns the writeback requests made
  // by the puts alone, commits, and checks that everything reads back after
  // a reopen.
  uint64_t PutCommitReopen(const Options& o, int count, size_t size) {
    int rank = Rank();
    uint64_t during_puts = 0;
    {
      std::unique_ptr<Store> s;
      Status st = Store::Open(o, Path(), MPI_COMM_WORLD, &s);
      EXPECT_TRUE(st.ok()) << st.ToString();
      if (!st.ok()) return 0;
      uint64_t before = s->stats().writeback_requests;
      for (int i = 0; i < count; i++) EXPECT_TRUE(s->Put(Key(i), Value(rank, i, size)).ok());
      if (o.staging_bytes > 0) {
        EXPECT_TRUE(s->Flush().ok());  // the queue's jobs have run
      }
      during_puts = s->stats().writeback_requests - before;
      st = s->Commit();
      EXPECT_TRUE(st.ok()) << st.ToString();
      EXPECT_TRUE(s->Close().ok());
    }
    Options ro = o;
    ro.read_only = true;
    std::unique_ptr<Store> s;
    Status st = Store::Open(ro, Path(), MPI_COMM_WORLD, &s);
    EXPECT_TRUE(st.ok()) << st.ToString();
    if (!st.ok()) return during_puts;
    for (int i = 0; i < count; i++) {
      std::string v;
      EXPECT_TRUE(s->Get(Key(i), &v).ok()) << Key(i);
      EXPECT_TRUE(v == Value(rank, i, size)) << Key(i) << " read back wrong";
    }
    EXPECT_TRUE(s->Close().ok());
    return during_puts;
  }
};

TEST_F(WritebackTest, DefaultStartsWritebackOfLargeValuesBeforeTheCommit) {
  Options o;
  EXPECT_EQ(o.writeback_bytes, 8ull << 20);
  // Two values of 8 MiB, each written straight from the caller's memory
  // into one 16 MiB extent: one request per value.
  EXPECT_EQ(PutCommitReopen(o, 2, 8u << 20), 2u);
}

TEST_F(WritebackTest, BufferedSmallValuesAreStartedEveryWritebackBytes) {
  Options o;
  o.extent_size = 1 << 20;
  o.write_buffer_size = 64 << 10;
  o.writeback_bytes = 256 << 10;
  // 32 values of 16 KiB leave as eight 64 KiB buffers, contiguous in one
  // extent: a request after the 4th and the 8th.
  EXPECT_EQ(PutCommitReopen(o, 32, 16 << 10), 2u);
}

TEST_F(WritebackTest, StagedWritesAreStartedByTheQueue) {
  Options o;
  o.extent_size = 1 << 20;
  o.write_buffer_size = 64 << 10;
  o.writeback_bytes = 256 << 10;
  o.staging_bytes = 256 << 10;
  EXPECT_EQ(PutCommitReopen(o, 32, 16 << 10), 2u);
}

TEST_F(WritebackTest, ZeroTurnsItOff) {
  Options o;
  o.writeback_bytes = 0;
  EXPECT_EQ(PutCommitReopen(o, 2, 8u << 20), 0u);
  o.write_buffer_size = 64 << 10;
  EXPECT_EQ(PutCommitReopen(o, 32, 16 << 10), 0u);  // a second revision, buffered
}

}  // namespace
}  // namespace cairn::test

CAIRN_MPI_TEST_MAIN
