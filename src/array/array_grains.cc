// Grain planning and the windowed, verified read of a box (array_grains.h).
#include "array/array_grains.h"

#include <algorithm>
#include <cstring>

#include "format/checksum.h"

namespace cairn {

void GrainWindow::Clear() {
  grains.clear();
  pieces.clear();
  gaps.clear();
  grain_bytes = gap_bytes = side_bytes = max_gap = 0;
  last = false;
}

Status GrainEnds(const std::vector<ChunkRef>& chunks, std::vector<uint64_t>* ends) {
  ends->clear();
  ends->reserve(chunks.size());
  uint64_t pos = 0;
  for (const ChunkRef& c : chunks) {
    if (c.codec != uint8_t(Codec::kNone) || c.length != c.raw_length)
      return Status::Corruption("a chunk of codec " + std::to_string(c.codec) + " (" + std::to_string(c.length) +
                                " bytes stored for " + std::to_string(c.raw_length) + ")");
    ends->push_back(pos += c.raw_length);
  }
  return Status::OK();
}

Status GrainPlanner::BeginBlock(const std::vector<ChunkRef>* chunks, uint64_t label) {
  Status s = GrainEnds(*chunks, &own_ends_);
  if (!s.ok()) return s;
  return BeginBlock(chunks, &own_ends_, label);
}

Status GrainPlanner::BeginBlock(const std::vector<ChunkRef>* chunks, const std::vector<uint64_t>* ends,
                                uint64_t label) {
  chunks_ = chunks;
  ends_ = ends;
  label_ = label;
  have_prev_ = false;
  open_ = SIZE_MAX;
  cursor_ = 0;
  return Status::OK();
}

size_t GrainPlanner::GrainOf(uint64_t off) {
  cursor_ = size_t(std::upper_bound(ends_->begin() + ptrdiff_t(cursor_), ends_->end(), off) - ends_->begin());
  return cursor_;
}

Status GrainPlanner::AddRun(const ByteRun& r) {
  if (r.len == 0) return Status::OK();
  if (ends_->empty() || r.src + r.len > ends_->back())
    return Status::Corruption("a run past the end of the block object");
  size_t k = GrainOf(r.src);
  if (open_ != SIZE_MAX && k != open_) {
    size_t last = open_;
    Status s = CloseGrain();
    if (!s.ok()) return s;
    // Bridge the whole grains strictly between when they are cheap beside
    // the two runs (and the window was not just handed off).
    if (have_prev_ && k > last + 1) {
      uint64_t cost = (*ends_)[k - 1] - (*ends_)[last];
      if (cost <= std::min(gap_, (prev_len_ + r.len) / 4)) AddGaps(last + 1, k);
    }
  }
  uint64_t pos = r.src, end = r.src + r.len, dst = r.dst;
  for (; pos < end; k++) {
    if (k != open_) {
      Status s = CloseGrain();
      if (!s.ok()) return s;
      open_ = k;
    }
    uint64_t gbeg = k == 0 ? 0 : (*ends_)[k - 1];
    uint64_t to = std::min(end, (*ends_)[k]);
    GrainPiece p{pos - gbeg, dst, to - pos};
    if (!open_pieces_.empty()) {
      GrainPiece& b = open_pieces_.back();
      if (b.at + b.len == p.at && b.dst + b.len == p.dst) {  // touching on both sides
        b.len += p.len;
        p.len = 0;
      }
    }
    if (p.len) open_pieces_.push_back(p);
    dst += to - pos;
    pos = to;
  }
  cursor_ = open_;
  prev_len_ = r.len;
  have_prev_ = true;
  return Status::OK();
}

Status GrainPlanner::CloseGrain() {
  if (open_ == SIZE_MAX) return Status::OK();
  const ChunkRef& c = (*chunks_)[open_];
  uint64_t wanted = 0;
  bool scatterable = true;
  for (const GrainPiece& p : open_pieces_) {
    wanted += p.len;
    scatterable = scatterable && p.len >= kMinScatterPiece;
  }
  PlannedGrain g;
  g.subfile = c.subfile;
  g.offset = c.offset;
  g.length = c.length;
  g.checksum = c.checksum;
  g.block = label_;
  g.first_piece = w_.pieces.size();
  g.pieces = open_pieces_.size();
  if (wanted == c.length && open_pieces_.size() == 1)
    g.kind = PlannedGrain::kDirect;
  else if (wanted == c.length && scatterable)
    g.kind = PlannedGrain::kScatter;
  else
    g.kind = PlannedGrain::kSide;
  w_.pieces.insert(w_.pieces.end(), open_pieces_.begin(), open_pieces_.end());
  open_pieces_.clear();
  open_ = SIZE_MAX;
  if (g.kind == PlannedGrain::kSide) {
    g.side_at = w_.side_bytes;
    w_.side_bytes += g.length;
  }
  w_.grain_bytes += g.length;
  w_.grains.push_back(g);
  if (w_.grain_bytes + w_.gap_bytes < window_bytes_ && w_.pieces.size() < window_pieces_ &&
      w_.side_bytes < window_side_)
    return Status::OK();
  have_prev_ = false;  // no gap joins a grain of the window handed off
  return HandOff();
}

void GrainPlanner::AddGaps(size_t from, size_t to) {
  for (size_t k = from; k < to; k++) {
    const ChunkRef& c = (*chunks_)[k];
    if (!w_.gaps.empty() && w_.gaps.back().subfile == c.subfile &&
        w_.gaps.back().offset + w_.gaps.back().length == c.offset)
      w_.gaps.back().length += c.length;
    else
      w_.gaps.push_back(GapRange{c.subfile, c.offset, c.length});
    w_.gap_bytes += c.length;
    w_.max_gap = std::max(w_.max_gap, w_.gaps.back().length);
  }
}

Status GrainPlanner::EndBlock() {
  Status s = CloseGrain();
  chunks_ = nullptr;
  have_prev_ = false;
  return s;
}

Status GrainPlanner::Finish() {
  w_.last = true;
  return HandOff();
}

Status GrainPlanner::HandOff() {
  if (w_.grains.empty() && w_.gaps.empty()) return Status::OK();
  windows_++;
  Status s = flush_(w_);
  w_.Clear();
  return s;
}

Status ReadGrainWindow(const GrainWindow& w, char* dst, const FileResolver& files,
                       std::unique_ptr<char[]>* side, uint64_t* side_size,
                       const std::function<Status(const PlannedGrain&)>& mismatch, ReadCounts* counts,
                       ShortStreams* streams, uint64_t direct_bytes) {
  uint64_t need = w.side_bytes + w.max_gap;  // gaps all land in the same scratch bytes
  if (*side_size < need) {
    side->reset(new char[size_t(need)]);  // not zero-filled
    *side_size = need;
  }
  char* sb = side->get();
  char* scratch = sb + w.side_bytes;
  constexpr size_t kGap = SIZE_MAX;
  std::vector<ReadRange> ranges;
  ranges.reserve(w.grains.size() + w.gaps.size());
  std::vector<uint32_t> pending(w.grains.size(), 0);  // kScatter: pieces not arrived yet
  for (size_t i = 0; i < w.grains.size(); i++) {
    const PlannedGrain& g = w.grains[i];
    const GrainPiece* p = w.pieces.data() + g.first_piece;
    switch (g.kind) {
      case PlannedGrain::kDirect:
        ranges.push_back(ReadRange{g.subfile, g.offset, g.length, dst + p->dst, i});
        break;
      case PlannedGrain::kScatter:
        pending[i] = uint32_t(g.pieces);
        for (uint64_t j = 0; j < g.pieces; j++)
          ranges.push_back(ReadRange{g.subfile, g.offset + p[j].at, p[j].len, dst + p[j].dst, i});
        break;
      case PlannedGrain::kSide:
        ranges.push_back(ReadRange{g.subfile, g.offset, g.length, sb + g.side_at, i});
        break;
    }
  }
  for (const GapRange& x : w.gaps) ranges.push_back(ReadRange{x.subfile, x.offset, x.length, scratch, kGap});
  Status bad;
  // A scattered grain's checksum runs over its pieces as they arrive, in
  // file order (as ReadCoalesced reads them), from `bytes`, still in the
  // cache: a large read's destination was written past it. A piece out of
  // that order makes the grain be summed from the destination at its end.
  StreamingChecksum sum;
  constexpr size_t kNone = SIZE_MAX;
  size_t summing = kNone;  // the grain `sum` holds the first pieces of
  auto done = [&](const ReadRange& r, const char* bytes) {
    if (r.tag == kGap || !bad.ok()) return;
    const PlannedGrain& g = w.grains[r.tag];
    const GrainPiece* p = w.pieces.data() + g.first_piece;
    bool ok;
    switch (g.kind) {
      case PlannedGrain::kDirect:
        ok = Checksum(bytes, g.length) == g.checksum;
        break;
      case PlannedGrain::kScatter: {
        uint64_t k = g.pieces - pending[r.tag];  // this piece's index, if in order
        if (r.offset == g.offset + p[k].at && r.length == p[k].len && (k == 0 || summing == r.tag)) {
          if (k == 0) sum.Reset();
          summing = r.tag;
          sum.Update(bytes, r.length);
        } else {
          summing = kNone;
        }
        if (--pending[r.tag] > 0) return;
        if (summing != r.tag) {
          sum.Reset();
          for (uint64_t j = 0; j < g.pieces; j++) sum.Update(dst + p[j].dst, p[j].len);
        }
        summing = kNone;
        ok = sum.Digest() == g.checksum;
        break;
      }
      default:
        ok = Checksum(bytes, g.length) == g.checksum;
        if (ok)
          for (uint64_t j = 0; j < g.pieces; j++) std::memcpy(dst + p[j].dst, bytes + p[j].at, p[j].len);
        break;
    }
    if (!ok) bad = mismatch(g);
  };
  // Only touching ranges join: the planner already chose the gaps worth
  // reading. No WILLNEED of the blocks ahead (measured slower here); the
  // short streams are advised instead (`streams`, kept by the caller across
  // windows; bench/arrays/HISTORY.md, "Results: advice for short streams").
  ReadPlanLimits limits;
  limits.gap_limit = 0;
  limits.max_block = UINT64_MAX;
  limits.max_amplification = 1.0;
  limits.readahead = false;
  limits.streams = streams;
  limits.direct_bytes = direct_bytes;
  if (streams) streams->more_follow = !w.last;
  Status s = ReadCoalesced(std::move(ranges), limits, files, done, counts);
  if (!s.ok()) return s;
  return bad;
}

}  // namespace cairn
