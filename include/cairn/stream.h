// File-like streams in a store: an object written and read as a stream of
// bytes, in any sizes, with seek. A stream is an ordinary object of the
// caller's namespace: once its writer is closed it is part of the next
// commit like any put (listed by `cairn keys`, extracted by `cairn get`).
//
// A stream handle belongs to the store handle it came from and is used by
// the thread that uses that store. It may outlive the store: once the store
// is closed or destroyed, every call that returns a Status fails with
// InvalidArgument ("store ... is closed"), a write stream's data is not
// committed, and destroying the stream is harmless.
//
// Open write streams and commits: a commit made while a key's write stream
// is open holds the key's previous object (or none); the stream joins the
// first commit after its writer is closed. What it has written stays where
// it is meanwhile: no commit, synchronous or asynchronous, hands that space
// out for reuse (keep_revisions, Drop), however many commits the stream
// stays open across. One write stream per key and rank at a time: a second
// OpenWriteStream of the key is refused until the first is closed. A Put or
// Delete of the key while its stream is open acts at once, as always; the
// stream's Close then replaces the key again (Close is the stream's put).
// A reader keeps the object it opened: commits through the same store
// handle do not reuse its space while the reader exists, even if they
// expire its revision (a reader on another handle or in another job is not
// known to the writer: pin the revision it reads). With staging, a commit
// that fails drops the puts since the last revision, and with them every
// open write stream that has written to the store: such a stream's calls
// then fail, saying so, and its key keeps its previous object.
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
  // Seek beyond it, fills the gap with zeros. The zeros are written out
  // (the stream is not sparse): a gap costs its size in disk space and
  // write time. A write whose gap (of 4 MiB or more) is larger than the
  // free space of the store's file system is IOError and writes nothing
  // (the stream stays usable); a write that would end past 2^64 - 1 is
  // InvalidArgument and writes nothing. A write the store could
  // not carry out (an I/O error: disk full, file too large) breaks the
  // stream: that call and every later one (Write, Seek, Flush, Close)
  // return the error, and nothing of the stream is committed: the key keeps
  // its previous object.
  Status Write(const void* data, size_t n);
  Status Write(std::string_view data) { return Write(data.data(), data.size()); }
  // Moves the position to `pos` (any value; see Write).
  Status Seek(uint64_t pos);
  // The position, and the stream's size so far.
  uint64_t Tell() const;
  uint64_t Size() const;
  // Ends the current chunk and writes the rank's buffered bytes to its data
  // file, like fflush (not durable: Store::Flush or a commit makes them so).
  // A failure breaks the stream, as for Write.
  Status Flush();
  // Ends the stream: it becomes the object `key` (replacing any object of
  // that key, one put while the stream was open included) with the tags
  // given at open, pending for the next commit. Calling it again returns
  // the first outcome. If the store was closed first: InvalidArgument, and
  // nothing of the stream is committed.
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
