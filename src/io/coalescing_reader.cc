#include "io/coalescing_reader.h"

#include <algorithm>
#include <cstring>
#include <string>

namespace cairn {

std::vector<ReadBlock> PlanReadBlocks(std::vector<ReadRange>* ranges, uint64_t gap_limit,
                                      uint64_t max_block) {
  auto& r = *ranges;
  std::sort(r.begin(), r.end(), [](const ReadRange& a, const ReadRange& b) {
    return a.subfile != b.subfile ? a.subfile < b.subfile : a.offset < b.offset;
  });
  std::vector<ReadBlock> blocks;
  for (size_t i = 0; i < r.size(); i++) {
    if (r[i].length == 0) continue;
    if (!blocks.empty()) {
      ReadBlock& b = blocks.back();
      uint64_t b_end = b.offset + b.length;
      uint64_t r_end = r[i].offset + r[i].length;
      bool same_file = b.subfile == r[i].subfile;
      // Overlapping ranges have gap 0.
      uint64_t gap = r[i].offset > b_end ? r[i].offset - b_end : 0;
      uint64_t new_len = std::max(b_end, r_end) - b.offset;
      if (same_file && gap <= gap_limit && new_len <= max_block) {
        b.length = new_len;
        b.last = i;
        continue;
      }
    }
    blocks.push_back(ReadBlock{r[i].subfile, r[i].offset, r[i].length, i, i});
  }
  return blocks;
}

Status ReadCoalesced(std::vector<ReadRange> ranges, uint64_t gap_limit, uint64_t max_block,
                     const FileResolver& files) {
  std::vector<ReadBlock> blocks = PlanReadBlocks(&ranges, gap_limit, max_block);
  std::string bounce;
  for (const ReadBlock& b : blocks) {
    File* f = nullptr;
    Status s = files(b.subfile, &f);
    if (!s.ok()) return s;
    // One range, or ranges that lie back to back both in the file and in
    // memory (the chunks of one value): read straight into place.
    bool direct = true;
    for (size_t i = b.first; i < b.last && direct; i++) {
      const ReadRange& x = ranges[i];
      const ReadRange& y = ranges[i + 1];
      direct = y.offset == x.offset + x.length && y.dest == x.dest + x.length;
    }
    if (direct) {
      s = f->PRead(b.offset, ranges[b.first].dest, b.length);
      if (!s.ok()) return s;
      continue;
    }
    bounce.resize(b.length);
    s = f->PRead(b.offset, bounce.data(), b.length);
    if (!s.ok()) return s;
    for (size_t i = b.first; i <= b.last; i++) {
      const ReadRange& rr = ranges[i];
      if (rr.length == 0) continue;
      std::memcpy(rr.dest, bounce.data() + (rr.offset - b.offset), rr.length);
    }
  }
  return Status::OK();
}

}  // namespace cairn
