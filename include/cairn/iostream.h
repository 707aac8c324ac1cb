// std::iostream adaptors over store streams, so code written against
// iostreams checkpoints into a store by changing one line:
//
//   std::ofstream out("state.bin", std::ios::binary);   // before
//   cairn::ostream out(*store, "state.bin");             // after
//
// Formatted and unformatted output, seekp/tellp, seekg/tellg and flush work
// as with files. Errors set badbit; status() says what went wrong. A read
// that fails (a chunk whose checksum does not match, the store closed) is
// never an end of stream: as std::filebuf does for a read error, the
// streambuf throws std::ios_base::failure, which the istream's input
// functions turn into badbit (rethrown only if exceptions() includes
// badbit); code reading the streambuf directly (istreambuf_iterator) gets
// the exception. The object becomes part of the next commit once the
// ostream is closed (close() or destruction). Streams open across commits, and streams that
// outlive their store, behave as in cairn/stream.h: after the store is
// closed, reads and writes fail (badbit; status() says "store ... is
// closed") and destruction is harmless.
#pragma once

#include <istream>
#include <memory>
#include <ostream>
#include <streambuf>
#include <string>

#include "cairn/stream.h"

#include "cairn/export.h"

namespace cairn {
CAIRN_API_BEGIN

// A streambuf over a StreamWriter or a StreamReader, with a 64 KiB buffer.
class StoreStreambuf : public std::streambuf {
 public:
  explicit StoreStreambuf(std::unique_ptr<StreamWriter> w);
  explicit StoreStreambuf(std::unique_ptr<StreamReader> r);
  ~StoreStreambuf() override;
  // Writes what is buffered and closes the writer (no-op for a reader).
  Status Close();
  // The first error met, or ok.
  const Status& status() const { return status_; }

 protected:
  int_type overflow(int_type ch) override;
  std::streamsize xsputn(const char* s, std::streamsize n) override;
  int sync() override;
  int_type underflow() override;
  std::streamsize xsgetn(char* s, std::streamsize n) override;
  pos_type seekoff(off_type off, std::ios_base::seekdir dir, std::ios_base::openmode which) override;
  pos_type seekpos(pos_type pos, std::ios_base::openmode which) override;

 private:
  bool FlushPut();
  bool Fail(const Status& s);
  std::unique_ptr<StreamWriter> w_;
  std::unique_ptr<StreamReader> r_;
  std::string buf_;
  uint64_t get_base_ = 0;  // stream offset of the get area's first byte
  Status status_;
};

// An output stream that writes object `key` of the caller's namespace.
// Check status() after open: a bad key or tags leave the stream failed.
class ostream : public std::ostream {
 public:
  ostream(Store& store, std::string_view key, const TagList& tags = {});
  ~ostream() override;
  // Ends the object (it is pending for the next commit); returns the first
  // error of the stream's life, or ok.
  Status close();
  Status status() const { return open_status_.ok() ? buf_->status() : open_status_; }

 private:
  Status open_status_;
  std::unique_ptr<StoreStreambuf> buf_;
};

// An input stream that reads object `key` (of the namespace ro.rank names).
class istream : public std::istream {
 public:
  istream(Store& store, std::string_view key, const ReadOptions& ro = {});
  ~istream() override;
  Status status() const { return open_status_.ok() ? buf_->status() : open_status_; }

 private:
  Status open_status_;
  std::unique_ptr<StoreStreambuf> buf_;
};

CAIRN_API_END
}  // namespace cairn
