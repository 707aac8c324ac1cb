// Grain planning for global-array reads: the checksum grains (chunks) of
// the block objects a box needs, and where each grain's bytes go.
//
// A GetArray call feeds the runs of every block it touches (array_plan.h,
// ForEachRun) to one GrainPlanner; the planner maps each run onto the
// block object's grains and collects them in a window:
//   - kDirect: the grain is one piece landing contiguously in the caller's
//     buffer: it is read straight there and verified in place;
//   - kScatter: all of the grain is wanted but lands in several pieces of at
//     least kMinScatterPiece bytes: each piece is read straight into the
//     caller's buffer and the grain is verified over its pieces
//     (StreamingChecksum) once all have arrived;
//   - kSide: the box wants part of the grain (or pieces too small to
//     scatter): the grain goes into a side buffer, is verified there, and
//     its pieces are copied out.
// Between two runs of a block, the whole grains nobody wants are read (into
// a scratch buffer, as "gaps") when they cost at most the gap limit and at
// most a quarter of the bytes the two runs want, so gaps add at most half
// the bytes wanted.
//
// When a window holds kWindowBytes of grains and gaps (or kWindowPieces
// pieces, or kWindowSideBytes of cut grains) it is handed to the flush
// callback, which reads all of it with one ReadCoalesced (ReadGrainWindow),
// and the planner starts a new one. So the memory of a call is bounded
// whatever the box (side buffer < 1 MiB plus a grain), and the planning
// cost is linear in the runs and grains touched.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "array/array_plan.h"
#include "cairn/status.h"
#include "format/index_format.h"
#include "io/coalescing_reader.h"

namespace cairn {

constexpr uint64_t kWindowBytes = 32ull << 20;
constexpr uint64_t kWindowPieces = 1ull << 18;
// A window also closes when its cut grains fill this much side buffer: the
// buffer is then reused window after window while in the CPU cache, instead
// of faulting in fresh pages for every cut grain of a large box.
constexpr uint64_t kWindowSideBytes = 1ull << 20;
constexpr uint64_t kMinScatterPiece = 512;

// `len` bytes at offset `at` of a grain go to offset `dst` of the caller's buffer.
struct GrainPiece {
  uint64_t at = 0, dst = 0, len = 0;
};

struct PlannedGrain {
  enum Kind : uint8_t { kDirect, kScatter, kSide };
  Kind kind = kSide;
  uint32_t subfile = 0;
  uint64_t offset = 0;    // in the data file
  uint64_t length = 0;    // stored bytes (the whole grain)
  uint64_t checksum = 0;  // XXH3-64 of them
  uint64_t block = 0;     // the caller's label of the block (for errors)
  uint64_t first_piece = 0, pieces = 0;  // GrainWindow::pieces[first_piece, +pieces)
  uint64_t side_at = 0;   // kSide: offset in the side buffer
};

// Whole grains read only to join requests; their bytes are dropped.
struct GapRange {
  uint32_t subfile = 0;
  uint64_t offset = 0, length = 0;
};

struct GrainWindow {
  std::vector<PlannedGrain> grains;
  std::vector<GrainPiece> pieces;
  std::vector<GapRange> gaps;
  uint64_t grain_bytes = 0, gap_bytes = 0, side_bytes = 0, max_gap = 0;
  // Handed off by Finish (the box's last window), not on a bound: the
  // streams that reach its end end there.
  bool last = false;
  void Clear();
};

class GrainPlanner {
 public:
  using Flush = std::function<Status(const GrainWindow&)>;
  // gap_limit: ArrayReadOptions::gap_limit; window_bytes, window_pieces,
  // window_side: when a window is handed to `flush` (tests make them small).
  GrainPlanner(uint64_t gap_limit, Flush flush, uint64_t window_bytes = kWindowBytes,
               uint64_t window_pieces = kWindowPieces, uint64_t window_side = kWindowSideBytes)
      : gap_(gap_limit),
        window_bytes_(window_bytes),
        window_pieces_(window_pieces),
        window_side_(window_side),
        flush_(std::move(flush)) {}

  // Starts a block: its object's chunks in value order (they must outlive
  // the block's runs) and a label for errors. Chunks must be stored as is
  // (Codec::kNone, length == raw_length): Corruption otherwise.
  Status BeginBlock(const std::vector<ChunkRef>* chunks, uint64_t label);
  // The same with the chunks' end offsets already computed by GrainEnds
  // (kept with a decoded block, so a block read again skips the pass over
  // all of its chunks); `ends` must outlive the block's runs too.
  Status BeginBlock(const std::vector<ChunkRef>* chunks, const std::vector<uint64_t>* ends, uint64_t label);
  // A run of the current block; runs come in increasing src order and lie
  // inside the object.
  Status AddRun(const ByteRun& r);
  // Ends the block (its last grain joins the window).
  Status EndBlock();
  // Hands the last window to `flush` (if it holds anything).
  Status Finish();

  uint64_t windows() const { return windows_; }

 private:
  Status CloseGrain();  // the open grain joins the window (which may then be handed off)
  Status HandOff();     // the window goes to `flush` (if it holds anything)
  void AddGaps(size_t from, size_t to);  // grains [from, to) of the block as gaps
  size_t GrainOf(uint64_t off);          // the grain holding offset `off`, searched from cursor_

  uint64_t gap_, window_bytes_, window_pieces_, window_side_;
  Flush flush_;
  GrainWindow w_;
  uint64_t windows_ = 0;
  // The current block.
  const std::vector<ChunkRef>* chunks_ = nullptr;
  const std::vector<uint64_t>* ends_ = nullptr;  // end offset of each grain in the object
  std::vector<uint64_t> own_ends_;               // ends_ when BeginBlock computed them
  size_t cursor_ = 0;           // no run of the block starts before grain cursor_
  uint64_t label_ = 0;
  // The last run of the block, and the grain open for pieces.
  bool have_prev_ = false;
  uint64_t prev_len_ = 0;
  size_t open_ = SIZE_MAX;  // grain index; SIZE_MAX: none
  std::vector<GrainPiece> open_pieces_;
};

// The end offset in the object of each of `chunks` (in value order), for
// GrainPlanner::BeginBlock. Corruption unless every chunk is stored as is
// (Codec::kNone, length == raw_length).
Status GrainEnds(const std::vector<ChunkRef>& chunks, std::vector<uint64_t>* ends);

// Reads a window with one ReadCoalesced: every grain verified against its
// checksum, every piece in place in `dst` (the box's buffer). `side` is
// the caller's pooled side buffer (grown, never zero-filled). A grain that
// fails its checksum yields `mismatch(grain)`; the first such status is
// returned after the reads (pieces of failed grains are not copied; the
// caller's buffer is then unspecified).
// `streams` (may be null): the short-stream advice state, kept by the
// caller from one window of a box to the next (coalescing_reader.h).
// `direct_bytes`: ReadPlanLimits::direct_bytes (CAIRN_DIRECT_READ_BYTES).
Status ReadGrainWindow(const GrainWindow& w, char* dst, const FileResolver& files,
                       std::unique_ptr<char[]>* side, uint64_t* side_size,
                       const std::function<Status(const PlannedGrain&)>& mismatch, ReadCounts* counts,
                       ShortStreams* streams = nullptr, uint64_t direct_bytes = 0);

}  // namespace cairn
