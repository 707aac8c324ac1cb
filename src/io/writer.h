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
  // (each at most chunk_size, never crossing a run) to *chunks.
  Status Append(std::string_view data, std::vector<ChunkRef>* chunks);
  // As Append, but with a queue the bytes are written from `data` itself by
  // the queue's thread: the caller keeps them unchanged until the queue has
  // written them (IoQueue::Wait). Without a queue, the same as Append.
  Status AppendZeroCopy(std::string_view data, std::vector<ChunkRef>* chunks);
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
  // Writes the buffered bytes out (no fsync). Staging: hands them to the
  // queue and returns the queue's first error so far (the write itself may
  // still be in flight: IoQueue::Wait for it).
  Status Flush();
  IoQueue* queue() const { return queue_; }
  // End of the highest run this writer was given (0 if none).
  uint64_t high_water() const { return run_end_; }
  uint32_t subfile() const { return subfile_; }

 private:
  Status NewRun(uint64_t min_bytes);
  // Copies or writes `n` bytes at the current position (pos_ advances).
  Status Emit(const char* p, uint64_t n);
  // Queues a write of the caller's `n` bytes at the current position.
  Status EmitFrom(const char* p, uint64_t n);
  Status AppendWith(std::string_view data, std::vector<ChunkRef>* chunks, bool zero_copy);

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
};

}  // namespace cairn
