// Finding the blocks of an array that overlap a box, without testing every
// block: arithmetic on a regular grid; for irregular blocks a bounding-box
// tree (a k-d tree of the blocks, each node holding the box that bounds
// its blocks), so that a query descends only into nodes whose box meets
// the query's. Blocks never overlap, so the nodes a query visits are the
// ancestors of the blocks it touches and their siblings plus the nodes
// whose bounds reach the box without a block doing so: about linear in the
// blocks touched, not in the blocks of the array or of a slab of it.
#pragma once

#include <cstdint>
#include <functional>
#include <vector>

#include "array/array_meta.h"

namespace cairn {

class ArrayIndex {
 public:
  // Builds the index of `m` (which must outlive it): O(1) for a regular
  // grid; for B irregular blocks of d dimensions, O(B log B) time and
  // 8 + 16 d bytes per block.
  explicit ArrayIndex(const ArrayMeta* m);
  // Calls fn(block) for every block that overlaps [start, start + count)
  // (row-major, m's dimensions), in no particular order. Returns how many
  // blocks were examined (tested against the box); *nodes (if given) gets
  // the tree nodes tested (0 on a grid). Both for tests of the index's cost.
  uint64_t ForEachOverlap(const uint64_t* start, const uint64_t* count,
                          const std::function<void(uint64_t block)>& fn, uint64_t* nodes = nullptr) const;
  uint64_t MemoryBytes() const { return 8 * (leaf_.size() + bounds_.size()); }

 private:
  const ArrayMeta* m_;
  // Irregular: a complete binary tree in heap order over B = nblocks
  // leaves: node 1 is the root, node n's children are 2n and 2n + 1, nodes
  // 1..B-1 are inner nodes and node B + i is the leaf of block leaf_[i].
  std::vector<uint64_t> leaf_;
  // Inner node n bounds its blocks by [lo, hi) in every dimension:
  // bounds_[(n * 2 + 0) * d + k] = lo, bounds_[(n * 2 + 1) * d + k] = hi.
  std::vector<uint64_t> bounds_;
  void Build(uint64_t node, uint64_t* blocks, uint64_t n);
};

}  // namespace cairn
