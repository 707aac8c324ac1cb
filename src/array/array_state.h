// Per-handle state of global arrays: this rank's puts and deletes since the
// last commit, and the decoded descriptors of the revision in view.
#pragma once

#include <map>
#include <memory>
#include <set>
#include <string>
#include <unordered_map>
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

// A chunked block object of the revision in view, decoded once: its
// chunks and their end offsets (array_grains.h GrainEnds).
struct CachedBlock {
  std::vector<ChunkRef> chunks;
  std::vector<uint64_t> ends;
  uint64_t MemoryBytes() const { return sizeof(*this) + 64 + sizeof(ChunkRef) * chunks.size() + 8 * ends.size(); }  // + the map's node
};

// A descriptor of the revision in view, decoded once, with its index, and
// the blocks GetArray decoded (so that reading a part of a block again
// does not decode all of its chunks again; bounded by kBlockCacheBytes,
// emptied when full). A handle is used by one thread at a time.
struct CachedArray {
  ArrayMeta meta;
  TagList tags;
  std::unique_ptr<ArrayIndex> index;
  mutable std::unordered_map<uint64_t, std::shared_ptr<const CachedBlock>> blocks;
  mutable uint64_t block_bytes = 0;
  uint64_t MemoryBytes() const { return meta.MemoryBytes() + index->MemoryBytes() + block_bytes; }
};
constexpr uint64_t kBlockCacheBytes = 64ull << 20;  // per array

struct ArrayState {
  std::map<std::string, PendingArray> puts;
  std::set<std::string> deletes;
  // Per array, one past the highest block seq this rank put into its
  // namespace's pending changes (those of a commit that failed after its
  // array step included): keys at or above a new round's count are stale.
  std::map<std::string, uint32_t> overlay_seqs;
  // The arrays the last commit's array step put (by any rank) and deleted:
  // while that commit is in flight (Rep::inflight), DeleteArray finds the
  // first and not the second, as the revision it makes will hold them.
  std::set<std::string, std::less<>> committing_puts, committing_deletes;
  // This rank's failure to take in or apply rank 0's reply to a commit's
  // array step that said it succeeded: the others go on to the commit's
  // next steps, where this rank fails the commit (TakeArrayStepFailure).
  Status lost_reply;
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
