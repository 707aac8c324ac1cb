// A file opened once and kept open, with positional I/O that loops over
// short transfers and counts every request and metadata operation in an
// IoStats. All of cairn's file-system calls go through here or through the
// directory helpers below, so the counts are complete.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

struct iovec;

#include "cairn/status.h"
#include "cairn/store.h"

namespace cairn {

class File {
 public:
  enum Mode { kReadOnly, kReadWrite, kCreate /* read-write, created if missing */ };
  // Opens `path`. *created (may be null) says whether the file was created.
  static Status Open(const std::string& path, Mode mode, IoStats* stats,
                     std::unique_ptr<File>* file, bool* created = nullptr);
  ~File();

  // Reads exactly n bytes at offset; a file too short is Corruption
  // ("truncated"), since every read cairn makes is of bytes it wrote.
  Status PRead(uint64_t offset, void* buf, uint64_t n) const;
  // The same (one request), for bytes that are read once and then kept in
  // memory (a large index table): read in pieces, and each piece's pages
  // are dropped from the page cache once copied (posix_fadvise DONTNEED;
  // dirty pages stay). The cache thus does not hold a second copy of the
  // bytes, and the pages it frees are reused for the copy itself instead
  // of memory the process never touched (whose first touch, in a VM,
  // costs several times the copy: bench/catalogue/README.md).
  Status PReadOnce(uint64_t offset, void* buf, uint64_t n) const;
  // The same as one request scattered over `iov` (n bytes in all, at most
  // IOV_MAX entries): preadv, looping over short transfers. Counted as one
  // read request of n bytes.
  Status PReadV(uint64_t offset, const struct iovec* iov, int iovcnt, uint64_t n) const;
  // The same request read with O_DIRECT, past the page cache: the device
  // writes into `iov` itself, so the kernel neither copies the bytes nor
  // allocates, fills and later drops pages for them (src/io/file_direct.cc;
  // doc/design.md "Direct reads"). Done only where it is safe and pays:
  // returns false, with nothing read that counts (iov's bytes are then
  // unspecified; the caller reads the request through the cache), if the
  // file system has no O_DIRECT, if `offset`, n, an entry's address or an
  // entry's length is not a multiple of the file's direct-I/O alignment
  // (statx STATX_DIOALIGN; 4096 where it is not reported), if any page of
  // the range is in the page cache (cachestat, Linux 6.5; never on a kernel
  // without it), or if the direct read fails or ends short (the end of the
  // file; a request larger than one call moves is read in more calls). The
  // first request that passes every other check opens the file a second
  // time, with O_DIRECT (through /proc/self/fd; counted as an open); the
  // descriptor is kept with the File's. Thread-safe.
  bool PReadVDirect(uint64_t offset, const struct iovec* iov, int iovcnt, uint64_t n) const;
  // Asks the kernel to start reading [offset, offset + n) into the page
  // cache (posix_fadvise WILLNEED); a hint, it cannot fail.
  void WillNeed(uint64_t offset, uint64_t n) const;
  // Writes exactly n bytes at offset.
  Status PWrite(uint64_t offset, const void* buf, uint64_t n);
  // Starts writeback of the dirty pages of [offset, offset + n) without
  // waiting for it (sync_file_range SYNC_FILE_RANGE_WRITE): a hint that
  // makes nothing durable (Sync still must follow) and reports no error
  // (a failed writeback shows at the next Sync, which Linux's error
  // sequence reports to every descriptor that has not seen it).
  void StartWriteback(uint64_t offset, uint64_t n);
  // Writes back the dirty pages of [offset, offset + n) and waits until
  // none of them is dirty or under writeback (sync_file_range with
  // WAIT_BEFORE | WRITE | WAIT_AFTER), so that DropCache can drop them.
  // Makes nothing durable (no metadata, no device flush: Sync still must
  // follow). A failed writeback is returned here; the kernel reports it to
  // this descriptor once, so the File keeps it and every later Sync
  // returns it too (a commit after it must not succeed over lost pages).
  // Safe to call from another thread than Sync's (the staging queue).
  Status WaitWriteback(uint64_t offset, uint64_t n);
  // fsync; fails, from then on, once a WaitWriteback has failed.
  Status Sync();
  Status Size(uint64_t* size) const;
  Status Truncate(uint64_t size);
  // Renames the file (its directory entry) to `to`, replacing what was
  // there; path() becomes `to`. Durable once `to`'s directory is fsynced.
  Status Rename(const std::string& to);
  // Drops the clean pages of [offset, offset + n) (n = 0: to the end of
  // the file) from the page cache (posix_fadvise DONTNEED; dirty pages and
  // pages under writeback stay, and writeback of the dirty ones starts). A
  // hint: it cannot fail and makes nothing durable. Benchmarks and tests
  // drop whole files; a writer drops bytes it wrote once and will not read
  // back through the cache (Writer::DropWritten, Writer::WriteBackAndDrop).
  void DropCache(uint64_t offset = 0, uint64_t n = 0) const;
  const std::string& path() const { return path_; }
  int fd() const { return fd_; }

 private:
  File(int fd, std::string path, IoStats* stats) : fd_(fd), path_(std::move(path)), stats_(stats) {}
  // The O_DIRECT descriptor, opened by the first PReadVDirect that passes
  // every other check (direct_state_: 0 not yet, 1 usable, -1 not usable),
  // and the alignment it needs, asked of fd_ by the first PReadVDirect.
  bool DirectUsable() const;
  void DirectAlignmentOnce() const;
  mutable std::once_flag direct_align_once_;
  int fd_;
  mutable std::mutex direct_mu_;
  mutable std::atomic<int> direct_state_{0};
  mutable int direct_fd_ = -1;
  mutable uint64_t direct_mem_align_ = 4096, direct_offset_align_ = 4096;
  std::string path_;
  IoStats* stats_;
  mutable std::mutex wb_mu_;
  Status wb_error_;  // the first failed WaitWriteback (the kernel said it once)
};

// Adds n to one counter of an IoStats. Counters may be bumped by the
// background I/O thread while the caller's thread reads them
// (Store::stats, SnapshotStats): relaxed atomic adds keep that race-free.
inline void CountIo(uint64_t& field, uint64_t n = 1) {
  std::atomic_ref<uint64_t>(field).fetch_add(n, std::memory_order_relaxed);
}
// A consistent-enough copy of counters that another thread may be adding to.
IoStats SnapshotStats(const IoStats& s);
// mkdir; ok if it already exists as a directory (*created says which).
Status MakeDir(const std::string& path, IoStats* stats, bool* created);
// fsync of a directory, so a file created in it survives a crash.
Status SyncDir(const std::string& path, IoStats* stats);
// Whether `path` exists (a stat, counted).
bool PathExists(const std::string& path, IoStats* stats, bool* is_dir);
// The (device, inode) of `path` (a stat, counted); false if it has none.
bool FileIdentity(const std::string& path, IoStats* stats, uint64_t* dev, uint64_t* ino);
// The names in directory `path`, without "." and ".." (counted as an open).
Status ListDir(const std::string& path, IoStats* stats, std::vector<std::string>* names);

}  // namespace cairn
