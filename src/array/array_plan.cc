// Byte runs of a block, and their grouping into requests (array_plan.h).
#include "array/array_plan.h"

#include <algorithm>

#include "cairn/array.h"

namespace cairn {

Status ForEachRun(size_t nd, const uint64_t* bs, const uint64_t* bc, const uint64_t* qs,
                  const uint64_t* qc, uint64_t esize, const std::function<Status(const ByteRun&)>& fn) {
  uint64_t is[kMaxArrayDims], ic[kMaxArrayDims], bstride[kMaxArrayDims], qstride[kMaxArrayDims];
  for (size_t d = 0; d < nd; d++) {
    is[d] = std::max(bs[d], qs[d]);
    ic[d] = std::min(bs[d] + bc[d], qs[d] + qc[d]) - is[d];
  }
  uint64_t b = esize, q = esize;
  for (size_t d = nd; d-- > 0;) {
    bstride[d] = b;
    qstride[d] = q;
    b *= bc[d];
    q *= qc[d];
  }
  // Trailing dimensions the intersection covers whole in both the block and
  // the box are contiguous on both sides: one run spans them.
  size_t j = nd - 1;
  while (j > 0 && ic[j] == bc[j] && ic[j] == qc[j]) j--;
  uint64_t run = ic[j] * bstride[j];
  uint64_t at[kMaxArrayDims];
  for (size_t d = 0; d < j; d++) at[d] = 0;
  while (true) {
    ByteRun r;
    r.len = run;
    for (size_t d = 0; d <= j; d++) {
      uint64_t g = is[d] + (d < j ? at[d] : 0);
      r.src += (g - bs[d]) * bstride[d];
      r.dst += (g - qs[d]) * qstride[d];
    }
    for (size_t d = j + 1; d < nd; d++) {  // whole in both: offsets from is
      r.src += (is[d] - bs[d]) * bstride[d];
      r.dst += (is[d] - qs[d]) * qstride[d];
    }
    Status s = fn(r);
    if (!s.ok()) return s;
    size_t d = j;
    while (true) {
      if (d == 0) return Status::OK();
      d--;
      if (++at[d] < ic[d]) break;
      at[d] = 0;
    }
  }
}

size_t RunGrouper::ChunkOf(uint64_t off) const {
  return size_t(std::upper_bound(ends_.begin(), ends_.end(), off) - ends_.begin());
}

Status RunGrouper::Add(const ByteRun& r) {
  if (!runs_.empty()) {
    // What joining costs: the bytes read between the request's end and the
    // run that would not be read otherwise. Chunks are read whole, so with
    // chunks that is the chunks strictly between the one holding the
    // request's last byte and the one holding the run's first (0 when they
    // are the same chunk or neighbours: the chunk holding the request's last
    // byte is read whole, so a run starting in it costs nothing more).
    uint64_t cost = r.src - hi_;
    bool same_chunk = false;
    if (!ends_.empty()) {
      size_t a = ChunkOf(hi_ - 1), b = ChunkOf(r.src);
      same_chunk = a == b;
      uint64_t b_start = b == 0 ? 0 : ends_[b - 1];
      cost = b_start > ends_[a] ? b_start - ends_[a] : 0;
    }
    // A gap is read only when it is small beside what the two runs it joins
    // want (at most a quarter of their bytes), so the gaps of a request add
    // at most half the bytes its runs want, and never more than the limit.
    uint64_t joined = runs_.back().len + r.len;
    bool near = cost <= std::min(gap_, joined / 4) && r.src + r.len - lo_ <= max_;
    if (near || same_chunk) {
      runs_.push_back(r);
      hi_ = r.src + r.len;
      return Status::OK();
    }
    Status s = Finish();
    if (!s.ok()) return s;
  }
  runs_.push_back(r);
  lo_ = r.src;
  hi_ = r.src + r.len;
  return Status::OK();
}

Status RunGrouper::Finish() {
  if (runs_.empty()) return Status::OK();
  requests_++;
  Status s = exec_(lo_, hi_, runs_);
  runs_.clear();
  return s;
}

}  // namespace cairn
