// The grain planner of array reads (src/array/array_grains.h): which grains
// go straight to the caller's buffer, which are scattered there in pieces,
// which bounce through the side buffer, which gaps are read, and how the
// plan is cut into windows. Pure planning: no files.
#include "array/array_grains.h"

#include <gtest/gtest.h>

namespace cairn {
namespace {

// `n` grains of `len` bytes, stored back to back from file offset `base`.
std::vector<ChunkRef> Grains(size_t n, uint64_t len = 4096, uint64_t base = 1 << 20) {
  std::vector<ChunkRef> v(n);
  for (size_t i = 0; i < n; i++) {
    v[i].subfile = 3;
    v[i].offset = base + i * len;
    v[i].length = v[i].raw_length = len;
    v[i].checksum = 1000 + i;
  }
  return v;
}

struct Plan {
  std::vector<GrainWindow> windows;
  GrainPlanner p;
  explicit Plan(uint64_t gap = 64 << 10, uint64_t wbytes = kWindowBytes, uint64_t wpieces = kWindowPieces,
                uint64_t wside = kWindowSideBytes)
      : p(gap, [this](const GrainWindow& w) { windows.push_back(w); return Status::OK(); }, wbytes, wpieces,
          wside) {}
  // Plans one block of `chunks` read through `runs`.
  void Block(const std::vector<ChunkRef>& chunks, const std::vector<ByteRun>& runs, uint64_t label = 7) {
    ASSERT_TRUE(p.BeginBlock(&chunks, label).ok());
    for (const ByteRun& r : runs) ASSERT_TRUE(p.AddRun(r).ok());
    ASSERT_TRUE(p.EndBlock().ok());
  }
  const GrainWindow& Only() {
    EXPECT_TRUE(p.Finish().ok());
    EXPECT_EQ(windows.size(), 1u);
    return windows.at(0);
  }
};

TEST(ArrayGrains, OneLongRunGoesStraightToTheCaller) {
  auto g = Grains(8);
  Plan pl;
  pl.Block(g, {ByteRun{0, 100, 8 * 4096}});
  const GrainWindow& w = pl.Only();
  ASSERT_EQ(w.grains.size(), 8u);
  for (size_t i = 0; i < 8; i++) {
    const PlannedGrain& x = w.grains[i];
    EXPECT_EQ(x.kind, PlannedGrain::kDirect) << i;
    EXPECT_EQ(x.offset, g[i].offset);
    EXPECT_EQ(x.checksum, g[i].checksum);
    EXPECT_EQ(x.block, 7u);
    ASSERT_EQ(x.pieces, 1u);
    EXPECT_EQ(w.pieces[x.first_piece].dst, 100 + i * 4096);
  }
  EXPECT_EQ(w.side_bytes, 0u);
  EXPECT_TRUE(w.gaps.empty());
  EXPECT_EQ(w.grain_bytes, 8u * 4096);
}

TEST(ArrayGrains, WholeGrainsInPiecesScatterSmallOrCutOnesBounce) {
  auto g = Grains(4);
  // Rows of 1 KiB of the block land 2 KiB apart in the box: grains 0 and 1
  // are wanted whole, in 4 pieces each (scattered straight).
  std::vector<ByteRun> rows;
  for (uint64_t i = 0; i < 8; i++) rows.push_back(ByteRun{i * 1024, i * 2048, 1024});
  // Rows of 256 bytes, whole grain 2: too small to scatter.
  for (uint64_t i = 0; i < 16; i++) rows.push_back(ByteRun{8192 + i * 256, 20000 + i * 512, 256});
  // Grain 3: half of it.
  rows.push_back(ByteRun{12288 + 1000, 50000, 2048});
  Plan pl;
  pl.Block(g, rows);
  const GrainWindow& w = pl.Only();
  ASSERT_EQ(w.grains.size(), 4u);
  EXPECT_EQ(w.grains[0].kind, PlannedGrain::kScatter);
  EXPECT_EQ(w.grains[1].kind, PlannedGrain::kScatter);
  EXPECT_EQ(w.grains[2].kind, PlannedGrain::kSide);
  EXPECT_EQ(w.grains[3].kind, PlannedGrain::kSide);
  ASSERT_EQ(w.grains[1].pieces, 4u);
  const GrainPiece& p = w.pieces[w.grains[1].first_piece + 2];
  EXPECT_EQ(p.at, 2048u);
  EXPECT_EQ(p.dst, 6u * 2048);
  EXPECT_EQ(p.len, 1024u);
  EXPECT_EQ(w.grains[2].pieces, 16u);
  EXPECT_EQ(w.grains[2].side_at, 0u);
  EXPECT_EQ(w.grains[3].side_at, 4096u);
  EXPECT_EQ(w.side_bytes, 2u * 4096);
  const GrainPiece& q = w.pieces[w.grains[3].first_piece];
  EXPECT_EQ(q.at, 1000u);
  EXPECT_EQ(q.len, 2048u);
}

TEST(ArrayGrains, RunsTouchingOnBothSidesAreOnePiece) {
  auto g = Grains(2);
  Plan pl;
  pl.Block(g, {ByteRun{0, 0, 1000}, ByteRun{1000, 1000, 3096}, ByteRun{4096, 9000, 4096}});
  const GrainWindow& w = pl.Only();
  ASSERT_EQ(w.grains.size(), 2u);
  EXPECT_EQ(w.grains[0].kind, PlannedGrain::kDirect);
  EXPECT_EQ(w.grains[0].pieces, 1u);
  EXPECT_EQ(w.grains[1].kind, PlannedGrain::kDirect);
}

TEST(ArrayGrains, GapsAreReadOnlyWhenSmallBesideTheRuns) {
  auto g = Grains(64);
  // One grain between runs of 1 grain: a gap as long as the runs: not read.
  {
    Plan pl;
    pl.Block(g, {ByteRun{0, 0, 4096}, ByteRun{8192, 4096, 4096}});
    const GrainWindow& w = pl.Only();
    EXPECT_EQ(w.grains.size(), 2u);
    EXPECT_TRUE(w.gaps.empty());
  }
  // One grain between runs of 4 grains each: a quarter of 32 KiB is 8 KiB:
  // the 4 KiB gap is read, so the two runs become one request.
  {
    Plan pl;
    pl.Block(g, {ByteRun{0, 0, 4 * 4096}, ByteRun{5 * 4096, 4 * 4096, 4 * 4096}});
    const GrainWindow& w = pl.Only();
    EXPECT_EQ(w.grains.size(), 8u);
    ASSERT_EQ(w.gaps.size(), 1u);
    EXPECT_EQ(w.gaps[0].offset, g[4].offset);
    EXPECT_EQ(w.gaps[0].length, 4096u);
    EXPECT_EQ(w.max_gap, 4096u);
  }
  // The same with a gap limit below the gap: not read.
  {
    Plan pl(4095);
    pl.Block(g, {ByteRun{0, 0, 4 * 4096}, ByteRun{5 * 4096, 4 * 4096, 4 * 4096}});
    EXPECT_TRUE(pl.Only().gaps.empty());
  }
  // Two neighbouring gap grains are one gap range.
  {
    Plan pl;
    pl.Block(g, {ByteRun{0, 0, 8 * 4096}, ByteRun{10 * 4096, 8 * 4096, 8 * 4096}});
    const GrainWindow& w = pl.Only();
    ASSERT_EQ(w.gaps.size(), 1u);
    EXPECT_EQ(w.gaps[0].length, 2u * 4096);
  }
}

TEST(ArrayGrains, WindowsBoundWhatIsHeld) {
  // 3 blocks of 10 grains read whole, windows of 4 grains: 8 windows, none
  // holding more than 4 grains; every grain planned once, in order.
  std::vector<std::vector<ChunkRef>> blocks;
  for (int b = 0; b < 3; b++) blocks.push_back(Grains(10, 4096, uint64_t(b) << 30));
  Plan pl(64 << 10, 4 * 4096);
  for (int b = 0; b < 3; b++) pl.Block(blocks[b], {ByteRun{0, uint64_t(b) * 40960, 40960}}, uint64_t(b));
  ASSERT_TRUE(pl.p.Finish().ok());
  ASSERT_EQ(pl.windows.size(), 8u);
  EXPECT_EQ(pl.p.windows(), 8u);
  uint64_t n = 0;
  for (const GrainWindow& w : pl.windows) {
    EXPECT_LE(w.grains.size(), 4u);
    for (const PlannedGrain& x : w.grains) {
      EXPECT_EQ(x.block, n / 10);
      EXPECT_EQ(x.offset, blocks[n / 10][n % 10].offset);
      n++;
    }
  }
  EXPECT_EQ(n, 30u);
  // Only the window handed off by Finish is the box's last (its streams
  // end there; ShortStreams::more_follow).
  for (size_t i = 0; i < pl.windows.size(); i++) EXPECT_EQ(pl.windows[i].last, i + 1 == pl.windows.size()) << i;
  // A bound on pieces: rows of 64 bytes (64 pieces per grain), windows of
  // at most 100 pieces: a window is handed off after the grain that
  // reaches the bound.
  auto g = Grains(4);
  std::vector<ByteRun> rows;
  for (uint64_t i = 0; i < 256; i++) rows.push_back(ByteRun{i * 64, i * 128, 64});
  Plan small(64 << 10, kWindowBytes, 100);
  small.Block(g, rows);
  ASSERT_TRUE(small.p.Finish().ok());
  ASSERT_EQ(small.windows.size(), 2u);
  EXPECT_EQ(small.windows[0].grains.size(), 2u);
  EXPECT_EQ(small.windows[0].pieces.size(), 128u);
  EXPECT_EQ(small.windows[0].side_bytes, 2u * 4096);
  EXPECT_EQ(small.windows[1].grains[0].side_at, 0u);  // the side buffer starts over
}

TEST(ArrayGrains, CutGrainsCloseAWindowAtTheSideBound) {
  // Half of each of 10 grains: every grain bounces; with a side bound of 3
  // grains, windows of 3, 3, 3 and 1 grains, each side buffer from 0.
  auto g = Grains(10);
  std::vector<ByteRun> runs;
  for (uint64_t i = 0; i < 10; i++) runs.push_back(ByteRun{i * 4096, i * 2048, 2048});
  Plan pl(0, kWindowBytes, kWindowPieces, 3 * 4096);
  pl.Block(g, runs);
  ASSERT_TRUE(pl.p.Finish().ok());
  ASSERT_EQ(pl.windows.size(), 4u);
  for (size_t i = 0; i < 4; i++) {
    const GrainWindow& w = pl.windows[i];
    EXPECT_EQ(w.grains.size(), i < 3 ? 3u : 1u);
    EXPECT_EQ(w.side_bytes, w.grains.size() * 4096);
    EXPECT_EQ(w.grains[0].side_at, 0u);
  }
  // Whole grains read straight do not count against it.
  Plan direct(0, kWindowBytes, kWindowPieces, 3 * 4096);
  direct.Block(g, {ByteRun{0, 0, 10 * 4096}});
  EXPECT_EQ(direct.Only().grains.size(), 10u);
}

TEST(ArrayGrains, NoGapIsReadAcrossAWindowEdge) {
  auto g = Grains(64);
  // Runs of 4 grains one grain apart would join (previous test), but the
  // window is handed off after the first run's grains.
  Plan pl(64 << 10, 4 * 4096);
  pl.Block(g, {ByteRun{0, 0, 4 * 4096}, ByteRun{5 * 4096, 4 * 4096, 4 * 4096}});
  ASSERT_TRUE(pl.p.Finish().ok());
  ASSERT_EQ(pl.windows.size(), 2u);
  for (const GrainWindow& w : pl.windows) EXPECT_TRUE(w.gaps.empty());
}

TEST(ArrayGrains, EncodedChunksAndRunsPastTheObjectAreCorruption) {
  auto g = Grains(2);
  g[1].codec = 1;
  Plan pl;
  EXPECT_TRUE(pl.p.BeginBlock(&g, 0).IsCorruption());
  auto h = Grains(2);
  ASSERT_TRUE(pl.p.BeginBlock(&h, 0).ok());
  EXPECT_TRUE(pl.p.AddRun(ByteRun{8000, 0, 500}).IsCorruption());
}

}  // namespace
}  // namespace cairn
