// The std::iostream adaptors of include/cairn/iostream.h.
#include "cairn/iostream.h"

#include <algorithm>
#include <cstring>
#include <ios>

namespace cairn {

namespace {
constexpr size_t kBufferBytes = 64 * 1024;

// A read that failed (a damaged chunk, the store closed, an I/O error) must
// not look like the end of the object: underflow returning eof gives the
// istream eofbit and failbit only, and the usual loops (read until it
// fails, getline, istreambuf_iterator) would take the bytes before the
// failure for the whole object. So, as std::filebuf does for a read error,
// the streambuf throws: the istream's input functions turn that into
// badbit (rethrowing only if exceptions() asks for badbit), and code that
// reads the streambuf directly sees the exception.
[[noreturn]] void ThrowReadError(const Status& s) { throw std::ios_base::failure(s.ToString()); }
}  // namespace

StoreStreambuf::StoreStreambuf(std::unique_ptr<StreamWriter> w) : w_(std::move(w)), buf_(kBufferBytes, '\0') {
  setp(buf_.data(), buf_.data() + buf_.size());
}

StoreStreambuf::StoreStreambuf(std::unique_ptr<StreamReader> r) : r_(std::move(r)), buf_(kBufferBytes, '\0') {
  setg(buf_.data(), buf_.data(), buf_.data());
}

StoreStreambuf::~StoreStreambuf() { Close(); }

bool StoreStreambuf::Fail(const Status& s) {
  if (status_.ok()) status_ = s;
  return false;
}

bool StoreStreambuf::FlushPut() {
  if (!w_) return true;
  size_t n = size_t(pptr() - pbase());
  setp(buf_.data(), buf_.data() + buf_.size());
  if (n == 0) return status_.ok();
  Status s = w_->Write(buf_.data(), n);
  return s.ok() ? status_.ok() : Fail(s);
}

Status StoreStreambuf::Close() {
  if (!w_) return status_;
  FlushPut();
  Status s = w_->Close();
  if (!s.ok()) Fail(s);
  return status_;
}

StoreStreambuf::int_type StoreStreambuf::overflow(int_type ch) {
  if (!w_ || !FlushPut()) return traits_type::eof();
  if (!traits_type::eq_int_type(ch, traits_type::eof())) {
    *pptr() = traits_type::to_char_type(ch);
    pbump(1);
  }
  return traits_type::not_eof(ch);
}

std::streamsize StoreStreambuf::xsputn(const char* s, std::streamsize n) {
  if (!w_) return 0;
  if (size_t(n) <= size_t(epptr() - pptr())) {
    std::memcpy(pptr(), s, size_t(n));
    pbump(int(n));
    return n;
  }
  // Larger than the room left: what is buffered, then the rest directly.
  if (!FlushPut()) return 0;
  Status st = w_->Write(s, size_t(n));
  if (!st.ok()) {
    Fail(st);
    return 0;
  }
  return n;
}

// A flush hands the buffered bytes to the stream writer, which gathers them
// into chunks; it does not cut a chunk per flush (std::endl would).
int StoreStreambuf::sync() { return FlushPut() ? 0 : -1; }

StoreStreambuf::int_type StoreStreambuf::underflow() {
  if (!r_) return traits_type::eof();
  if (gptr() < egptr()) return traits_type::to_int_type(*gptr());
  get_base_ = r_->Tell();
  size_t got = 0;
  Status s = r_->Read(buf_.data(), buf_.size(), &got);
  if (!s.ok()) {
    Fail(s);
    setg(buf_.data(), buf_.data(), buf_.data());
    ThrowReadError(s);
  }
  setg(buf_.data(), buf_.data(), buf_.data() + got);
  return got == 0 ? traits_type::eof() : traits_type::to_int_type(*gptr());
}

std::streamsize StoreStreambuf::xsgetn(char* s, std::streamsize n) {
  if (!r_) return 0;
  std::streamsize done = std::min<std::streamsize>(n, egptr() - gptr());
  std::memcpy(s, gptr(), size_t(done));
  gbump(int(done));
  if (done == n) return done;
  if (size_t(n - done) >= buf_.size()) {
    // Large: straight from the reader into the caller's memory.
    size_t got = 0;
    Status st = r_->Read(s + done, size_t(n - done), &got);
    get_base_ = r_->Tell();
    setg(buf_.data(), buf_.data(), buf_.data());
    if (!st.ok()) {
      Fail(st);
      ThrowReadError(st);
    }
    return done + std::streamsize(got);
  }
  while (done < n && !traits_type::eq_int_type(underflow(), traits_type::eof())) {
    std::streamsize k = std::min<std::streamsize>(n - done, egptr() - gptr());
    std::memcpy(s + done, gptr(), size_t(k));
    gbump(int(k));
    done += k;
  }
  return done;
}

StoreStreambuf::pos_type StoreStreambuf::seekoff(off_type off, std::ios_base::seekdir dir,
                                                 std::ios_base::openmode) {
  const pos_type bad = pos_type(off_type(-1));
  if (w_) {
    if (!FlushPut()) return bad;
    int64_t base = dir == std::ios_base::beg ? 0
                   : dir == std::ios_base::cur ? int64_t(w_->Tell()) : int64_t(w_->Size());
    if (base + off < 0) return bad;
    Status s = w_->Seek(uint64_t(base + off));
    if (!s.ok()) return Fail(s), bad;
    return pos_type(off_type(base + off));
  }
  if (!r_) return bad;
  int64_t cur = int64_t(get_base_) + (gptr() - eback());
  int64_t base = dir == std::ios_base::beg ? 0 : dir == std::ios_base::cur ? cur : int64_t(r_->Size());
  int64_t target = base + off;
  if (target < 0 || uint64_t(target) > r_->Size()) return bad;
  if (uint64_t(target) >= get_base_ && target <= int64_t(get_base_) + (egptr() - eback())) {
    setg(eback(), eback() + (target - int64_t(get_base_)), egptr());
    return pos_type(off_type(target));
  }
  Status s = r_->Seek(uint64_t(target));
  if (!s.ok()) return Fail(s), bad;
  get_base_ = uint64_t(target);
  setg(buf_.data(), buf_.data(), buf_.data());
  return pos_type(off_type(target));
}

StoreStreambuf::pos_type StoreStreambuf::seekpos(pos_type pos, std::ios_base::openmode which) {
  return seekoff(off_type(pos), std::ios_base::beg, which);
}

ostream::ostream(Store& store, std::string_view key, const TagList& tags) : std::ostream(nullptr) {
  std::unique_ptr<StreamWriter> w;
  open_status_ = store.OpenWriteStream(key, tags, &w);
  if (!open_status_.ok()) {
    setstate(std::ios_base::badbit);
    return;
  }
  buf_ = std::make_unique<StoreStreambuf>(std::move(w));
  rdbuf(buf_.get());
}

ostream::~ostream() { close(); }

Status ostream::close() {
  if (!open_status_.ok()) return open_status_;
  if (!buf_) return Status::OK();
  Status s = buf_->Close();
  if (!s.ok()) setstate(std::ios_base::badbit);
  return s;
}

istream::istream(Store& store, std::string_view key, const ReadOptions& ro) : std::istream(nullptr) {
  std::unique_ptr<StreamReader> r;
  open_status_ = store.OpenReadStream(key, &r, ro);
  if (!open_status_.ok()) {
    setstate(std::ios_base::badbit);
    return;
  }
  buf_ = std::make_unique<StoreStreambuf>(std::move(r));
  rdbuf(buf_.get());
}

istream::~istream() = default;

}  // namespace cairn
