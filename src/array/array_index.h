// Finding the blocks of an array that overlap a box, without testing every
// block: arithmetic on a regular grid; for irregular blocks, the blocks
// sorted by their start in one dimension (the one with the most distinct
// starts) with a running maximum of their ends, so that a query visits only
// the blocks whose range in that dimension can reach the box.
#pragma once

#include <cstdint>
#include <functional>
#include <vector>

#include "array/array_meta.h"

namespace cairn {

class ArrayIndex {
 public:
  // Builds the index of `m` (which must outlive it): O(1) for a regular
  // grid, O(B log B) time and 16 B bytes for B irregular blocks.
  explicit ArrayIndex(const ArrayMeta* m);
  // Calls fn(block) for every block that overlaps [start, start + count)
  // (row-major, m's dimensions), in no particular order. Returns how many
  // blocks were examined (for tests of the index's cost).
  uint64_t ForEachOverlap(const uint64_t* start, const uint64_t* count,
                          const std::function<void(uint64_t block)>& fn) const;
  uint64_t MemoryBytes() const { return 16 * order_.size(); }

 private:
  const ArrayMeta* m_;
  size_t dim_ = 0;                // irregular: the sorting dimension
  std::vector<uint64_t> order_;   // irregular: block numbers by start in dim_
  std::vector<uint64_t> maxend_;  // maxend_[i]: max end in dim_ over order_[0..i]
};

}  // namespace cairn
