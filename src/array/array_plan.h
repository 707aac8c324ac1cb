// Read planning for global arrays: the part of one block that a box needs,
// as contiguous byte runs of the block object (row-major runs along the
// trailing dimensions, whole trailing extents merged into one run), grouped
// into read requests: two runs share one request when they fall in the
// same checksum chunk (read whole anyway), or when what joining them adds
// (the whole chunks strictly between theirs; without chunks, the gap) is at
// most the gap limit and at most a quarter of the bytes the two runs want,
// so that joining never reads more than 1.5 times what the runs want.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "cairn/status.h"

namespace cairn {

// `len` bytes at offset `src` of the block object go to offset `dst` of the
// caller's buffer.
struct ByteRun {
  uint64_t src = 0, dst = 0, len = 0;
};

// Calls fn for each run of block (bs, bc) ∩ box (qs, qc) (row-major, nd
// dimensions, elements of `esize` bytes), in increasing src order; the
// destination is the box, dense and row-major. Stops at the first error fn
// returns. The intersection must not be empty.
Status ForEachRun(size_t nd, const uint64_t* bs, const uint64_t* bc, const uint64_t* qs,
                  const uint64_t* qc, uint64_t esize, const std::function<Status(const ByteRun&)>& fn);

// Groups runs (given in increasing src order) into requests and executes
// them: a request is [lo, hi) of the block object and the runs it carries.
class RunGrouper {
 public:
  using Exec = std::function<Status(uint64_t lo, uint64_t hi, const std::vector<ByteRun>& runs)>;
  // chunk_ends: the end offsets of the object's checksum chunks, in value
  // order (empty: no chunk rule; it must outlive the grouper);
  // max_request: no request grows past this by a gap.
  RunGrouper(const std::vector<uint64_t>* chunk_ends, uint64_t gap_limit, uint64_t max_request, Exec exec)
      : ends_(*chunk_ends), gap_(gap_limit), max_(max_request), exec_(std::move(exec)) {}
  Status Add(const ByteRun& r);
  Status Finish();  // executes the last request
  uint64_t requests() const { return requests_; }

 private:
  size_t ChunkOf(uint64_t off) const;
  const std::vector<uint64_t>& ends_;
  uint64_t gap_, max_;
  Exec exec_;
  std::vector<ByteRun> runs_;
  uint64_t lo_ = 0, hi_ = 0;
  uint64_t requests_ = 0;
};

}  // namespace cairn
