// File-like streams in a store: an object written and read as a stream of
// bytes, in any sizes, with seek. A stream is an ordinary object of the
// caller's namespace: once its writer is closed it is part of the next
// commit like any put (listed by `cairn keys`, extracted by `cairn get`).
//
// A stream handle belongs to the store it came from and to the thread that
// uses that store; it must be closed or destroyed before the store is.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "cairn/store.h"

#include "cairn/export.h"

namespace cairn {
CAIRN_API_BEGIN

// Writes one stream. Bytes go to the rank's writer as they come (one copy,
// into its write buffer), grouped into chunks of up to Options::chunk_size
// with one checksum each, so the sizes of the writes do not matter to how
// the stream is stored or read. A stream that stays within
// Options::inline_value_limit is kept in memory and stored inline.
class StreamWriter {
 public:
  ~StreamWriter();  // closes the stream if Close was not called (errors are lost)
  StreamWriter(const StreamWriter&) = delete;
  StreamWriter& operator=(const StreamWriter&) = delete;

  // Writes n bytes at the position, which then moves past them. Writing
  // inside what was already written overwrites it (the chunks touched are
  // rewritten elsewhere: copy on write); writing past the end, after a
  // Seek beyond it, fills the gap with zeros.
  Status Write(const void* data, size_t n);
  Status Write(std::string_view data) { return Write(data.data(), data.size()); }
  // Moves the position to `pos` (any value; see Write).
  Status Seek(uint64_t pos);
  // The position, and the stream's size so far.
  uint64_t Tell() const;
  uint64_t Size() const;
  // Ends the current chunk and writes the rank's buffered bytes to its data
  // file, like fflush (not durable: Store::Flush or a commit makes them so).
  Status Flush();
  // Ends the stream: it becomes the object `key` (replacing any object of
  // that key) with the tags given at open, pending for the next commit.
  // Calling it again returns the first outcome.
  Status Close();

  struct CAIRN_HIDDEN Impl;  // implementation, not part of the API

 private:
  friend class Store;
  explicit StreamWriter(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

// Reads one stream (or any object) at any position, in any sizes. Each
// chunk touched is read whole and verified against its checksum once; the
// last chunk read is kept, so small sequential reads cost one request per
// chunk, not per read.
class StreamReader {
 public:
  ~StreamReader();
  StreamReader(const StreamReader&) = delete;
  StreamReader& operator=(const StreamReader&) = delete;

  // Reads up to n bytes from the position into buf; *got says how many
  // (fewer than n only at the end of the stream; 0 at the end).
  Status Read(void* buf, size_t n, size_t* got);
  // Reads exactly n bytes at `offset` without moving the position;
  // InvalidArgument if the range passes the end.
  Status ReadAt(uint64_t offset, void* buf, size_t n);
  // Moves the position; InvalidArgument past the end.
  Status Seek(uint64_t pos);
  uint64_t Tell() const;
  uint64_t Size() const;

  struct CAIRN_HIDDEN Impl;  // implementation, not part of the API

 private:
  friend class Store;
  explicit StreamReader(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

CAIRN_API_END
}  // namespace cairn
