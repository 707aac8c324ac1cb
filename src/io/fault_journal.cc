#include "io/fault_journal.h"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>

namespace cairn {

namespace {

// Journal layout (little-endian): a 24-byte header, "CAIRNFJ1", u64 calls
// counted so far, u64 cut mark (1: the cut happened); then records, each
// u32 kind, u32 pid, u64 a, u64 b, u64 c, u32 path length, u32 data length,
// the path, the data. kWrite: a = offset, b = length, c = the file's size
// before, data = the bytes it overwrites (those below the old size).
// kTruncate: a = new size, c = old size, data = the bytes cut off.
// kRename: path = the source, a = 1 if the target existed, data = the
// target's path, a NUL, and the target's bytes before the rename. The
// others: the path only.
constexpr char kMagic[8] = {'C', 'A', 'I', 'R', 'N', 'F', 'J', '1'};
constexpr uint64_t kHeaderSize = 24;

struct Journal {
  int fd = -1;
  int64_t cut = -1;  // CAIRN_FAULT_CUT, or -1
  std::mutex mu;     // between the threads of this process (flock is per open file)
};

Journal* TheJournal() {
  static Journal* j = [] {
    const char* path = std::getenv("CAIRN_FAULT_JOURNAL");
    if (!path || !*path) return static_cast<Journal*>(nullptr);
    auto* jj = new Journal;
    jj->fd = ::open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    if (jj->fd < 0) {
      std::perror("CAIRN_FAULT_JOURNAL");
      std::_Exit(97);
    }
    const char* cut = std::getenv("CAIRN_FAULT_CUT");
    if (cut && *cut) jj->cut = std::atoll(cut);
    return jj;
  }();
  return j;
}

void Fail(const char* what) {
  std::perror(what);
  std::_Exit(97);
}

void WriteAll(int fd, const void* p, size_t n, uint64_t at) {
  const char* c = static_cast<const char*>(p);
  while (n > 0) {
    ssize_t r = ::pwrite(fd, c, n, off_t(at));
    if (r < 0) Fail("fault journal write");
    c += r, n -= size_t(r), at += uint64_t(r);
  }
}

std::string Canonical(const std::string& path) {
  char buf[PATH_MAX];
  if (::realpath(path.c_str(), buf)) return buf;
  return path;
}

// Reads the header, creating it in an empty journal.
void ReadHeader(int fd, uint64_t* calls, uint64_t* cut) {
  char h[kHeaderSize] = {};
  ssize_t r = ::pread(fd, h, kHeaderSize, 0);
  if (r == 0) {
    std::memcpy(h, kMagic, 8);
    WriteAll(fd, h, kHeaderSize, 0);
  } else if (r != ssize_t(kHeaderSize) || std::memcmp(h, kMagic, 8) != 0) {
    std::fprintf(stderr, "CAIRN_FAULT_JOURNAL: not a fault journal\n");
    std::_Exit(97);
  }
  std::memcpy(calls, h + 8, 8);
  std::memcpy(cut, h + 16, 8);
}

void Append(int fd, uint32_t kind, const std::string& path, uint64_t a, uint64_t b, uint64_t c,
            const std::string& data) {
  std::string rec(40, '\0');
  uint32_t pid = uint32_t(::getpid()), plen = uint32_t(path.size()), dlen = uint32_t(data.size());
  std::memcpy(&rec[0], &kind, 4);
  std::memcpy(&rec[4], &pid, 4);
  std::memcpy(&rec[8], &a, 8);
  std::memcpy(&rec[16], &b, 8);
  std::memcpy(&rec[24], &c, 8);
  std::memcpy(&rec[32], &plen, 4);
  std::memcpy(&rec[36], &dlen, 4);
  rec += path;
  rec += data;
  struct stat st;
  if (::fstat(fd, &st) != 0) Fail("fault journal fstat");
  WriteAll(fd, rec.data(), rec.size(), uint64_t(st.st_size));
}

}  // namespace

const bool FaultOp::enabled_ = [] {
  const char* p = std::getenv("CAIRN_FAULT_JOURNAL");
  return p && *p;
}();

void FaultOp::Begin(Kind kind, int fd, const std::string& path, uint64_t offset, uint64_t arg) {
  Journal* j = TheJournal();
  if (!j) return;
  j->mu.lock();
  while (::flock(j->fd, LOCK_EX) != 0)
    if (errno != EINTR) Fail("fault journal flock");
  active_ = true;
  kind_ = kind;
  uint64_t calls = 0, cut = 0;
  ReadHeader(j->fd, &calls, &cut);
  if (cut != 0) std::_Exit(86);  // after the cut nothing happens
  if (j->cut >= 0 && calls >= uint64_t(j->cut)) {
    uint64_t one = 1;
    WriteAll(j->fd, &one, 8, 16);
    std::_Exit(86);
  }
  calls++;
  WriteAll(j->fd, &calls, 8, 8);
  if (kind == kWrite || kind == kTruncate) {
    // The bytes this call replaces, read before it changes them.
    struct stat st;
    if (::fstat(fd, &st) != 0) Fail("fault journal fstat of a data file");
    uint64_t old_size = uint64_t(st.st_size);
    uint64_t from = kind == kWrite ? offset : arg;
    uint64_t to = kind == kWrite ? offset + arg : old_size;
    to = std::min(to, old_size);
    std::string old(from < to ? to - from : 0, '\0');
    for (uint64_t done = 0; done < old.size();) {
      ssize_t r = ::pread(fd, &old[done], old.size() - done, off_t(from + done));
      if (r <= 0) Fail("fault journal read of old bytes");
      done += uint64_t(r);
    }
    Append(j->fd, kind, Canonical(path), kind == kWrite ? offset : arg, kind == kWrite ? arg : 0, old_size, old);
  } else {
    path_ = path;
  }
}

void FaultOp::BeginRename(const std::string& from, const std::string& to) {
  Begin(kRename, -1, from, 0, 0);
  if (!active_) return;
  path_ = Canonical(from);  // it is gone once renamed
  size_t slash = to.find_last_of('/');
  std::string dir = slash == std::string::npos ? "." : to.substr(0, slash);
  data_ = Canonical(dir) + "/" + (slash == std::string::npos ? to : to.substr(slash + 1));
  data_.push_back('\0');
  int fd = ::open(to.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd >= 0) {
    a_ = 1;
    char buf[65536];
    for (;;) {
      ssize_t r = ::read(fd, buf, sizeof buf);
      if (r < 0) Fail("fault journal read of a rename's target");
      if (r == 0) break;
      data_.append(buf, size_t(r));
    }
    ::close(fd);
  }
}

void FaultOp::End() {
  Journal* j = TheJournal();
  // Syncs are recorded once they have returned, entries once they exist.
  if (done_ && kind_ == kRename) Append(j->fd, kind_, Canonical(path_), a_, 0, 0, data_);
  else if (done_ && kind_ != kWrite && kind_ != kTruncate) Append(j->fd, kind_, Canonical(path_), 0, 0, 0, "");
  ::flock(j->fd, LOCK_UN);
  j->mu.unlock();
}

}  // namespace cairn
