// What a restart of small values costs besides its reads (issue 11;
// bench/HISTORY.md, "Small values"): the collective steps of a read-only
// open, counted through MPI's profiling interface (each MPI call below is
// the real one, PMPI_*, and is counted on its way), and the allocations of
// a MultiGet of one value, counted by replacing operator new.
#include <mpi.h>

#include <atomic>
#include <cstdlib>
#include <new>
#include <string>
#include <vector>

#include "cairn/store.h"
#include "mpi_main.h"

namespace {
std::atomic<long> g_collectives{0};
std::atomic<long> g_allocations{0};
std::atomic<bool> g_count_allocations{false};
}  // namespace

// The collectives the store can start (every one it makes goes through
// one of these): counted, then passed on to MPI.
extern "C" {
int MPI_Comm_idup(MPI_Comm c, MPI_Comm* out, MPI_Request* r) {
  g_collectives++;
  return PMPI_Comm_idup(c, out, r);
}
int MPI_Ibarrier(MPI_Comm c, MPI_Request* r) {
  g_collectives++;
  return PMPI_Ibarrier(c, r);
}
int MPI_Ibcast(void* b, int n, MPI_Datatype t, int root, MPI_Comm c, MPI_Request* r) {
  g_collectives++;
  return PMPI_Ibcast(b, n, t, root, c, r);
}
int MPI_Iallreduce(const void* s, void* d, int n, MPI_Datatype t, MPI_Op op, MPI_Comm c, MPI_Request* r) {
  g_collectives++;
  return PMPI_Iallreduce(s, d, n, t, op, c, r);
}
int MPI_Igather(const void* s, int sn, MPI_Datatype st, void* d, int dn, MPI_Datatype dt, int root, MPI_Comm c,
                MPI_Request* r) {
  g_collectives++;
  return PMPI_Igather(s, sn, st, d, dn, dt, root, c, r);
}
int MPI_Igatherv(const void* s, int sn, MPI_Datatype st, void* d, const int* dn, const int* dd, MPI_Datatype dt,
                 int root, MPI_Comm c, MPI_Request* r) {
  g_collectives++;
  return PMPI_Igatherv(s, sn, st, d, dn, dd, dt, root, c, r);
}
int MPI_Iscatter(const void* s, int sn, MPI_Datatype st, void* d, int dn, MPI_Datatype dt, int root, MPI_Comm c,
                 MPI_Request* r) {
  g_collectives++;
  return PMPI_Iscatter(s, sn, st, d, dn, dt, root, c, r);
}
int MPI_Iscatterv(const void* s, const int* sn, const int* sd, MPI_Datatype st, void* d, int dn, MPI_Datatype dt,
                  int root, MPI_Comm c, MPI_Request* r) {
  g_collectives++;
  return PMPI_Iscatterv(s, sn, sd, st, d, dn, dt, root, c, r);
}
int MPI_Comm_split(MPI_Comm c, int color, int key, MPI_Comm* out) {
  g_collectives++;
  return PMPI_Comm_split(c, color, key, out);
}
}

// GCC 12 warns that the replaced delete frees what the replaced new
// allocated with malloc, which is the point: both are this file's.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmismatched-new-delete"
void* operator new(std::size_t n) {
  if (g_count_allocations) g_allocations++;
  if (void* p = std::malloc(n ? n : 1)) return p;
  throw std::bad_alloc();
}
void operator delete(void* p) noexcept { std::free(p); }
void operator delete(void* p, std::size_t) noexcept { std::free(p); }
#pragma GCC diagnostic pop

namespace cairn {
namespace {

class SmallRead : public test::MpiDirTest {
 protected:
  void SetUp() override {
    MpiDirTest::SetUp();
    MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
    MPI_Comm_size(MPI_COMM_WORLD, &size_);
  }
  static std::string Key(int i) { return "k" + std::to_string(i); }
  static std::string Value(int rank, int i) {
    std::string v(4096, char('a' + (rank + i) % 26));  // above the inline limit: a chunk
    v[0] = char(i);
    return v;
  }
  void Write(int values) {
    std::unique_ptr<Store> s;
    ASSERT_TRUE(Store::Open(Options(), Path(), MPI_COMM_WORLD, &s).ok());
    for (int i = 0; i < values; i++) ASSERT_TRUE(s->Put(Key(i), Value(rank_, i)).ok());
    ASSERT_TRUE(s->Commit().ok());
    ASSERT_TRUE(s->Close().ok());
  }
  int rank_ = 0, size_ = 1;
};

// A read-only open is one broadcast from rank 0 (its options, the manifest's
// contents and the compact shared table), one scatter of the ranks' index
// tables that rank 0 read in one request, and one agreement, after the
// duplication of the communicator: four collective steps at any rank
// count (it made 5 at one rank and 15 at two). Its Close makes none (it
// made a barrier): a read-only handle's ranks leave as each is done.
TEST_F(SmallRead, ReadOnlyOpenIsFourCollectiveSteps) {
  Write(64);
  Options o;
  o.read_only = true;
  std::unique_ptr<Store> s;
  MPI_Barrier(MPI_COMM_WORLD);
  long before = g_collectives;
  ASSERT_TRUE(Store::Open(o, Path(), MPI_COMM_WORLD, &s).ok());
  EXPECT_EQ(g_collectives - before, 4);
  // Only rank 0 read at the open (the manifest, then every table in one
  // request); the others got their table from it.
  IoStats io = s->stats();
  if (rank_ == 0) EXPECT_EQ(io.read_requests, 2u);
  else EXPECT_EQ(io.read_requests, 0u);
  std::string v;
  for (int i = 0; i < 64; i += 7) {
    ASSERT_TRUE(s->Get(Key(i), &v).ok());
    EXPECT_EQ(v, Value(rank_, i));
  }
  before = g_collectives;
  ASSERT_TRUE(s->Close().ok());
  EXPECT_EQ(g_collectives - before, 0);
  // A writable handle's Close still waits for every rank (its writer lock
  // is released before any rank returns).
  ASSERT_TRUE(Store::Open(Options(), Path(), MPI_COMM_WORLD, &s).ok());
  before = g_collectives;
  ASSERT_TRUE(s->Close().ok());
  EXPECT_EQ(g_collectives - before, 1);
}

// A checkpoint's collective steps (the write side of the same cost):
// opening a new store, one commit and the close. They were 6 + 8 + 1 at
// one rank and 15 + 11 + 1 at two and four; the options' check, and the
// agreements that follow one another in open and commit, are one
// reduction each now.
TEST_F(SmallRead, CheckpointCollectiveSteps) {
  std::unique_ptr<Store> s;
  MPI_Barrier(MPI_COMM_WORLD);
  long before = g_collectives;
  ASSERT_TRUE(Store::Open(Options(), Path(), MPI_COMM_WORLD, &s).ok());
  long open = g_collectives - before;
  for (int i = 0; i < 8; i++) ASSERT_TRUE(s->Put(Key(i), Value(rank_, i)).ok());
  before = g_collectives;
  ASSERT_TRUE(s->Commit().ok());
  long commit = g_collectives - before;
  before = g_collectives;
  ASSERT_TRUE(s->Close().ok());
  long close = g_collectives - before;
  EXPECT_EQ(open, size_ == 1 ? 6 : 7);
  EXPECT_EQ(commit, size_ == 1 ? 6 : 8);
  EXPECT_EQ(close, 1);
}

// Rank 0's kind of open decides the protocol; a rank that asked for
// something else is told so, on every rank, as by a writable open.
TEST_F(SmallRead, ReadOnlyOpenRefusesOptionsThatDiffer) {
  if (size_ == 1) GTEST_SKIP() << "needs two ranks";
  Write(8);
  const int odd = size_ - 1;
  for (int which = 0; which < 3; which++) {
    Options o;
    o.read_only = true;
    o.collective_timeout_s = 20;
    if (rank_ == odd) {
      if (which == 0) o.compact_index_limit = 1000;
      if (which == 1) o.read_only = false;
      if (which == 2) o.chunk_size = 1000;  // local, but invalid
    }
    std::unique_ptr<Store> s;
    Status st = Store::Open(o, Path(), MPI_COMM_WORLD, &s);
    EXPECT_TRUE(st.IsInvalidArgument()) << which << ": " << st.ToString();
    const char* want[] = {"compact_index_limit is 65536 on rank 0, 1000 on rank ",
                          "read_only is true on rank 0, false on rank ", "rank "};
    EXPECT_NE(st.message().find(want[which] + std::to_string(odd)), std::string::npos) << st.ToString();
    std::string msg = st.message();
    std::vector<char> all(4096, 0);
    msg.resize(std::min<size_t>(msg.size(), 4095));
    if (rank_ == 0) std::copy(msg.begin(), msg.end(), all.begin());
    MPI_Bcast(all.data(), 4096, MPI_CHAR, 0, MPI_COMM_WORLD);
    EXPECT_EQ(msg, std::string(all.data())) << "rank " << rank_;
    if (s) s->Close();
  }
}

// A MultiGet of one value into the caller's buffer, made again and again
// (a restart reading object by object), allocates nothing once the handle
// has read once: it made ten allocations per value, as much CPU as the
// pread of a 4 KiB value.
TEST_F(SmallRead, MultiGetOfOneValueAllocatesNothing) {
  Write(16);
  Options o;
  o.read_only = true;
  std::unique_ptr<Store> s;
  ASSERT_TRUE(Store::Open(o, Path(), MPI_COMM_WORLD, &s).ok());
  std::vector<char> buf(4096);
  std::vector<std::string> keys(1);
  std::vector<Store::ValueBuffer> bufs{{buf.data(), buf.size(), 0}};
  std::vector<Status> st;
  keys[0] = Key(0);
  ASSERT_TRUE(s->MultiGet(keys, &bufs, &st).ok());
  for (int i = 1; i < 16; i++) {
    keys[0].assign(Key(i));  // (short keys fit in the string itself)
    g_allocations = 0;
    g_count_allocations = true;
    Status r = s->MultiGet(keys, &bufs, &st);
    g_count_allocations = false;
    ASSERT_TRUE(r.ok()) << r.ToString();
    EXPECT_EQ(g_allocations.load(), 0) << "value " << i;
    EXPECT_EQ(std::string(buf.data(), bufs[0].size), Value(rank_, i));
  }
  // Still verified: a value the caller's buffer cannot hold is refused.
  bufs[0].capacity = 100;
  EXPECT_TRUE(s->MultiGet(keys, &bufs, &st).IsInvalidArgument());
  ASSERT_TRUE(s->Close().ok());
}

}  // namespace
}  // namespace cairn

CAIRN_MPI_TEST_MAIN
