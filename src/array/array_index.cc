// Overlap queries on an array's blocks (array_index.h).
#include "array/array_index.h"

#include <algorithm>

namespace cairn {

ArrayIndex::ArrayIndex(const ArrayMeta* m) : m_(m) {
  if (m->regular || m->nblocks == 0) return;
  size_t nd = m->ndims();
  // The dimension along which blocks are most spread out: a slab
  // decomposition along dimension 2 sorts on dimension 2.
  size_t best = 0;
  uint64_t best_distinct = 0;
  std::vector<uint64_t> v(m->nblocks);
  for (size_t d = 0; d < nd; d++) {
    for (uint64_t i = 0; i < m->nblocks; i++) v[i] = m->starts[i * nd + d];
    std::sort(v.begin(), v.end());
    uint64_t distinct = uint64_t(std::unique(v.begin(), v.end()) - v.begin());
    if (distinct > best_distinct) {
      best_distinct = distinct;
      best = d;
    }
  }
  dim_ = best;
  order_.resize(m->nblocks);
  for (uint64_t i = 0; i < m->nblocks; i++) order_[i] = i;
  std::sort(order_.begin(), order_.end(), [&](uint64_t a, uint64_t b) {
    return m->starts[a * nd + dim_] < m->starts[b * nd + dim_];
  });
  leaves_ = 1;
  while (leaves_ < m->nblocks) leaves_ *= 2;
  tree_.assign(2 * leaves_, 0);  // padding leaves end at 0: never visited
  for (uint64_t i = 0; i < m->nblocks; i++) {
    uint64_t b = order_[i];
    tree_[leaves_ + i] = m->starts[b * nd + dim_] + m->counts[b * nd + dim_];
  }
  for (size_t n = leaves_; n-- > 1;) tree_[n] = std::max(tree_[2 * n], tree_[2 * n + 1]);
}

void ArrayIndex::Visit(size_t node, size_t nl, size_t nr, size_t hi, uint64_t lo,
                       const std::function<void(size_t)>& at) const {
  // [nl, nr) are the leaves under `node`.
  if (nl >= hi || tree_[node] <= lo) return;
  if (nr - nl == 1) {
    at(nl);
    return;
  }
  size_t mid = nl + (nr - nl) / 2;
  Visit(2 * node, nl, mid, hi, lo, at);
  Visit(2 * node + 1, mid, nr, hi, lo, at);
}

uint64_t ArrayIndex::ForEachOverlap(const uint64_t* qs, const uint64_t* qc,
                                    const std::function<void(uint64_t)>& fn) const {
  const ArrayMeta& m = *m_;
  size_t nd = m.ndims();
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
  if (order_.empty()) return 0;
  uint64_t qlo = qs[dim_], qhi = qs[dim_] + qc[dim_];
  // Blocks starting before the box's end in dim_ ...
  auto it = std::partition_point(order_.begin(), order_.end(), [&](uint64_t b) {
    return m.starts[b * nd + dim_] < qhi;
  });
  // ... of which the tree yields those whose end passes the box's start.
  Visit(1, 0, leaves_, size_t(it - order_.begin()), qlo, [&](size_t i) {
    uint64_t b = order_[i];
    examined++;
    bool hit = true;
    for (size_t d = 0; d < nd && hit; d++) {
      uint64_t s = m.starts[b * nd + d], c = m.counts[b * nd + d];
      hit = c > 0 && s < qs[d] + qc[d] && qs[d] < s + c;
    }
    if (hit) fn(b);
  });
  return examined;
}

}  // namespace cairn
