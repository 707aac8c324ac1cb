// Overlap queries on an array's blocks (array_index.h).
#include "array/array_index.h"

#include <algorithm>

namespace cairn {

namespace {

// How many leaves the subtree of `node` holds in the complete heap-ordered
// tree whose leaves are nodes b..2b-1.
uint64_t LeavesUnder(uint64_t node, uint64_t b) {
  uint64_t count = 0;
  for (uint64_t lo = node, hi = node + 1; lo < 2 * b; lo *= 2, hi *= 2) {
    uint64_t x = std::max(lo, b), y = std::min(hi, 2 * b);
    if (x < y) count += y - x;
  }
  return count;
}

// Twice the centre of block b in dimension k (exact: 65 bits).
unsigned __int128 Centre2(const ArrayMeta& m, uint64_t b, size_t k) {
  size_t nd = m.ndims();
  return 2 * (unsigned __int128)m.starts[b * nd + k] + m.counts[b * nd + k];
}

}  // namespace

ArrayIndex::ArrayIndex(const ArrayMeta* m) : m_(m) {
  if (m->regular || m->nblocks == 0) return;
  uint64_t b = m->nblocks;
  size_t nd = m->ndims();
  leaf_.resize(b);
  bounds_.assign(2 * nd * b, 0);
  std::vector<uint64_t> blocks(b);
  for (uint64_t i = 0; i < b; i++) blocks[i] = i;
  Build(1, blocks.data(), b);
  // Bounds bottom-up: a leaf's are its block's.
  auto lo = [&](uint64_t n, size_t k) {
    return n >= b ? m->starts[leaf_[n - b] * nd + k] : bounds_[2 * n * nd + k];
  };
  auto hi = [&](uint64_t n, size_t k) {
    return n >= b ? m->starts[leaf_[n - b] * nd + k] + m->counts[leaf_[n - b] * nd + k]
                  : bounds_[(2 * n + 1) * nd + k];
  };
  for (uint64_t n = b; n-- > 1;)
    for (size_t k = 0; k < nd; k++) {
      bounds_[2 * n * nd + k] = std::min(lo(2 * n, k), lo(2 * n + 1, k));
      bounds_[(2 * n + 1) * nd + k] = std::max(hi(2 * n, k), hi(2 * n + 1, k));
    }
}

// Places the n blocks of blocks[] under `node`: split along the dimension
// in which their centres spread most, the lower centres to the left child
// (as many as its subtree has leaves). The split only shapes the tree: the
// bounds are computed from the blocks, so any split finds every overlap.
void ArrayIndex::Build(uint64_t node, uint64_t* blocks, uint64_t n) {
  const ArrayMeta& m = *m_;
  uint64_t b = m.nblocks;
  if (node >= b) {  // a leaf: n == 1
    leaf_[node - b] = blocks[0];
    return;
  }
  size_t nd = m.ndims();
  size_t dim = 0;
  unsigned __int128 widest = 0;
  for (size_t k = 0; k < nd; k++) {
    unsigned __int128 lo = ~(unsigned __int128)0, hi = 0;
    for (uint64_t i = 0; i < n; i++) {
      unsigned __int128 c = Centre2(m, blocks[i], k);
      lo = std::min(lo, c);
      hi = std::max(hi, c);
    }
    if (hi - lo > widest || k == 0) {
      widest = hi - lo;
      dim = k;
    }
  }
  uint64_t left = LeavesUnder(2 * node, b);
  std::nth_element(blocks, blocks + left, blocks + n, [&](uint64_t x, uint64_t y) {
    unsigned __int128 cx = Centre2(m, x, dim), cy = Centre2(m, y, dim);
    return cx < cy || (cx == cy && x < y);
  });
  Build(2 * node, blocks, left);
  Build(2 * node + 1, blocks + left, n - left);
}

uint64_t ArrayIndex::ForEachOverlap(const uint64_t* qs, const uint64_t* qc,
                                    const std::function<void(uint64_t)>& fn, uint64_t* nodes) const {
  const ArrayMeta& m = *m_;
  size_t nd = m.ndims();
  if (nodes) *nodes = 0;
  for (size_t d = 0; d < nd; d++)
    if (qc[d] == 0) return 0;
  uint64_t examined = 0;
  if (m.regular) {
    // Grid cells lo[d]..hi[d] in each dimension; visit their product.
    uint64_t lo[kMaxArrayDims], hi[kMaxArrayDims], at[kMaxArrayDims];
    for (size_t d = 0; d < nd; d++) {
      lo[d] = qs[d] / m.block_shape[d];
      hi[d] = std::min(m.grid[d] - 1, (qs[d] + qc[d] - 1) / m.block_shape[d]);
      if (lo[d] > hi[d]) return 0;
      at[d] = lo[d];
    }
    while (true) {
      uint64_t idx = 0;
      for (size_t d = 0; d < nd; d++) idx = idx * m.grid[d] + at[d];
      examined++;
      fn(idx);
      size_t d = nd;
      while (d > 0) {
        d--;
        if (++at[d] <= hi[d]) break;
        at[d] = lo[d];
        if (d == 0) return examined;
      }
    }
  }
  if (leaf_.empty()) return 0;
  uint64_t b = m.nblocks, tested = 0;
  // Depth-first; the tree is complete, so its depth is log2(B) + 1.
  uint64_t stack[2 * 64 + 2];
  size_t top = 0;
  stack[top++] = 1;
  while (top > 0) {
    uint64_t n = stack[--top];
    if (n >= b) {
      uint64_t blk = leaf_[n - b];
      examined++;
      bool hit = true;
      for (size_t d = 0; d < nd && hit; d++) {
        uint64_t s = m.starts[blk * nd + d], c = m.counts[blk * nd + d];
        hit = c > 0 && s < qs[d] + qc[d] && qs[d] < s + c;
      }
      if (hit) fn(blk);
      continue;
    }
    tested++;
    bool meets = true;
    for (size_t d = 0; d < nd && meets; d++)
      meets = bounds_[2 * n * nd + d] < qs[d] + qc[d] && qs[d] < bounds_[(2 * n + 1) * nd + d];
    if (!meets) continue;
    stack[top++] = 2 * n + 1;
    stack[top++] = 2 * n;
  }
  if (nodes) *nodes = tested;
  return examined;
}

}  // namespace cairn
