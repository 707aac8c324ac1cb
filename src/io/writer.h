// The per-rank write path: a bounded buffer in front of the rank's extents
// of its data file. Appended bytes are packed back to back into the current
// run of extents; a full buffer leaves as one large sequential write, and
// data larger than the buffer bypasses it. New runs come from the
// allocator, which hands out extent-aligned ranges without locks.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "cairn/status.h"
#include "format/checksum.h"
#include "format/index_format.h"
#include "io/file.h"
#include "io/io_queue.h"

namespace cairn {

// Reserves `bytes` (a multiple of the extent size) of the data file and
// returns their start offset. Implemented with an atomic fetch-and-add.
using ExtentAllocator = std::function<Status(uint64_t bytes, uint64_t* offset)>;

class Writer {
 public:
  // With `queue` (may be null) the writer stages: every appended byte is
  // copied into a staging buffer from the queue's pool, and full buffers
  // are written by the queue's thread. Without it, full buffers (and data
  // larger than the buffer) are written before Append returns.
  Writer(File* file, uint32_t subfile, ExtentAllocator alloc, size_t buffer_size,
         uint64_t extent_size, uint64_t chunk_size, IoQueue* queue = nullptr);
  ~Writer();

  // Writes `data` to the rank's stream and appends the chunks that hold it
  // (each at most chunk_size, never crossing a run) to *chunks. With a
  // `grain` (0 < grain < chunk_size), chunks are instead cut at the file
  // offsets that are multiples of grain, so each is at most grain bytes and
  // lies in one aligned grain of the file (a page for grain 4096): a reader
  // verifies exactly the grains it reads. Checksums are computed once, here.
  Status Append(std::string_view data, std::vector<ChunkRef>* chunks, uint64_t grain = 0);
  // As Append, but with a queue the bytes are written from `data` itself by
  // the queue's thread: the caller keeps them unchanged until the queue has
  // written them (IoQueue::Wait). Without a queue, the same as Append.
  Status AppendZeroCopy(std::string_view data, std::vector<ChunkRef>* chunks, uint64_t grain = 0);
  // A chunk that successive AppendPiece calls extend (streams).
  struct OpenChunk {
    bool open = false;
    ChunkRef ref;               // offset and length so far
    StreamingChecksum checksum;
  };
  // Appends `data` to the open chunk *oc, which grows while it stays in one
  // run, under chunk_size, and right after the writer's previous bytes (a
  // put in between ends it); each chunk that ends is appended to *done.
  // One copy (into the write buffer), whatever the sizes of the pieces.
  Status AppendPiece(std::string_view data, OpenChunk* oc, std::vector<ChunkRef>* done);
  // Ends the open chunk (if any), appending it to *done.
  void CloseChunk(OpenChunk* oc, std::vector<ChunkRef>* done);
  // Writes `data` contiguously (one piece, in one run) and returns where.
  Status AppendContiguous(std::string_view data, uint64_t* offset);
  // The same for `n` bytes that arrive in pieces: ReserveContiguous finds
  // them room in one run and returns where they go; then exactly `n` bytes
  // follow through ContinueContiguous, with no other append between.
  Status ReserveContiguous(uint64_t n, uint64_t* offset);
  Status ContinueContiguous(std::string_view data) { return Emit(data.data(), data.size()); }
  // End of the bytes handed to the file so far in the current run (below
  // it nothing is buffered here; staging: they may still be queued).
  uint64_t handed_end() const { return buf_start_; }
  // Writes back the pages of [from, to) (handed to the file, to <=
  // handed_end()), waits for that writeback and drops the pages from the
  // page cache (File::WaitWriteback, File::DropCache; staging: behind the
  // queued writes, and an error shows at the queue's next report). For
  // bytes written once and not read back through the cache, such as a
  // large streamed index table: the next pages written reuse the dropped
  // ones instead of memory the process has not touched, whose first touch
  // costs several times the copy on a VM (bench/catalogue/README.md).
  // Waiting makes the drop certain on any device speed (dirty pages and
  // pages under writeback cannot be dropped); it makes nothing durable.
  // Returns a failed writeback, which a later fsync may no longer report.
  Status WriteBackAndDrop(uint64_t from, uint64_t to);
  // The same without the writeback and the wait: drops the pages of
  // [from, to) that are clean by now (dirty ones and those under writeback
  // stay). A hint: cannot fail, consumes no error.
  void DropWritten(uint64_t from, uint64_t to);
  // Writes the buffered bytes out (no fsync). Staging: hands them to the
  // queue and returns the queue's first error so far (the write itself may
  // still be in flight: IoQueue::Wait for it).
  Status Flush();
  IoQueue* queue() const { return queue_; }
  // End of the highest run this writer took from the allocator (0 if none).
  // Runs reused from the free list lie below it.
  uint64_t high_water() const { return max_end_; }
  // The current run [start, end): the writer may still write anywhere in
  // it (end == start: none).
  uint64_t run_start() const { return run_start_; }
  uint64_t run_end() const { return run_end_; }
  // Replaces the writer's list of reusable extent runs: (offset, bytes)
  // pairs, extent-aligned, not overlapping, that no retained revision and
  // no other writer uses. New runs are taken from it (first fit; a value
  // may be split over several free runs) before the allocator is asked.
  void SetFreeRuns(std::vector<std::pair<uint64_t, uint64_t>> runs);
  // Bytes of runs taken so far (from the free list or the allocator).
  uint64_t taken_bytes() const { return taken_; }
  // The free list not yet taken: (offset, bytes), ascending.
  const std::vector<std::pair<uint64_t, uint64_t>>& free_runs() const { return free_; }
  // Bytes of the free list not yet taken.
  uint64_t free_bytes() const;
  uint32_t subfile() const { return subfile_; }
  // Early writeback: once `bytes` (> 0) written contiguously have
  // accumulated, the writer asks the kernel to start writing them to the
  // device (File::StartWriteback), so that the commit's fsync waits only
  // for the tail. 0 turns it off. Makes nothing durable by itself.
  void SetWritebackBytes(uint64_t bytes) { writeback_bytes_ = bytes; }

 private:
  // Runs `job` on the file after every write handed to it so far: without
  // staging at once (its status returned), with staging queued behind the
  // writes (its status shows at the queue's next report; ok returned).
  Status BehindWrites(std::function<Status()> job);
  // Records that [off, off + n) was handed to the file (written, or queued
  // behind the writes before it) and starts writeback of the pending range
  // once it reaches writeback_bytes_.
  void Written(uint64_t off, uint64_t n);
  // Starts a new run of at least min_bytes (rounded up to extents); with
  // `split_ok`, a free run shorter than that may be taken instead.
  Status NewRun(uint64_t min_bytes, bool split_ok = false);
  // Copies or writes `n` bytes at the current position (pos_ advances).
  Status Emit(const char* p, uint64_t n);
  // Queues a write of the caller's `n` bytes at the current position.
  Status EmitFrom(const char* p, uint64_t n);
  Status AppendWith(std::string_view data, std::vector<ChunkRef>* chunks, bool zero_copy, uint64_t grain);

  File* file_;
  uint32_t subfile_;
  ExtentAllocator alloc_;
  uint64_t extent_size_;
  uint64_t chunk_size_;
  std::string buf_;        // bytes destined for [buf_start_, buf_start_ + size)
  size_t buf_cap_;
  uint64_t buf_start_ = 0;
  uint64_t pos_ = 0;       // next byte offset in the current run
  uint64_t run_end_ = 0;   // end of the current run
  IoQueue* queue_;
  uint64_t run_start_ = 0; // start of the current run
  uint64_t max_end_ = 0;
  uint64_t taken_ = 0;   // end of the highest run from the allocator
  std::vector<std::pair<uint64_t, uint64_t>> free_;  // reusable runs, ascending
  uint64_t writeback_bytes_ = 0;
  uint64_t wb_start_ = 0, wb_end_ = 0;  // written, writeback not yet started
};

}  // namespace cairn
