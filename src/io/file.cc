#include "io/file.h"

#include <dirent.h>
#include "io/fault_journal.h"  // power-loss test hook, off unless CAIRN_FAULT_JOURNAL is set

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdlib>
#include <cstring>

namespace cairn {

IoStats SnapshotStats(const IoStats& s) {
  auto load = [](const uint64_t& f) {
    return std::atomic_ref<uint64_t>(const_cast<uint64_t&>(f)).load(std::memory_order_relaxed);
  };
  IoStats o;
  o.read_requests = load(s.read_requests);
  o.read_bytes = load(s.read_bytes);
  o.write_requests = load(s.write_requests);
  o.write_bytes = load(s.write_bytes);
  o.opens = load(s.opens);
  o.creates = load(s.creates);
  o.mkdirs = load(s.mkdirs);
  o.stats = load(s.stats);
  o.fsyncs = load(s.fsyncs);
  o.renames = load(s.renames);
  o.unlinks = load(s.unlinks);
  o.truncates = load(s.truncates);
  o.staging_stalls = load(s.staging_stalls);
  o.staging_stall_ns = load(s.staging_stall_ns);
  o.index_bytes_gathered = load(s.index_bytes_gathered);
  o.index_tables_reused = load(s.index_tables_reused);
  o.index_tables_streamed = load(s.index_tables_streamed);
  o.writeback_requests = load(s.writeback_requests);
  o.direct_read_bytes = load(s.direct_read_bytes);
  return o;
}

Status File::Open(const std::string& path, Mode mode, IoStats* stats,
                  std::unique_ptr<File>* file, bool* created) {
  int flags = O_CLOEXEC;
  flags |= (mode == kReadOnly) ? O_RDONLY : O_RDWR;
  int fd = -1;
  bool made = false;
  if (mode == kCreate) {
    // Open the existing file (the common case: a restart); create it
    // exclusively only if it is missing, so we know whether it is new.
    CountIo(stats->opens);
    fd = ::open(path.c_str(), flags);
    if (fd < 0 && errno == ENOENT) {
      CountIo(stats->opens);
      FaultOp fault(FaultOp::kCreate, -1, path);
      fd = ::open(path.c_str(), flags | O_CREAT | O_EXCL, 0644);
      if (fd >= 0) {
        fault.Done();
        made = true;
        CountIo(stats->creates);
      } else if (errno == EEXIST) {  // another rank made it meanwhile
        CountIo(stats->opens);
        fd = ::open(path.c_str(), flags);
      }
    }
  } else {
    CountIo(stats->opens);
    fd = ::open(path.c_str(), flags);
  }
  if (fd < 0) return Status::FromErrno("open " + path, errno);
  if (created) *created = made;
  file->reset(new File(fd, path, stats));
  return Status::OK();
}

File::~File() {
  if (fd_ >= 0) ::close(fd_);
  if (direct_fd_ >= 0) ::close(direct_fd_);
}

// The status of a read of n bytes at `offset` that stopped after `done`:
// an I/O error (err != 0), or a file that ends before the bytes wanted.
// Where it ends is asked of the file (fstat): a read that found no byte at
// all says only that the file ends at or before `offset`.
static Status ReadFailed(int fd, IoStats* stats, const std::string& path, uint64_t offset, uint64_t n,
                         uint64_t done, int err) {
  if (err != 0) return Status::FromErrno("read " + path + " at offset " + std::to_string(offset + done), err);
  uint64_t end = offset + done;
  struct stat st;
  CountIo(stats->stats);
  if (::fstat(fd, &st) == 0 && uint64_t(st.st_size) < end) end = uint64_t(st.st_size);
  return Status::Corruption(path + " is truncated: wanted " + std::to_string(n) + " bytes at offset " +
                            std::to_string(offset) + ", file ends at " + std::to_string(end));
}

Status File::PRead(uint64_t offset, void* buf, uint64_t n) const {
  CountIo(stats_->read_requests);
  char* p = static_cast<char*>(buf);
  uint64_t done = 0;
  while (done < n) {
    size_t want = size_t(std::min<uint64_t>(n - done, 1ull << 30));
    ssize_t r = ::pread(fd_, p + done, want, off_t(offset + done));
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) return ReadFailed(fd_, stats_, path_, offset, n, done, r < 0 ? errno : 0);
    done += uint64_t(r);
  }
  CountIo(stats_->read_bytes, n);
  return Status::OK();
}

Status File::PReadOnce(uint64_t offset, void* buf, uint64_t n) const {
  CountIo(stats_->read_requests);
  constexpr uint64_t kPiece = 8ull << 20;
  char* p = static_cast<char*>(buf);
  uint64_t done = 0, dropped = 0;
  while (done < n) {
    size_t want = size_t(std::min<uint64_t>(n - done, kPiece));
    ssize_t r = ::pread(fd_, p + done, want, off_t(offset + done));
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) return ReadFailed(fd_, stats_, path_, offset, n, done, r < 0 ? errno : 0);
    done += uint64_t(r);
    if (done - dropped >= kPiece || done == n) {
      ::posix_fadvise(fd_, off_t(offset + dropped), off_t(done - dropped), POSIX_FADV_DONTNEED);
      dropped = done;
    }
  }
  CountIo(stats_->read_bytes, n);
  return Status::OK();
}

Status File::PReadV(uint64_t offset, const struct iovec* iov, int iovcnt, uint64_t n) const {
  CountIo(stats_->read_requests);
  // The caller's vector is not copied (no allocation per call): progress is
  // the first entry not yet filled and the bytes of it already read. After
  // a short transfer that ends inside an entry, the rest of that entry is
  // read on its own (pread), then preadv goes on from the next entry.
  int first = 0;
  size_t skip = 0;  // bytes of iov[first] already read
  uint64_t done = 0;
  while (done < n) {
    ssize_t r = skip == 0 ? ::preadv(fd_, iov + first, iovcnt - first, off_t(offset + done))
                          : ::pread(fd_, static_cast<char*>(iov[first].iov_base) + skip,
                                    iov[first].iov_len - skip, off_t(offset + done));
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) return ReadFailed(fd_, stats_, path_, offset, n, done, r < 0 ? errno : 0);
    done += uint64_t(r);
    size_t left = size_t(r);
    while (first < iovcnt && left >= iov[first].iov_len - skip) {  // also steps over empty entries
      left -= iov[first].iov_len - skip;
      skip = 0;
      first++;
    }
    skip += left;  // 0 when every entry is filled
  }
  CountIo(stats_->read_bytes, n);
  return Status::OK();
}

void File::WillNeed(uint64_t offset, uint64_t n) const {
  ::posix_fadvise(fd_, off_t(offset), off_t(n), POSIX_FADV_WILLNEED);
}

Status File::PWrite(uint64_t offset, const void* buf, uint64_t n) {
  CountIo(stats_->write_requests);
  FaultOp fault(FaultOp::kWrite, fd_, path_, offset, n);
  const char* p = static_cast<const char*>(buf);
  uint64_t done = 0;
  while (done < n) {
    size_t want = size_t(std::min<uint64_t>(n - done, 1ull << 30));
    ssize_t r = ::pwrite(fd_, p + done, want, off_t(offset + done));
    if (r < 0) {
      if (errno == EINTR) continue;
      return Status::FromErrno("write " + path_ + " at offset " + std::to_string(offset + done), errno);
    }
    done += uint64_t(r);
  }
  CountIo(stats_->write_bytes, n);
  return Status::OK();
}

void File::StartWriteback(uint64_t offset, uint64_t n) {
  CountIo(stats_->writeback_requests);
#ifdef __linux__
  ::sync_file_range(fd_, off64_t(offset), off64_t(n), SYNC_FILE_RANGE_WRITE);
#else
  (void)offset;
  (void)n;
#endif
}

Status File::WaitWriteback(uint64_t offset, uint64_t n) {
  CountIo(stats_->writeback_requests);
#ifdef __linux__
  // Test hook: CAIRN_TEST_FAIL_WRITEBACK=1 makes this wait fail with EIO,
  // as a writeback error the kernel reports here (and then no longer to a
  // later fsync of this descriptor) would.
  Status failed;
  if (const char* f = std::getenv("CAIRN_TEST_FAIL_WRITEBACK"); f && std::strcmp(f, "1") == 0) {
    failed = Status::FromErrno("write back " + path_ + " (CAIRN_TEST_FAIL_WRITEBACK)", EIO);
  } else {
    const unsigned flags = SYNC_FILE_RANGE_WAIT_BEFORE | SYNC_FILE_RANGE_WRITE | SYNC_FILE_RANGE_WAIT_AFTER;
    FaultOp fault(FaultOp::kWriteBack, fd_, path_, offset, n);
    if (::sync_file_range(fd_, off64_t(offset), off64_t(n), flags) != 0)
      failed = Status::FromErrno("write back " + std::to_string(n) + " bytes at " + std::to_string(offset) + " of " +
                                 path_, errno);
    else
      fault.Done();
  }
  if (!failed.ok()) {
    std::lock_guard<std::mutex> l(wb_mu_);
    if (wb_error_.ok()) wb_error_ = failed;
    return failed;
  }
#else
  (void)offset;
  (void)n;
#endif
  return Status::OK();
}

Status File::Sync() {
  CountIo(stats_->fsyncs);
  // Test hook: CAIRN_TEST_FAIL_FSYNC=1 in a process's environment makes its
  // fsyncs of files fail with EIO, as a failed writeback would (a test sets
  // it on one rank to check that every rank agrees on the failure).
  if (const char* f = std::getenv("CAIRN_TEST_FAIL_FSYNC"); f && std::strcmp(f, "1") == 0)
    return Status::FromErrno("fsync " + path_ + " (CAIRN_TEST_FAIL_FSYNC)", EIO);
  // Test hook: CAIRN_TEST_FAIL_MANIFEST_FSYNC=K makes the K-th fsync of a
  // file named MANIFEST in this process fail with EIO (once), before the
  // call, so nothing of the file is made durable (power_loss_test.py
  // --failed-record: the cut-back of a record whose fsync failed).
  if (const char* f = std::getenv("CAIRN_TEST_FAIL_MANIFEST_FSYNC");
      f && *f && path_.size() >= 9 && path_.compare(path_.size() - 9, 9, "/MANIFEST") == 0) {
    static std::atomic<long> manifest_fsyncs{0};
    if (++manifest_fsyncs == std::atol(f))
      return Status::FromErrno("fsync " + path_ + " (CAIRN_TEST_FAIL_MANIFEST_FSYNC)", EIO);
  }
  {
    std::lock_guard<std::mutex> l(wb_mu_);
    if (!wb_error_.ok())
      return Status(wb_error_.code(), "fsync " + path_ + ": an earlier writeback of the file failed (" +
                                          wb_error_.message() + "), which the kernel reports only once");
  }
  FaultOp fault(FaultOp::kSync, fd_, path_);
  if (::fsync(fd_) != 0) return Status::FromErrno("fsync " + path_, errno);
  fault.Done();
  return Status::OK();
}

Status File::Size(uint64_t* size) const {
  // lseek is not a metadata operation (no inode lookup, no server round
  // trip on Lustre beyond the glimpse it shares with fstat) but count it as
  // a stat to be conservative.
  CountIo(stats_->stats);
  off_t end = ::lseek(fd_, 0, SEEK_END);
  if (end < 0) return Status::FromErrno("seek " + path_, errno);
  *size = uint64_t(end);
  return Status::OK();
}

Status File::Truncate(uint64_t size) {
  CountIo(stats_->truncates);
  FaultOp fault(FaultOp::kTruncate, fd_, path_, 0, size);
  if (::ftruncate(fd_, off_t(size)) != 0) return Status::FromErrno("truncate " + path_, errno);
  return Status::OK();
}

Status File::Rename(const std::string& to) {
  CountIo(stats_->renames);
  FaultOp fault(path_, to);
  if (::rename(path_.c_str(), to.c_str()) != 0) return Status::FromErrno("rename " + path_ + " to " + to, errno);
  fault.Done();
  path_ = to;
  return Status::OK();
}

void File::DropCache(uint64_t offset, uint64_t n) const {
  ::posix_fadvise(fd_, off_t(offset), off_t(n), POSIX_FADV_DONTNEED);
}

Status MakeDir(const std::string& path, IoStats* stats, bool* created) {
  CountIo(stats->mkdirs);
  FaultOp fault(FaultOp::kMkdir, -1, path);
  if (::mkdir(path.c_str(), 0755) == 0) {
    fault.Done();
    *created = true;
    return Status::OK();
  }
  int err = errno;
  *created = false;
  if (err == EEXIST) {
    bool is_dir = false;
    if (PathExists(path, stats, &is_dir) && is_dir) return Status::OK();
    return Status::InvalidArgument(path + " exists and is not a directory");
  }
  return Status::FromErrno("mkdir " + path, err);
}

Status SyncDir(const std::string& path, IoStats* stats) {
  CountIo(stats->opens);
  int fd = ::open(path.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return Status::FromErrno("open directory " + path, errno);
  CountIo(stats->fsyncs);
  FaultOp fault(FaultOp::kSyncDir, -1, path);
  int rc = ::fsync(fd);
  int err = errno;
  if (rc == 0) fault.Done();
  ::close(fd);
  if (rc != 0) return Status::FromErrno("fsync directory " + path, err);
  return Status::OK();
}

bool PathExists(const std::string& path, IoStats* stats, bool* is_dir) {
  CountIo(stats->stats);
  struct stat st;
  if (::stat(path.c_str(), &st) != 0) return false;
  if (is_dir) *is_dir = S_ISDIR(st.st_mode);
  return true;
}

bool FileIdentity(const std::string& path, IoStats* stats, uint64_t* dev, uint64_t* ino) {
  CountIo(stats->stats);
  struct stat st;
  if (::stat(path.c_str(), &st) != 0) return false;
  *dev = uint64_t(st.st_dev);
  *ino = uint64_t(st.st_ino);
  return true;
}

Status ListDir(const std::string& path, IoStats* stats, std::vector<std::string>* names) {
  names->clear();
  CountIo(stats->opens);
  DIR* d = ::opendir(path.c_str());
  if (!d) return Status::FromErrno("open directory " + path, errno);
  errno = 0;
  while (struct dirent* e = ::readdir(d)) {
    std::string n = e->d_name;
    if (n != "." && n != "..") names->push_back(std::move(n));
  }
  int err = errno;
  ::closedir(d);
  if (err != 0) return Status::FromErrno("read directory " + path, err);
  return Status::OK();
}

}  // namespace cairn
