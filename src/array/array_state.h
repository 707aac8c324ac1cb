// Per-handle state of global arrays: this rank's puts and deletes since the
// last commit, and the decoded descriptors of the revision in view.
#pragma once

#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "array/array_index.h"
#include "array/array_meta.h"
#include "cairn/store.h"
#include "store/store_rep.h"

namespace cairn {

// One block this rank put since the last commit (row-major).
struct PendingBlock {
  uint32_t seq = 0;
  std::vector<uint64_t> start, count;
  bool stats = false;
  uint64_t min = 0, max = 0;  // raw 8 bytes (array_meta.h)
};

// This rank's puts of one array since the last commit.
struct PendingArray {
  DType dtype = DType::kFloat64;
  std::vector<uint64_t> shape;
  TagList tags;
  uint32_t next_seq = 0;  // blocks are stored under seq 0, 1, ...
  std::vector<PendingBlock> blocks;
};

// A descriptor of the revision in view, decoded once, with its index.
struct CachedArray {
  ArrayMeta meta;
  TagList tags;
  std::unique_ptr<ArrayIndex> index;
};

struct ArrayState {
  std::map<std::string, PendingArray> puts;
  std::set<std::string> deletes;
  // Per array, one past the highest block seq this rank put into its
  // namespace's pending changes (those of a commit that failed after its
  // array step included): keys at or above a new round's count are stale.
  std::map<std::string, uint32_t> overlay_seqs;
  bool touched() const { return !puts.empty() || !deletes.empty(); }
  ArrayReadStats read_stats;  // Store::array_read_stats

  // Descriptors of revision `cache_revision`, by name.
  uint64_t cache_revision = UINT64_MAX;
  std::map<std::string, std::shared_ptr<const CachedArray>, std::less<>> cache;
};

}  // namespace cairn

namespace cairn {
// The array state of a handle (made on first use).
ArrayState* ArraysOf(Store::Rep* r);
// Checks an array name (1..4096 bytes).
Status CheckArrayName(std::string_view name);
}  // namespace cairn
