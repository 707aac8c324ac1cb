// Read planning for global arrays: the part of one block that a box needs,
// as contiguous byte runs of the block object (row-major runs along the
// trailing dimensions, whole trailing extents merged into one run). Their
// mapping onto checksum grains, and the grouping into requests, is
// array_grains.h.
#pragma once

#include <cstdint>
#include <functional>

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

}  // namespace cairn
