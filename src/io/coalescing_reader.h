// Sparse reads coalesced into I/O blocks (the libsonata lesson): requested
// ranges are sorted by file and offset, neighbours whose gap is at most
// gap_limit are merged into one block (up to max_block bytes), and each
// block is read with one request. Far-apart ranges stay separate requests.
#pragma once

#include <cstdint>
#include <functional>
#include <vector>

#include "cairn/status.h"
#include "io/file.h"

namespace cairn {

struct ReadRange {
  uint32_t subfile = 0;
  uint64_t offset = 0;
  uint64_t length = 0;
  char* dest = nullptr;  // where the bytes go
};

// One planned I/O request covering ranges [first, last] of the sorted list.
struct ReadBlock {
  uint32_t subfile;
  uint64_t offset;
  uint64_t length;
  size_t first, last;
};

// Sorts `ranges` in place and groups them into blocks.
std::vector<ReadBlock> PlanReadBlocks(std::vector<ReadRange>* ranges, uint64_t gap_limit,
                                      uint64_t max_block);

// Resolves a data file id to an open file.
using FileResolver = std::function<Status(uint32_t subfile, File** file)>;

// Plans and performs the reads. A block holding a single range is read
// straight into its destination; a merged block goes through one bounce
// buffer (at most max_block bytes) and is copied out.
Status ReadCoalesced(std::vector<ReadRange> ranges, uint64_t gap_limit, uint64_t max_block,
                     const FileResolver& files);

}  // namespace cairn
