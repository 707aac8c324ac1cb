#include "io/coalescing_reader.h"

#include "io/streaming_copy.h"

#include <limits.h>
#include <sys/uio.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <string>

namespace cairn {

std::vector<ReadBlock> PlanReadBlocks(std::vector<ReadRange>* ranges, const ReadPlanLimits& limits) {
  std::vector<ReadBlock> blocks;
  PlanReadBlocks(ranges, limits, &blocks);
  return blocks;
}

void PlanReadBlocks(std::vector<ReadRange>* ranges, const ReadPlanLimits& limits,
                    std::vector<ReadBlock>* out) {
  auto& r = *ranges;
  auto before = [](const ReadRange& a, const ReadRange& b) {
    return a.subfile != b.subfile ? a.subfile < b.subfile : a.offset < b.offset;
  };
  if (!std::is_sorted(r.begin(), r.end(), before))  // planned reads often come in file order
    std::sort(r.begin(), r.end(), before);
  double amp = std::max(1.0, limits.max_amplification);
  std::vector<ReadBlock>& blocks = *out;
  blocks.clear();
  for (size_t i = 0; i < r.size(); i++) {
    if (r[i].length == 0) continue;
    uint64_t r_end = r[i].offset + r[i].length;
    if (!blocks.empty()) {
      ReadBlock& b = blocks.back();
      uint64_t b_end = b.offset + b.length;
      bool same_file = b.subfile == r[i].subfile;
      // Overlapping ranges have gap 0. Sorted by offset, the part of r
      // below b_end lies inside some earlier range: only what passes b_end
      // is newly wanted.
      uint64_t gap = r[i].offset > b_end ? r[i].offset - b_end : 0;
      uint64_t new_len = std::max(b_end, r_end) - b.offset;
      uint64_t new_wanted = b.wanted + (r_end > b_end ? r_end - std::max(r[i].offset, b_end) : 0);
      if (same_file && gap <= limits.gap_limit && new_len <= limits.max_block &&
          double(new_len) <= amp * double(new_wanted)) {
        b.length = new_len;
        b.wanted = new_wanted;
        b.last = i;
        continue;
      }
    }
    blocks.push_back(ReadBlock{r[i].subfile, r[i].offset, r[i].length, i, i, r[i].length});
  }
}

bool ShortCopyDistance(const char* dest, uint64_t offset) {
  uint64_t d = (uint64_t(reinterpret_cast<uintptr_t>(dest)) - offset) & 4095;
  return d != 0 && d < 32;
}

namespace {

// Before block k is read, the kernel is told (WILLNEED) about the blocks
// after it, up to kReadaheadWindow bytes ahead, so that scattered blocks
// are fetched in parallel rather than one request at a time. Not inside a
// block: its requests are sequential, which the kernel's own readahead
// follows (advising there too measured slower on this machine).
// With direct reads on (direct_bytes > 0), a block of at least
// direct_bytes is not advised: the advice would bring it into the cache,
// and a cached block is read through it, so only the first block of a
// MultiGet was read directly.
class Readahead {
 public:
  Readahead(const std::vector<ReadBlock>& blocks, const FileResolver& files, uint64_t direct_bytes)
      : blocks_(blocks), files_(files), direct_bytes_(direct_bytes) {}
  void Before(size_t k) {
    if (next_ <= k) {
      next_ = k + 1;
      ahead_ = 0;
    } else {
      ahead_ -= std::min(ahead_, blocks_[k].length);
    }
    while (next_ < blocks_.size() && ahead_ < kReadaheadWindow) {
      const ReadBlock& b = blocks_[next_++];
      ahead_ += b.length;
      if (direct_bytes_ != 0 && b.length >= direct_bytes_) continue;
      File* f = nullptr;
      if (files_(b.subfile, &f).ok()) f->WillNeed(b.offset, b.length);
    }
  }

 private:
  const std::vector<ReadBlock>& blocks_;
  const FileResolver& files_;
  const uint64_t direct_bytes_;
  size_t next_ = 0;     // the first block not advised yet
  uint64_t ahead_ = 0;  // bytes advised beyond the block being read
};

// ReadPlanLimits::streams: walks the ranges of the call (sorted, the gaps
// the caller planned included, as they are ranges too) up to ahead_bytes
// past the request being made, in steps of at least half of that, and
// advises every short stream it meets (see ShortStreams in
// coalescing_reader.h).
class StreamAdvisor {
 public:
  StreamAdvisor(const std::vector<ReadRange>& r, ShortStreams* st, const FileResolver& files)
      : r_(r), st_(st), files_(files) {}
  // Before the request of ranges [begin, end) of the sorted list.
  void Before(size_t begin, size_t end) {
    // Positions count the bytes of ranges in list order.
    for (; e_ < end && e_ < r_.size(); e_++) at_e_ += r_[e_].length;
    for (; k_ < begin && k_ < r_.size(); k_++) at_k_ += r_[k_].length;  // never what is behind
    if (at_k_ >= at_e_ + st_->ahead_bytes / 2) return;  // far enough ahead
    uint64_t target = at_e_ + st_->ahead_bytes;
    uint64_t from = 0, to = 0;  // the pending advice, in file st_->subfile
    auto flush = [&]() {
      File* f = nullptr;
      if (to > from && files_(st_->subfile, &f).ok())
        // In pieces: the kernel reads at most its readahead size (8 MiB
        // here) of one WILLNEED call and drops the rest.
        for (uint64_t at = from; at < to; at += kAdvicePiece) {
          f->WillNeed(at, std::min(kAdvicePiece, to - at));
          st_->advised++;
        }
      from = to = 0;
    };
    for (; k_ < r_.size() && at_k_ < target; k_++) {
      const ReadRange& x = r_[k_];
      at_k_ += x.length;
      if (x.length == 0) continue;
      const bool goes_on = st_->open && Continues(x.subfile, x.offset, st_->subfile, st_->end, st_->run);
      st_->run = goes_on && x.offset == st_->end ? st_->run + x.length : x.length;
      if (!goes_on) {  // a new stream
        flush();
        st_->open = true;
        st_->subfile = x.subfile;
        // Advised only if it is short: its touching ranges in this call.
        // A stream reaching the end of the call may go on in the next one.
        uint64_t len = 0, end = x.offset, run = 0;
        size_t j = k_;
        for (; j < r_.size() && len <= st_->stream_bytes; j++) {
          if (r_[j].length == 0) continue;
          if (!Continues(r_[j].subfile, r_[j].offset, x.subfile, end, run)) break;
          run = r_[j].offset == end ? run + r_[j].length : r_[j].length;
          len += r_[j].offset + r_[j].length - end;  // the hole too
          end = r_[j].offset + r_[j].length;
        }
        st_->advising = len <= st_->stream_bytes && !(j == r_.size() && st_->more_follow);
      }
      st_->end = x.offset + x.length;
      if (!st_->advising) continue;
      if (to != x.offset) {
        flush();
        from = x.offset;
      }
      to = x.offset + x.length;
    }
    flush();
  }

 private:
  // Whether a range at (subfile, offset) goes on with a stream that ends
  // at `end` of `stream_file` with a run of `run` touching bytes: it
  // touches, or follows a hole of at most join_hole bytes and at most
  // that run (ShortStreams::join_hole).
  bool Continues(uint32_t subfile, uint64_t offset, uint32_t stream_file, uint64_t end, uint64_t run) const {
    if (subfile != stream_file || offset < end) return false;
    uint64_t hole = offset - end;
    return hole == 0 || (hole <= st_->join_hole && hole <= run);
  }
  static constexpr uint64_t kAdvicePiece = 2ull << 20;
  const std::vector<ReadRange>& r_;
  ShortStreams* st_;
  const FileResolver& files_;
  size_t k_ = 0;       // the first range not looked at
  uint64_t at_k_ = 0;  // its position
  size_t e_ = 0;       // the end of the last request
  uint64_t at_e_ = 0;  // its position
};

// The bounce buffer (see the top of coalescing_reader.h): kBouncePiece
// bytes and a page of slack for placing the first range, one per thread.
constexpr uint64_t kBouncePiece = 1ull << 20;
constexpr uint64_t kPage = 4096;

// The thread's bounce, or nullptr (then the read goes straight into its
// destination, the slow copy) if there is no memory or the thread's
// destructors already freed it: a read from a later thread_local
// destructor, or on the main thread from a std::atexit handler or static
// destructor (exit() destroys thread_local objects first). t_bounce and
// t_gone have no destructor, so they stay usable until the thread is gone.
thread_local char* t_bounce = nullptr;
thread_local bool t_gone = false;

char* ThreadBounce() {
  struct Owner {
    ~Owner() {
      std::free(t_bounce);
      t_bounce = nullptr;
      t_gone = true;
    }
  };
  if (t_bounce == nullptr && !t_gone) {
    static thread_local Owner owner;  // made (and its destructor due) with the first buffer
    (void)owner;
    t_bounce = static_cast<char*>(std::aligned_alloc(kPage, kBouncePiece + kPage));
  }
  return t_bounce;
}

// Where, at or after `cursor`, a range of file offset `offset` goes in the
// bounce: half a page away from the file's page offset, so that neither the
// kernel's copy into the bounce nor the copy out of it (to a destination
// 1-31 bytes past the file's offset) has a short distance. Ranges that
// follow each other in the file follow each other in the bounce.
uint64_t BouncePlace(uint64_t cursor, uint64_t offset) {
  return cursor + ((offset + kPage / 2 - cursor) & (kPage - 1));
}

// Reads [offset, offset + n) into dest through `bounce`, a piece of
// kBouncePiece at a time, each copied out; if `once`, the pages read are
// dropped from the cache every 8 MiB, as File::PReadOnce does.
Status ReadInPieces(File* f, char* bounce, uint64_t offset, char* dest, uint64_t n, bool once, ReadCounts* counts) {
  constexpr uint64_t kDropPiece = 8ull << 20;  // as File::PReadOnce
  uint64_t dropped = 0;
  for (uint64_t at = 0; at < n;) {
    uint64_t len = std::min(kBouncePiece, n - at);
    char* p = bounce + BouncePlace(0, offset + at);
    Status s = f->PRead(offset + at, p, len);
    if (!s.ok()) return s;
    std::memcpy(dest + at, p, len);
    if (counts) {
      counts->requests++;
      counts->bytes += len;
      counts->bounced += len;
    }
    at += len;
    if (once && (at - dropped >= kDropPiece || at == n)) {
      f->DropCache(offset + dropped, at - dropped);
      dropped = at;
    }
  }
  return Status::OK();
}

// A range larger than the bounce, whose destination needs it: read alone,
// in pieces.
Status ReadThroughBounce(File* f, const ReadRange& x, ReadCounts* counts) {
  char* bounce = ThreadBounce();
  if (bounce == nullptr) return f->PRead(x.offset, x.dest, x.length);  // no memory: the slow copy
  return ReadInPieces(f, bounce, x.offset, x.dest, x.length, false, counts);
}

}  // namespace

Status ReadWhole(File* f, uint64_t offset, char* dest, uint64_t n, bool once) {
  char* bounce = ShortCopyDistance(dest, offset) ? ThreadBounce() : nullptr;
  if (bounce == nullptr) return once ? f->PReadOnce(offset, dest, n) : f->PRead(offset, dest, n);
  return ReadInPieces(f, bounce, offset, dest, n, once, nullptr);
}

namespace {

// Memory for the gaps of a request: page-aligned, so that a request with
// gaps can still be read past the page cache (O_DIRECT wants aligned
// memory for every entry). Grows, never shrinks; one per ReadCoalesced.
class GapScratch {
 public:
  ~GapScratch() { std::free(p_); }
  // At least n bytes; nullptr if there is no memory.
  char* Get(uint64_t n) {
    if (n > size_) {
      std::free(p_);
      size_ = (n + kPage - 1) & ~(kPage - 1);
      p_ = static_cast<char*>(std::aligned_alloc(kPage, size_));
      if (p_ == nullptr) size_ = 0;
    }
    return p_;
  }

 private:
  char* p_ = nullptr;
  uint64_t size_ = 0;
};

// Reads block k, whose ranges do not overlap, straight into their
// destinations (or through the bounce), in requests of about
// `request_bytes`; the gaps between ranges land in `scratch`. `done` runs
// after each request for the ranges it completed. If `stream`, bounced
// ranges are copied out past the CPU cache (streaming_copy.h).
Status ReadScattered(File* f, const ReadBlock& b, const std::vector<ReadRange>& r, uint64_t request_bytes,
                     uint64_t direct_bytes, bool stream, GapScratch* scratch, std::vector<struct iovec>* iov_buf,
                     const RangeDone& done, ReadCounts* counts, StreamAdvisor* advise) {
  std::vector<struct iovec>& iov = *iov_buf;
  char* bounce = nullptr;  // taken when first needed
  size_t i = b.first;
  while (i <= b.last) {
    if (r[i].length == 0) {  // `done` already ran for it
      i++;
      continue;
    }
    // One request: ranges [i, j) and the gaps between them.
    uint64_t start = r[i].offset, pos = start, max_gap = 0, bounced = 0;
    size_t j = i, entries = 0;
    bool alone = false;  // range i needs the bounce and is larger than it
    while (j <= b.last) {
      const ReadRange& x = r[j];
      if (x.length == 0) {
        j++;
        continue;
      }
      uint64_t gap = x.offset - pos;
      uint64_t grown = x.offset + x.length - start;
      size_t more = gap > 0 ? 2 : 1;
      uint64_t bounce_end = ShortCopyDistance(x.dest, x.offset) ? BouncePlace(bounced, x.offset) + x.length : bounced;
      bool bounce_full = bounce_end > kBouncePiece + kPage;
      if (j > i && (grown > request_bytes || entries + more > size_t(IOV_MAX) || bounce_full)) break;
      if (bounce_full) {  // j == i
        alone = true;
        j++;
        break;
      }
      entries += more;
      max_gap = std::max(max_gap, gap);
      pos = x.offset + x.length;
      bounced = bounce_end;
      j++;
    }
    if (advise) advise->Before(i, j);
    if (alone) {
      Status s = ReadThroughBounce(f, r[i], counts);
      if (!s.ok()) return s;
      if (done) done(r[i], r[i].dest);
      i = j;
      continue;
    }
    if (bounced > 0 && bounce == nullptr) bounce = ThreadBounce();
    // Every gap of the request lands in the same scratch bytes (sized
    // before any iovec points into it).
    char* gap_bytes = max_gap > 0 ? scratch->Get(max_gap) : nullptr;
    if (max_gap > 0 && gap_bytes == nullptr) return Status::IOError("no memory for a read's gap bytes");
    iov.clear();
    uint64_t cursor = 0;
    for (size_t m = i, at = start; m < j; m++) {
      const ReadRange& x = r[m];
      if (x.length == 0) continue;
      char* to = x.dest;
      if (bounce != nullptr && ShortCopyDistance(x.dest, x.offset)) {
        cursor = BouncePlace(cursor, x.offset);
        to = bounce + cursor;
        cursor += x.length;
      }
      if (x.offset > at) iov.push_back(iovec{gap_bytes, size_t(x.offset - at)});
      if (x.offset == at && !iov.empty() && static_cast<char*>(iov.back().iov_base) + iov.back().iov_len == to)
        iov.back().iov_len += size_t(x.length);  // touching in the file and in memory
      else
        iov.push_back(iovec{to, size_t(x.length)});
      at = x.offset + x.length;
    }
    // Past the page cache if it may be and can be (File::PReadVDirect);
    // else through it.
    Status s;
    if (direct_bytes > 0 && bounced == 0 && pos - start >= direct_bytes &&
        f->PReadVDirect(start, iov.data(), int(iov.size()), pos - start)) {
      if (counts) counts->direct += pos - start;
    } else {
      s = iov.size() == 1 ? f->PRead(start, iov[0].iov_base, pos - start)
                          : f->PReadV(start, iov.data(), int(iov.size()), pos - start);
    }
    if (!s.ok()) return s;
    // Where each range of [i, j) is now: in the bounce, or in place.
    auto for_each_range = [&](auto&& fn) {
      uint64_t at = 0;
      for (size_t m = i; m < j; m++) {
        const ReadRange& x = r[m];
        if (x.length == 0) continue;  // an empty one's `done` ran already (ReadCoalesced)
        if (bounce != nullptr && ShortCopyDistance(x.dest, x.offset)) {
          at = BouncePlace(at, x.offset);
          fn(x, bounce + at);
          at += x.length;
        } else {
          fn(x, x.dest);
        }
      }
    };
    if (bounce != nullptr && bounced > 0) {  // copied out before any `done`
      // Ranges touching both in the bounce and at their destinations are
      // one copy.
      char* to = nullptr;
      const char* from = nullptr;
      uint64_t len = 0;
      auto flush = [&] {
        if (len == 0) return;
        if (stream)
          StreamingCopy(to, from, len);
        else
          std::memcpy(to, from, len);
        if (counts) {
          counts->bounced += len;
          if (stream) counts->streamed += len;
        }
      };
      for_each_range([&](const ReadRange& x, const char* now) {
        if (now == x.dest) return;
        if (len > 0 && to + len == x.dest && from + len == now) {
          len += x.length;
          return;
        }
        flush();
        to = x.dest;
        from = now;
        len = x.length;
      });
      flush();
      if (stream) StreamingCopyFence();
    }
    if (counts) {
      counts->requests++;
      counts->bytes += pos - start;
    }
    if (done) for_each_range([&](const ReadRange& x, const char* now) { done(x, now); });
    i = j;
  }
  return Status::OK();
}

// A block whose ranges overlap: one read into a bounce buffer, copied out.
Status ReadBounced(File* f, const ReadBlock& b, const std::vector<ReadRange>& r,
                   std::string* bounce, const RangeDone& done, ReadCounts* counts) {
  // Placed half a page from the file's page offset (see BouncePlace).
  if (bounce->size() < b.length + kPage) bounce->resize(b.length + kPage);
  char* base = reinterpret_cast<char*>(BouncePlace(reinterpret_cast<uintptr_t>(bounce->data()), b.offset));
  Status s = f->PRead(b.offset, base, b.length);
  if (!s.ok()) return s;
  if (counts) {
    counts->requests++;
    counts->bytes += b.length;
  }
  for (size_t i = b.first; i <= b.last; i++) {
    const ReadRange& x = r[i];
    if (x.length == 0) continue;  // `done` already ran for it
    std::memcpy(x.dest, base + (x.offset - b.offset), x.length);
    if (done) done(x, base + (x.offset - b.offset));
  }
  return Status::OK();
}

}  // namespace

Status ReadCoalesced(std::vector<ReadRange> ranges, const ReadPlanLimits& limits,
                     const FileResolver& files, const RangeDone& done, ReadCounts* counts) {
  ReadWorkspace ws;
  return ReadCoalesced(&ranges, limits, files, done, counts, &ws);
}

Status ReadCoalesced(std::vector<ReadRange>* ranges_in, const ReadPlanLimits& limits,
                     const FileResolver& files, const RangeDone& done, ReadCounts* counts,
                     ReadWorkspace* ws) {
  std::vector<ReadRange>& ranges = *ranges_in;
  std::vector<ReadBlock>& blocks = ws->blocks;
  PlanReadBlocks(&ranges, limits, &blocks);
  if (done)  // empty ranges belong to no block
    for (const ReadRange& x : ranges)
      if (x.length == 0) done(x, x.dest);
  // A read far larger than the cache copies out of the bounce past it.
  uint64_t total = 0;
  for (const ReadBlock& b : blocks) total += b.wanted;
  const bool stream = total >= kStreamingCopyBytes;
  Readahead ra(blocks, files, limits.direct_bytes);
  StreamAdvisor advisor(ranges, limits.streams, files);
  GapScratch scratch;
  std::string bounce;
  for (size_t k = 0; k < blocks.size(); k++) {
    const ReadBlock& b = blocks[k];
    File* f = nullptr;
    Status s = files(b.subfile, &f);
    if (!s.ok()) return s;
    bool overlap = false;
    uint64_t end = 0;
    for (size_t i = b.first; i <= b.last && !overlap; i++) {
      if (ranges[i].length == 0) continue;
      overlap = i > b.first && ranges[i].offset < end;
      end = std::max(end, ranges[i].offset + ranges[i].length);
    }
    if (limits.readahead) ra.Before(k);
    s = overlap ? ReadBounced(f, b, ranges, &bounce, done, counts)
                : ReadScattered(f, b, ranges, std::max<uint64_t>(1, limits.request_bytes), limits.direct_bytes,
                                stream, &scratch,
                                &ws->iov,
                                done, counts,
                                limits.streams ? &advisor : nullptr);
    if (!s.ok()) return s;
  }
  return Status::OK();
}

}  // namespace cairn
