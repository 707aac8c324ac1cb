// Byte runs of a block (array_plan.h).
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

}  // namespace cairn
