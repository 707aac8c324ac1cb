// Global arrays under mpiexec (run with 1, 2, 3 and 4 ranks): irregular
// blocks, a rank that puts none, random sub-box reads on every rank,
// asynchronous commits, and checks that fail the commit on every rank.
#include <gtest/gtest.h>
#include <mpi.h>

#include <algorithm>
#include <filesystem>
#include <random>

#include "array/array_meta.h"
#include "cairn/store.h"
#include "mpi_main.h"
#include "store/inspect.h"

namespace cairn {
namespace {

using test::Rank;
using test::Size;


const std::vector<uint64_t> kShape = {13, 17, 11};

double F(uint64_t i, uint64_t j, uint64_t k) { return double(i) * 10000 + double(j) * 100 + double(k) + 0.5; }

// The blocks rank `r` of `n` puts: ranks 0..p-1 (p = n-1 when n > 1: the
// last rank puts none) own uneven slabs of dimension 0, each cut in two
// along dimension 1 at a rank-dependent point.
struct Box {
  std::vector<uint64_t> start, count;
};
std::vector<Box> BlocksOf(int r, int n) {
  int p = n > 1 ? n - 1 : 1;
  if (r >= p) return {};
  auto edge = [&](int i) { return uint64_t(i) * uint64_t(i) * kShape[0] / uint64_t(p * p); };
  uint64_t a = edge(r), b = edge(r + 1);
  if (a == b) return {};
  uint64_t cut = std::min<uint64_t>(3 + uint64_t(r), kShape[1] - 1);
  return {Box{{a, 0, 0}, {b - a, cut, kShape[2]}}, Box{{a, cut, 0}, {b - a, kShape[1] - cut, kShape[2]}}};
}

std::vector<double> Fill(const Box& b, double add = 0) {
  std::vector<double> v;
  for (uint64_t i = 0; i < b.count[0]; i++)
    for (uint64_t j = 0; j < b.count[1]; j++)
      for (uint64_t k = 0; k < b.count[2]; k++)
        v.push_back(F(b.start[0] + i, b.start[1] + j, b.start[2] + k) + add);
  return v;
}

class MpiArray : public test::MpiDirTest {
 protected:
  static Options Small() {
    Options o;
    o.extent_size = 64 << 10;
    o.chunk_size = 4096;
    o.write_buffer_size = 8192;
    o.inline_value_limit = 64;
    o.sync = false;
    return o;
  }
  std::unique_ptr<Store> Open(Options o = Small()) {
    std::unique_ptr<Store> s;
    Status st = Store::Open(o, Path(), MPI_COMM_WORLD, &s);
    EXPECT_TRUE(st.ok()) << st.ToString();
    return s;
  }
  void PutMine(Store* s, const std::string& name, double add = 0) {
    for (const Box& b : BlocksOf(Rank(), Size())) {
      std::vector<double> v = Fill(b, add);
      ASSERT_TRUE(s->PutArray(name, DType::kFloat64, kShape, b.start, b.count, v.data()).ok());
    }
  }
  // Random sub-boxes (each rank its own) compared with the formula.
  void CheckRandomBoxes(Store* s, const std::string& name, double add, int boxes = 40) {
    std::mt19937_64 g(1234 + uint64_t(Rank()));
    for (int t = 0; t < boxes; t++) {
      Box q;
      for (size_t d = 0; d < 3; d++) {
        uint64_t a = g() % kShape[d], b = g() % kShape[d];
        if (a > b) std::swap(a, b);
        q.start.push_back(a);
        q.count.push_back(b - a + 1);
      }
      std::vector<double> out(q.count[0] * q.count[1] * q.count[2], -1);
      Status st = s->GetArray(name, q.start, q.count, out.data());
      ASSERT_TRUE(st.ok()) << st.ToString();
      ASSERT_EQ(out, Fill(q, add)) << "box " << q.start[0] << "," << q.start[1] << "," << q.start[2];
    }
  }
};

TEST_F(MpiArray, IrregularBlocksReadAnywhere) {
  auto s = Open();
  PutMine(s.get(), "u");
  uint64_t rev = 0;
  ASSERT_TRUE(s->Commit(&rev).ok());
  CheckRandomBoxes(s.get(), "u", 0);
  std::vector<double> all(13 * 17 * 11);
  ASSERT_TRUE(s->GetArray("u", {0, 0, 0}, kShape, all.data()).ok());
  EXPECT_EQ(all, Fill(Box{{0, 0, 0}, kShape}));
  ArrayInfo info;
  ASSERT_TRUE(s->GetArrayInfo("u", &info, true).ok());
  uint64_t want = 0;
  for (int r = 0; r < Size(); r++) want += BlocksOf(r, Size()).size();
  EXPECT_EQ(info.block_count, want);
  EXPECT_EQ(info.blocks.size(), want);
  EXPECT_EQ(info.shape, kShape);
  EXPECT_EQ(info.dtype, DType::kFloat64);
  for (const ArrayBlock& b : info.blocks) EXPECT_LT(b.rank, std::max(1, Size() - 1));
  std::vector<ArrayInfo> list;
  ASSERT_TRUE(s->ListArrays(&list).ok());
  ASSERT_EQ(list.size(), 1u);
  EXPECT_EQ(list[0].name, "u");
  // The user's namespace shows no array objects.
  std::vector<ObjectInfo> objs;
  ASSERT_TRUE(s->List(&objs).ok());
  EXPECT_TRUE(objs.empty());
  ASSERT_TRUE(s->Close().ok());

  // Read-only, on the same rank count: every rank reads every block.
  Options ro = Small();
  ro.read_only = true;
  auto r = Open(ro);
  CheckRandomBoxes(r.get(), "u", 0, 20);
  EXPECT_EQ(r->writer_ranks(), Size());
}

// Blocks large enough for the three ways GetArray reads a grain (straight
// into the caller's buffer whole, scattered there in pieces, through the
// side buffer; src/array/array_grains.h): irregular slabs of dimension 0,
// each cut in four along dimensions 1 and 2 at rank-dependent points (rows
// of 512 + 384 r bytes and the rest), the last rank (of 2 or more) puts
// none, extents of 256 KiB split the block objects. Every rank reads the
// whole array, boxes around every block's corner and random boxes, and
// compares them with a reference built in memory.
TEST_F(MpiArray, GrainedIrregularBlocksAcrossEdges) {
  const std::vector<uint64_t> shape = {23, 40, 200};
  auto val = [&](uint64_t i, uint64_t j, uint64_t k) { return double((i * shape[1] + j) * shape[2] + k) + 0.25; };
  std::vector<double> ref(shape[0] * shape[1] * shape[2]);
  for (uint64_t i = 0; i < shape[0]; i++)
    for (uint64_t j = 0; j < shape[1]; j++)
      for (uint64_t k = 0; k < shape[2]; k++) ref[(i * shape[1] + j) * shape[2] + k] = val(i, j, k);
  auto cut = [&](const Box& q) {
    std::vector<double> v;
    for (uint64_t i = 0; i < q.count[0]; i++)
      for (uint64_t j = 0; j < q.count[1]; j++)
        for (uint64_t k = 0; k < q.count[2]; k++)
          v.push_back(ref[((q.start[0] + i) * shape[1] + q.start[1] + j) * shape[2] + q.start[2] + k]);
    return v;
  };
  int p = Size() > 1 ? Size() - 1 : 1;
  auto blocks_of = [&](int r) {
    std::vector<Box> v;
    if (r >= p) return v;
    auto edge = [&](int i) { return uint64_t(i) * uint64_t(i) * shape[0] / uint64_t(p * p); };
    uint64_t a = edge(r), b = edge(r + 1), c1 = 7 + uint64_t(r), c2 = 64 + 48 * uint64_t(r);
    if (a == b) return v;
    for (int h = 0; h < 2; h++)
      for (int w = 0; w < 2; w++)
        v.push_back(Box{{a, h ? c1 : 0, w ? c2 : 0}, {b - a, h ? shape[1] - c1 : c1, w ? shape[2] - c2 : c2}});
    return v;
  };
  Options o = Small();
  o.chunk_size = 4ull << 20;  // the grain (4 KiB) cuts the chunks
  o.extent_size = 256 << 10;
  auto s = Open(o);
  for (const Box& b : blocks_of(Rank())) {
    std::vector<double> v = cut(b);
    ASSERT_TRUE(s->PutArray("e", DType::kFloat64, shape, b.start, b.count, v.data()).ok());
  }
  ASSERT_TRUE(s->Commit().ok());
  std::vector<Box> boxes = {Box{{0, 0, 0}, shape}};
  for (int r = 0; r < p; r++)
    for (const Box& b : blocks_of(r)) {  // a box around the block's first corner
      Box q;
      for (size_t d = 0; d < 3; d++) {
        uint64_t half = d == 2 ? 70 : 3;
        uint64_t lo = b.start[d] > half ? b.start[d] - half : 0, hi = std::min(shape[d], b.start[d] + half);
        q.start.push_back(lo);
        q.count.push_back(std::max<uint64_t>(hi - lo, 1));
      }
      boxes.push_back(q);
    }
  std::mt19937_64 g(99 + uint64_t(Rank()));
  for (int t = 0; t < 30; t++) {
    Box q;
    for (size_t d = 0; d < 3; d++) {
      uint64_t a = g() % shape[d], b = g() % shape[d];
      if (a > b) std::swap(a, b);
      q.start.push_back(a);
      q.count.push_back(b - a + 1);
    }
    boxes.push_back(q);
  }
  for (const Box& q : boxes) {
    std::vector<double> out(q.count[0] * q.count[1] * q.count[2], -1);
    Status st = s->GetArray("e", q.start, q.count, out.data());
    ASSERT_TRUE(st.ok()) << st.ToString();
    ASSERT_TRUE(out == cut(q)) << "box " << q.start[0] << "," << q.start[1] << "," << q.start[2] << " + "
                               << q.count[0] << "," << q.count[1] << "," << q.count[2];
  }
  ArrayReadStats a = s->array_read_stats();
  EXPECT_LE(a.bytes_read, a.bytes_wanted * 3);  // grains cut by small boxes are read whole
}

TEST_F(MpiArray, AsyncCommitAndRePut) {
  auto s = Open();
  PutMine(s.get(), "a");
  AsyncCommit h;
  ASSERT_TRUE(s->CommitAsync(&h).ok());
  // Put again while it is in flight: a new round, read after its commit.
  PutMine(s.get(), "a", 1.0);
  uint64_t first = 0;
  ASSERT_TRUE(h.Wait(&first).ok());
  CheckRandomBoxes(s.get(), "a", 0, 10);
  AsyncCommit h2;
  ASSERT_TRUE(s->CommitAsync(&h2).ok());
  uint64_t second = 0;
  ASSERT_TRUE(h2.Wait(&second).ok());
  CheckRandomBoxes(s.get(), "a", 1.0, 20);
  // A regular decomposition: one slab of dimension 0 per rank (the last
  // rank's cut short), stored as a grid.
  uint64_t slab = (kShape[0] + uint64_t(Size()) - 1) / uint64_t(Size());
  uint64_t a = std::min<uint64_t>(kShape[0], slab * uint64_t(Rank()));
  uint64_t b = std::min<uint64_t>(kShape[0], a + slab);
  if (b > a) {
    Box box{{a, 0, 0}, {b - a, kShape[1], kShape[2]}};
    std::vector<double> v = Fill(box, 2.0);
    ASSERT_TRUE(s->PutArray("a", DType::kFloat64, kShape, box.start, box.count, v.data()).ok());
  }
  ASSERT_TRUE(s->Commit().ok());
  ArrayInfo info;
  ASSERT_TRUE(s->GetArrayInfo("a", &info, true).ok());
  uint64_t nonempty = 0;
  for (int r = 0; r < Size(); r++) nonempty += std::min<uint64_t>(kShape[0], slab * uint64_t(r)) < kShape[0];
  EXPECT_EQ(info.block_count, nonempty);
  EXPECT_TRUE(info.regular);
  CheckRandomBoxes(s.get(), "a", 2.0, 20);
  ASSERT_TRUE(s->Close().ok());
  // The older revisions still read their own data.
  Options o = Small();
  o.read_only = true;
  o.revision = first;
  auto r = Open(o);
  CheckRandomBoxes(r.get(), "a", 0, 10);
  ASSERT_TRUE(r->Close().ok());
  o.revision = second;
  r = Open(o);
  CheckRandomBoxes(r.get(), "a", 1.0, 10);
}

// DeleteArray while a commit is in flight: an array that commit puts is
// found (on every rank, the last of which puts no block of it), one it
// deletes is not; the next commit removes the first, and the array put
// beside it stays (found by an outside pass: NotFound until Wait).
TEST_F(MpiArray, DeleteArrayOfTheCommitInFlight) {
  auto s = Open();
  const double d[4] = {1, 2, 3, 4};
  const bool puts = Size() == 1 || Rank() != Size() - 1;
  const uint64_t n = 4;
  if (puts && Rank() == 0) {
    ASSERT_TRUE(s->PutArray("old", DType::kFloat64, {n}, {0}, {n}, d).ok());
  }
  ASSERT_TRUE(s->Commit().ok());
  if (puts && Rank() == 0) {
    ASSERT_TRUE(s->PutArray("new", DType::kFloat64, {n}, {0}, {n}, d).ok());
    ASSERT_TRUE(s->PutArray("kept", DType::kFloat64, {n}, {0}, {n}, d).ok());
  }
  ASSERT_TRUE(s->DeleteArray("old").ok());
  AsyncCommit h;
  ASSERT_TRUE(s->CommitAsync(&h).ok());
  Status del = s->DeleteArray("new");
  EXPECT_TRUE(del.ok()) << del.ToString();
  Status again = s->DeleteArray("old");
  EXPECT_TRUE(again.IsNotFound()) << again.ToString();
  EXPECT_TRUE(s->DeleteArray("never").IsNotFound());
  uint64_t rev = 0;
  ASSERT_TRUE(h.Wait(&rev).ok());
  ArrayInfo info;
  EXPECT_TRUE(s->GetArrayInfo("new", &info).ok());  // the revision of the commit that was in flight
  EXPECT_TRUE(s->GetArrayInfo("old", &info).IsNotFound());
  ASSERT_TRUE(s->Commit().ok());
  EXPECT_TRUE(s->GetArrayInfo("new", &info).IsNotFound());
  ASSERT_TRUE(s->GetArrayInfo("kept", &info).ok());
  std::vector<double> got(n);
  ASSERT_TRUE(s->GetArray("kept", {0}, {n}, got.data()).ok());
  EXPECT_EQ(got, std::vector<double>(d, d + n));
  ASSERT_TRUE(s->Close().ok());
}

// Staged puts (the I/O thread writes the blocks) and asynchronous commits;
// a bad round through CommitAsync fails on every rank, the good one after
// it commits.
TEST_F(MpiArray, StagingAndAsyncFailure) {
  Options o = Small();
  o.staging_bytes = 4 * o.write_buffer_size;
  auto s = Open(o);
  PutMine(s.get(), "st");
  AsyncCommit h;
  ASSERT_TRUE(s->CommitAsync(&h).ok());
  ASSERT_TRUE(h.Wait().ok());
  CheckRandomBoxes(s.get(), "st", 0, 20);
  uint64_t rev = s->revision();
  double v[4] = {1, 2, 3, 4};
  // Every rank puts the same box of "bad": an overlap (at 1 rank, twice).
  ASSERT_TRUE(s->PutArray("bad", DType::kFloat64, {8}, {0}, {4}, v).ok());
  if (Size() == 1) {
    ASSERT_TRUE(s->PutArray("bad", DType::kFloat64, {8}, {1}, {4}, v).ok());
  }
  PutMine(s.get(), "st", 3.0);
  Status st = s->CommitAsync(&h);
  EXPECT_TRUE(st.IsInvalidArgument()) << st.ToString();
  EXPECT_FALSE(h.valid());
  EXPECT_EQ(s->revision(), rev);
  CheckRandomBoxes(s.get(), "st", 0, 10);  // the old array, untouched
  PutMine(s.get(), "st", 4.0);
  ASSERT_TRUE(s->CommitAsync(&h).ok());
  ASSERT_TRUE(h.Wait().ok());
  CheckRandomBoxes(s.get(), "st", 4.0, 20);
  ArrayInfo info;
  EXPECT_TRUE(s->GetArrayInfo("bad", &info).IsNotFound());
}

TEST_F(MpiArray, MismatchFailsOnEveryRank) {
  auto s = Open();
  ASSERT_TRUE(s->Put("obj", "value").ok());
  ASSERT_TRUE(s->Commit().ok());
  uint64_t rev = s->revision();
  // The last rank disagrees on the dtype (at 1 rank: two blocks overlap).
  double v[4] = {1, 2, 3, 4};
  if (Size() == 1) {
    ASSERT_TRUE(s->PutArray("m", DType::kFloat64, {8}, {0}, {4}, v).ok());
    ASSERT_TRUE(s->PutArray("m", DType::kFloat64, {8}, {2}, {4}, v).ok());
  } else if (Rank() == Size() - 1) {
    ASSERT_TRUE(s->PutArray("m", DType::kInt64, {uint64_t(4 * Size())}, {uint64_t(4 * Rank())}, {4}, v).ok());
  } else {
    ASSERT_TRUE(s->PutArray("m", DType::kFloat64, {uint64_t(4 * Size())}, {uint64_t(4 * Rank())}, {4}, v).ok());
  }
  Status st = s->Commit();
  EXPECT_TRUE(st.IsInvalidArgument()) << st.ToString();
  EXPECT_NE(st.message().find("'m'"), std::string::npos) << st.ToString();
  EXPECT_EQ(s->revision(), rev);
  ArrayInfo info;
  EXPECT_TRUE(s->GetArrayInfo("m", &info).IsNotFound());
  // Overlap across ranks: every rank puts the same box.
  ASSERT_TRUE(s->PutArray("o", DType::kFloat64, {8}, {0}, {4}, v).ok());
  if (Size() == 1) {
    ASSERT_TRUE(s->PutArray("o", DType::kFloat64, {8}, {3}, {4}, v).ok());
  }
  st = s->Commit();
  EXPECT_TRUE(st.IsInvalidArgument()) << st.ToString();
  EXPECT_NE(st.message().find("overlap"), std::string::npos) << st.ToString();
  // The dropped puts are gone; a good round commits.
  ASSERT_TRUE(s->PutArray("m", DType::kFloat64, {uint64_t(4 * Size())}, {uint64_t(4 * Rank())}, {4}, v).ok());
  ASSERT_TRUE(s->Commit().ok());
  std::vector<double> out(4 * size_t(Size()));
  ASSERT_TRUE(s->GetArray("m", {0}, {out.size()}, out.data()).ok());
  for (size_t i = 0; i < out.size(); i++) EXPECT_EQ(out[i], v[i % 4]);
  EXPECT_TRUE(s->GetArrayInfo("o", &info).IsNotFound());
  std::string got;
  EXPECT_TRUE(s->Get("obj", &got).ok());
  // One rank deletes the array: it is gone for all.
  if (Rank() == 0) {
    ASSERT_TRUE(s->DeleteArray("m").ok());
  }
  ASSERT_TRUE(s->Commit().ok());
  EXPECT_TRUE(s->GetArrayInfo("m", &info).IsNotFound());
  std::vector<ArrayInfo> list;
  ASSERT_TRUE(s->ListArrays(&list).ok());
  EXPECT_TRUE(list.empty());
}

// Describing a regular decomposition costs O(1), not O(blocks): one block
// per rank (slabs of dimension 0, in rank order) is stored as 20 + 16 d
// bytes and held in memory without anything per block, at any rank count
// (doc/design.md "Memory"); the same array cut into two blocks per rank is
// irregular and grows with the ranks.
TEST_F(MpiArray, RegularDescriptorDoesNotGrowWithTheRanks) {
  const uint64_t rows = 4;  // per rank
  std::vector<uint64_t> shape = {rows * uint64_t(Size()), 6, 5};
  auto s = Open();
  std::vector<double> v(rows * 6 * 5, 1.0);
  uint64_t at = rows * uint64_t(Rank());
  ASSERT_TRUE(s->PutArray("grid", DType::kFloat64, shape, {at, 0, 0}, {rows, 6, 5}, v.data()).ok());
  for (uint64_t h = 0; h < 2; h++)
    ASSERT_TRUE(s->PutArray("cut", DType::kFloat64, shape, {at + h, 0, 0}, {h ? rows - 1 : 1, 6, 5}, v.data()).ok());
  ASSERT_TRUE(s->Commit().ok());
  uint64_t bytes = 0, memory = 0;
  ASSERT_TRUE(Inspector::ArrayFootprint(s.get(), "grid", &bytes, &memory).ok());
  EXPECT_EQ(bytes, 20u + 16 * 3);
  ArrayMeta empty;  // what a grid holds beside its fixed part: shape, cell shape and grid (3 x 8 bytes each)
  EXPECT_EQ(memory, empty.MemoryBytes() + 3 * 3 * 8);
  ASSERT_TRUE(Inspector::ArrayFootprint(s.get(), "cut", &bytes, &memory).ok());
  EXPECT_EQ(bytes, 20u + 8 * 3 + 2 * uint64_t(Size()) * (8 + 16 * 3));  // no cell shape; 8 + 16 d per block
  EXPECT_GT(memory, 2 * uint64_t(Size()) * (8 + 16 * 3));
  std::vector<double> out(shape[0] * 6 * 5);
  ASSERT_TRUE(s->GetArray("grid", {0, 0, 0}, shape, out.data()).ok());
  for (double x : out) ASSERT_EQ(x, 1.0);
}

// A restart reads the shared table (the arrays' descriptors) once, at rank
// 0, and broadcasts it: a rank's first GetArray then reads only its block.
// Before, every rank read the shared table from rank 0's data file at its
// first GetArray: N opens and N reads of the same bytes (doc/scale.md).
TEST_F(MpiArray, RestartReadsTheSharedTableOnceAtRankZero) {
  const uint64_t n = 64;  // elements per rank: one 512-byte block
  {
    auto s = Open();
    std::vector<double> v(n);
    for (uint64_t i = 0; i < n; i++) v[i] = double(uint64_t(Rank()) * n + i);
    ASSERT_TRUE(s->PutArray("b", DType::kFloat64, {n * uint64_t(Size())}, {uint64_t(Rank()) * n}, {n},
                            v.data()).ok());
    ASSERT_TRUE(s->Commit().ok());
    ASSERT_TRUE(s->Close().ok());
  }
  Options ro = Small();
  ro.read_only = true;
  auto r = Open(ro);
  IoStats a = r->stats();
  std::vector<double> out(n);
  ASSERT_TRUE(r->GetArray("b", {uint64_t(Rank()) * n}, {n}, out.data()).ok());
  IoStats b = r->stats();
  for (uint64_t i = 0; i < n; i++) ASSERT_EQ(out[i], double(uint64_t(Rank()) * n + i));
  EXPECT_EQ(b.read_requests - a.read_requests, 1u) << "rank " << Rank();
  EXPECT_EQ(b.read_bytes - a.read_bytes, n * 8) << "rank " << Rank();
  EXPECT_LE(b.opens - a.opens, 1u) << "rank " << Rank();
  // The whole array, every block, from the broadcast descriptor.
  std::vector<double> all(n * uint64_t(Size()));
  ASSERT_TRUE(r->GetArray("b", {0}, {all.size()}, all.data()).ok());
  for (uint64_t i = 0; i < all.size(); i++) ASSERT_EQ(all[i], double(i));
}

}  // namespace
}  // namespace cairn
CAIRN_MPI_TEST_MAIN
