// Finding the blocks of an array that overlap a box, without testing every
// block: arithmetic on a regular grid; for irregular blocks, the blocks
// sorted by their start in one dimension (the one with the most distinct
// starts) under a tree of the maximum of their ends, so that a query visits
// only the blocks whose range in that dimension can reach the box (plus
// O(log B) tree nodes per block found): one long block does not make every
// block before it a candidate, as a running maximum would.
#pragma once

#include <cstdint>
#include <functional>
#include <vector>

#include "array/array_meta.h"

namespace cairn {

class ArrayIndex {
 public:
  // Builds the index of `m` (which must outlive it): O(1) for a regular
  // grid, O(B log B) time and at most 40 B bytes for B irregular blocks.
  explicit ArrayIndex(const ArrayMeta* m);
  // Calls fn(block) for every block that overlaps [start, start + count)
  // (row-major, m's dimensions), in no particular order. Returns how many
  // blocks were examined (for tests of the index's cost).
  uint64_t ForEachOverlap(const uint64_t* start, const uint64_t* count,
                          const std::function<void(uint64_t block)>& fn) const;
  uint64_t MemoryBytes() const { return 8 * (order_.size() + tree_.size()); }

 private:
  const ArrayMeta* m_;
  size_t dim_ = 0;                // irregular: the sorting dimension
  std::vector<uint64_t> order_;   // irregular: block numbers by start in dim_
  // irregular: a max tree over the ends in dim_ of order_: leaves at
  // leaves_ + i, node n holds the max of its children 2n and 2n + 1.
  size_t leaves_ = 0;
  std::vector<uint64_t> tree_;
  // Visits the blocks order_[i], i < hi, whose end in dim_ passes lo.
  void Visit(size_t node, size_t nl, size_t nr, size_t hi, uint64_t lo,
             const std::function<void(size_t i)>& at) const;
};

}  // namespace cairn
