// Sparse reads coalesced into I/O blocks (the libsonata lesson): requested
// ranges are sorted by file and offset, and neighbours are merged into one
// block when the gap between them is at most gap_limit AND the block would
// still read at most max_amplification times the bytes asked for in it (so
// a MultiGet never reads more than that much data nobody asked for). Blocks
// are at most max_block bytes. Far-apart ranges stay separate requests.
//
// Blocks are read straight into the destinations (preadv; the bytes of a
// gap go to a small scratch buffer), in requests of about
// ReadPlanLimits::request_bytes (1 MiB, whose bytes are still in the CPU
// cache when they are verified; 16 MiB for key-value reads, which gain more
// from fewer, larger requests), and the caller's `done` callback runs for
// each range right after the request that brought it (checksums).
// The kernel is told (posix_fadvise WILLNEED) about the next readahead
// window of blocks, so the device works while the caller verifies.
//
// A destination that sits 1 to 31 bytes past its bytes' place in the file,
// counted within a page ((dest - offset) mod 4096 in [1, 31]; 32-63 are as
// fast as any other distance, measured), is read
// through a bounce buffer and copied: the kernel's copy into such a
// destination costs three times the CPU of any other placement on this
// machine (AMD EPYC, `rep movsb`), and a buffer from malloc (page + 16)
// meets it for every page-aligned value (bench/HISTORY.md, "Reads into
// buffers from malloc"). The bounce is one 1 MiB buffer per reading thread,
// kept for the thread's life. A large read (kStreamingCopyBytes) copies out
// of it with non-temporal stores, and hands `done` the bytes in the bounce,
// still in the cache, to verify (bench/HISTORY.md, "Copying out of the
// bounce past the cache").
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <vector>

#include <sys/uio.h>

#include "cairn/status.h"
#include "io/file.h"

namespace cairn {

struct ReadRange {
  uint32_t subfile = 0;
  uint64_t offset = 0;
  uint64_t length = 0;
  char* dest = nullptr;  // where the bytes go
  size_t tag = 0;        // the caller's own number for the range (for `done`)
};

// One planned I/O block covering ranges [first, last] of the sorted list.
struct ReadBlock {
  uint32_t subfile;
  uint64_t offset;
  uint64_t length;  // bytes read
  size_t first, last;
  uint64_t wanted;  // bytes of the block some range asked for
};

struct ReadPlanLimits {
  uint64_t gap_limit = 4ull << 20;
  uint64_t max_block = 64ull << 20;
  // A block reads at most this many times the bytes asked for in it
  // (>= 1; a single range is never cut).
  double max_amplification = 2.0;
  // Requests of a block are cut at range boundaries near this size (a range
  // larger than it is one request of its own). Key-value reads use
  // kValueRequestBytes, array reads kRequestBytes (bench/HISTORY.md, "Where
  // issue 11 stands", sixth session: the request size measured both ways).
  uint64_t request_bytes = 1ull << 20;
  // Tell the kernel (WILLNEED) about the blocks ahead of the one being read
  // (see the top of this file). Array reads turn it off: their windows
  // measured faster without it (bench/arrays/HISTORY.md).
  bool readahead = true;
  // Short streams (array reads; instead of `readahead`): if given, before
  // each request the kernel is told (WILLNEED) about every stream (a run
  // of touching ranges in one file) of at most `stream_bytes` that starts
  // within `ahead_bytes` of ranges past the request, so that short streams,
  // and those of several files, are in flight at once. Longer streams are
  // left to the kernel's own readahead, which follows a long sequential
  // stream better than advice does (bench/arrays/HISTORY.md). The state
  // carries from one call to the next, so a stream continued by the next
  // call is not a new one; and a stream that reaches the end of a call
  // that `more_follow` may go on in the next call, so it counts as long.
  struct ShortStreams* streams = nullptr;
  // Requests of at least this many bytes whose bytes are not in the page
  // cache are read past it (File::PReadVDirect, O_DIRECT) when the file,
  // the offsets and the destinations allow; 0: never (doc/design.md
  // "Direct reads"). Requests through the bounce buffer are never direct.
  uint64_t direct_bytes = 0;
};

struct ShortStreams {
  uint64_t ahead_bytes = 16ull << 20;
  // Streams up to this long are advised. Below the default extent (16
  // MiB): a block's run of a whole extent, or a reader's 16 MiB quarter of
  // a block, is left to the kernel's readahead (8 MiB here), which read it
  // 1.4-1.8x faster than advice in 2 MiB pieces (bench/arrays/HISTORY.md,
  // "Short streams up to 8 MiB"); a 4 MiB slab is still advised.
  uint64_t stream_bytes = 8ull << 20;
  // A range after a hole of at most this many bytes, and at most as long
  // as the run of touching ranges before it, goes on with that run's
  // stream, whose length counts the hole: a miss of the kernel's cache
  // reads ahead several times its own size, through such a hole into the
  // next run, and follows on as a sequential stream. Runs of a quarter of
  // a block read by one of four ranks (64 KiB, 64 KiB apart) or of four
  // blocks read by one, left to the kernel's readahead, read 1.1x and
  // 2.2x faster than advised run by run; runs farther apart (a slab across
  // the fastest axis: 16 KiB every 256 KiB) read 3-9x slower if not
  // advised, and stay short streams (bench/arrays/HISTORY.md, "Joining
  // runs across small holes"). Only the ranges are advised, never the
  // holes. 0: only touching ranges make a stream.
  uint64_t join_hole = 1ull << 20;
  // Set by the caller before each call: more calls may continue its last
  // stream.
  bool more_follow = false;
  // The stream of the last range looked at.
  bool open = false;
  bool advising = false;
  uint32_t subfile = 0;
  uint64_t end = 0;      // its end in the file so far
  uint64_t run = 0;      // the touching bytes that end there
  uint64_t advised = 0;  // WILLNEED calls made
};

// The default ReadPlanLimits::request_bytes: what array reads use.
constexpr uint64_t kRequestBytes = 1ull << 20;
// The request size of key-value reads (Get, GetRange, MultiGet): a W1-16M
// full read was 0.83-0.97 of POSIX's one pread per 16 MiB object in 1 MiB
// requests and 0.97-1.03 in 16 MiB ones (same rounds); array reads were
// slower with 8 MiB requests and keep kRequestBytes.
constexpr uint64_t kValueRequestBytes = 16ull << 20;
// A ReadCoalesced call wanting at least this many bytes copies its bounced
// ranges out with non-temporal stores (streaming_copy.h): a quarter of
// this machine's 32 MiB L3, beyond which the caller's bytes would not stay
// in the cache anyway.
constexpr uint64_t kStreamingCopyBytes = 8ull << 20;
// How far ahead of the reading position the kernel is told to read.
constexpr uint64_t kReadaheadWindow = 16ull << 20;

// Reads [offset, offset + n) of `f` into dest as File::PRead does (or, if
// `once`, File::PReadOnce: the pages are dropped from the cache behind the
// read), through the bounce buffer in pieces when ShortCopyDistance(dest,
// offset). For one large buffer read whole (an index table).
Status ReadWhole(File* f, uint64_t offset, char* dest, uint64_t n, bool once);

// Sorts `ranges` in place and groups them into blocks.
std::vector<ReadBlock> PlanReadBlocks(std::vector<ReadRange>* ranges, const ReadPlanLimits& limits);
// The same, into *blocks (cleared first; its memory is reused).
void PlanReadBlocks(std::vector<ReadRange>* ranges, const ReadPlanLimits& limits,
                    std::vector<ReadBlock>* blocks);

// Resolves a data file id to an open file.
using FileResolver = std::function<Status(uint32_t subfile, File** file)>;
// Called once per range, as soon as its bytes are in place at range.dest.
// `bytes` holds the same bytes, where reading them is cheapest: range.dest,
// or the bounce buffer they were copied out of, which is still in the CPU
// cache (a large read's copy to range.dest bypasses it). Valid only
// during the call.
using RangeDone = std::function<void(const ReadRange& range, const char* bytes)>;

// What ReadCoalesced asked of the file system: read calls (pread/preadv)
// and the bytes they returned, gaps included.
struct ReadCounts {
  uint64_t requests = 0;
  uint64_t bytes = 0;
  uint64_t bounced = 0;  // bytes of ranges read through the bounce buffer
  uint64_t streamed = 0;  // of those, copied out past the CPU cache
  uint64_t direct = 0;    // bytes of requests read past the page cache
};

// True if the kernel's copy of bytes at file `offset` to `dest` is the
// slow one (see the top of this file): the range goes through the bounce.
bool ShortCopyDistance(const char* dest, uint64_t offset);

// The plan's and the requests' bookkeeping, kept by a caller that reads
// often (a store's MultiGets) so that a small read allocates nothing: a
// MultiGet of one 4 KiB value made ten allocations, as much CPU as its
// pread (bench/HISTORY.md, "Small values"). Only small vectors live here;
// gap scratch and bounce buffers are still made per call, and only when
// needed. One user at a time.
struct ReadWorkspace {
  std::vector<ReadBlock> blocks;
  std::vector<struct iovec> iov;
};

// Plans and performs the reads (see the top of this file). A block whose
// ranges overlap goes through one bounce buffer instead and is copied out.
// Neighbouring ranges whose destinations also touch are one iovec. On an
// I/O error, ranges not yet `done` may hold partial bytes. `counts`, if
// given, is increased by the calls made.
Status ReadCoalesced(std::vector<ReadRange> ranges, const ReadPlanLimits& limits,
                     const FileResolver& files, const RangeDone& done = nullptr,
                     ReadCounts* counts = nullptr);
// The same, sorting *ranges in place and planning in `ws` (reused).
Status ReadCoalesced(std::vector<ReadRange>* ranges, const ReadPlanLimits& limits,
                     const FileResolver& files, const RangeDone& done, ReadCounts* counts,
                     ReadWorkspace* ws);

}  // namespace cairn
