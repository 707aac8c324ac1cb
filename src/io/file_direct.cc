// File::PReadVDirect: a read request past the page cache (O_DIRECT), taken
// only for bytes the cache does not hold. A cold restart read through the
// cache costs the kernel a copy of every byte plus the allocation of a page
// for each 4 KiB; read directly, the device writes into the caller's memory
// and neither happens (doc/design.md "Direct reads" has the measurements).
// Bytes the cache holds (a value just written, or read before) are read
// through it, which is faster than the device; cachestat tells which.
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdint>
#include <vector>

#include "io/file.h"

namespace cairn {

namespace {

// cachestat(2) (Linux 6.5), not in every libc's headers.
#ifndef SYS_cachestat
#if defined(__linux__)
#define SYS_cachestat 451  // the same number on every architecture
#endif
#endif

struct CachestatRange {
  uint64_t off, len;
};
struct Cachestat {
  uint64_t nr_cache, nr_dirty, nr_writeback, nr_evicted, nr_recently_evicted;
};

// True only if the kernel says that no page of [offset, offset + n) is in
// the page cache (a kernel without cachestat says nothing: false).
bool NothingCached(int fd, uint64_t offset, uint64_t n) {
#ifdef SYS_cachestat
  CachestatRange r{offset, n};
  Cachestat c{};
  if (::syscall(SYS_cachestat, fd, &r, &c, 0) != 0) return false;
  return c.nr_cache == 0 && c.nr_dirty == 0 && c.nr_writeback == 0;
#else
  (void)fd, (void)offset, (void)n;
  return false;
#endif
}

// The alignment O_DIRECT needs for `fd`'s memory and file offsets: what
// statx reports (STATX_DIOALIGN, Linux 6.1), else a page for both, which
// every file system that has O_DIRECT accepts.
void DirectAlignment(int fd, uint64_t* mem, uint64_t* offset) {
  *mem = *offset = 4096;
#if defined(STATX_DIOALIGN)
  struct statx sx;
  if (::statx(fd, "", AT_EMPTY_PATH, STATX_DIOALIGN, &sx) == 0 && (sx.stx_mask & STATX_DIOALIGN) &&
      sx.stx_dio_mem_align > 0 && sx.stx_dio_offset_align > 0) {
    *mem = sx.stx_dio_mem_align;
    *offset = sx.stx_dio_offset_align;
  }
#endif
}

}  // namespace

void File::DirectAlignmentOnce() const {
  std::call_once(direct_align_once_, [this] {
    CountIo(stats_->stats);
    DirectAlignment(fd_, &direct_mem_align_, &direct_offset_align_);
  });
}

bool File::DirectUsable() const {
  int state = direct_state_.load(std::memory_order_acquire);
  if (state != 0) return state > 0;
  std::lock_guard<std::mutex> l(direct_mu_);
  if ((state = direct_state_.load(std::memory_order_relaxed)) != 0) return state > 0;
  state = -1;
  // The same file opened again: through /proc/self/fd (the open
  // descriptor's own inode, whatever its path names now), else by its
  // path; either way checked to be the same inode, so that a path that
  // now names another file is never read in its place.
  CountIo(stats_->opens);
  std::string self = "/proc/self/fd/" + std::to_string(fd_);
  int dfd = ::open(self.c_str(), O_RDONLY | O_CLOEXEC | O_DIRECT);
  if (dfd < 0 && errno == ENOENT) {  // no /proc
    CountIo(stats_->opens);
    dfd = ::open(path_.c_str(), O_RDONLY | O_CLOEXEC | O_DIRECT | O_NONBLOCK);
  }
  if (dfd >= 0) {
    struct stat a, b;
    CountIo(stats_->stats);
    CountIo(stats_->stats);
    if (::fstat(fd_, &a) == 0 && ::fstat(dfd, &b) == 0 && S_ISREG(b.st_mode) && a.st_dev == b.st_dev &&
        a.st_ino == b.st_ino) {
      direct_fd_ = dfd;
      state = 1;
    } else {
      ::close(dfd);
    }
  }
  direct_state_.store(state, std::memory_order_release);
  return state > 0;
}

bool File::PReadVDirect(uint64_t offset, const struct iovec* iov, int iovcnt, uint64_t n) const {
#ifndef O_DIRECT
  return false;
#else
  // The checks that cost nothing first; the second descriptor is opened
  // only for a request that passes them all.
  if (n == 0 || iovcnt <= 0 || iovcnt > IOV_MAX || direct_state_.load(std::memory_order_acquire) < 0) return false;
  DirectAlignmentOnce();
  const uint64_t mem = direct_mem_align_, off = direct_offset_align_;
  if (offset % off != 0 || n % off != 0) return false;
  for (int i = 0; i < iovcnt; i++)
    if (reinterpret_cast<uintptr_t>(iov[i].iov_base) % mem != 0 || iov[i].iov_len % off != 0) return false;
  if (!NothingCached(fd_, offset, n) || !DirectUsable()) return false;
  // A direct read of aligned bytes that exist comes back whole, but for a
  // request of more than one call moves (Linux stops at 2 GiB - 4 KiB,
  // MAX_RW_COUNT): the rest is read by the next call, from a copy of the
  // entries not yet filled (made only then). Anything else (the end of the
  // file inside the range, EINTR, an error) is left to the read through
  // the cache, which reports it properly.
  std::vector<struct iovec> rest;
  size_t first = 0;  // of `rest`, once made
  uint64_t done = 0;
  while (done < n) {
    const struct iovec* v = rest.empty() ? iov : rest.data() + first;
    int cnt = rest.empty() ? iovcnt : int(rest.size() - first);
    ssize_t r = ::preadv(direct_fd_, v, cnt, off_t(offset + done));
    if (r <= 0) CountIo(stats_->read_requests);  // a request made, and nothing counted for it below
    if (r < 0 && errno == EINVAL) {  // the file system refuses after all
      direct_state_.store(-1, std::memory_order_release);
      return false;
    }
    if (r <= 0) return false;
    done += uint64_t(r);
    if (done == n) break;
    if (uint64_t(r) % off != 0) return false;  // not a call's limit: the end of the file
    if (rest.empty()) rest.assign(iov, iov + iovcnt);
    uint64_t left = uint64_t(r);
    while (left >= rest[first].iov_len) left -= rest[first++].iov_len;  // done < n: an entry is unfilled
    rest[first].iov_base = static_cast<char*>(rest[first].iov_base) + left;
    rest[first].iov_len -= size_t(left);
    if (reinterpret_cast<uintptr_t>(rest[first].iov_base) % mem != 0) return false;
  }
  CountIo(stats_->read_requests);
  CountIo(stats_->read_bytes, n);
  CountIo(stats_->direct_read_bytes, n);
  return true;
#endif
}

}  // namespace cairn
