// The writer lock: flock() on <store>/LOCK plus a table of the locks this
// process holds (see writer_lock.h; doc/design.md "The writer lock").
#include "store/writer_lock.h"

#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <map>
#include <mutex>
#include <utility>

namespace cairn {

namespace {

// The locks held by this process, by (device, inode) of their LOCK file,
// with the description written into each. flock() already conflicts
// between two descriptors of one process, but where it is emulated with
// fcntl() record locks (NFS) it does not, so handles of one process are
// checked here too.
std::mutex& HeldMu() {
  static std::mutex mu;
  return mu;
}
std::map<std::pair<uint64_t, uint64_t>, std::string>& Held() {
  static std::map<std::pair<uint64_t, uint64_t>, std::string> held;
  return held;
}

Status Busy(const std::string& dir, const std::string& holder) {
  return Status::IOError("store " + dir + " is open for writing by " + holder +
                         "; only one writer at a time (the lock is " + dir + "/" + kLockName +
                         ", released when that writer closes the store or its process ends)");
}

}  // namespace

std::string WriterLock::Describe() {
  char host[256] = {0};
  if (::gethostname(host, sizeof host - 1) != 0) std::strcpy(host, "unknown");
  std::string d = "cairn-lock 1\nhost " + std::string(host) + "\npid " + std::to_string(::getpid()) + "\n";
  for (const char* name : {"SLURM_JOB_ID", "PBS_JOBID", "LSB_JOBID"}) {
    const char* v = std::getenv(name);
    if (v && *v && !std::strchr(v, '\n')) {
      d += "job " + std::string(name) + "=" + v + "\n";
      break;
    }
  }
  time_t now = std::time(nullptr);
  struct tm utc;
  char when[32];
  std::strftime(when, sizeof when, "%Y-%m-%dT%H:%M:%SZ", gmtime_r(&now, &utc));
  return d + "since " + when + "\n";
}

std::string WriterLock::Holder(const std::string& text) {
  if (text.rfind("cairn-lock 1\n", 0) != 0)
    return "a process that has not yet described itself in " + std::string(kLockName);
  std::string out;
  size_t pos = text.find('\n') + 1;
  while (pos < text.size()) {
    size_t end = text.find('\n', pos);
    if (end == std::string::npos) break;  // a line still being written
    std::string line = text.substr(pos, end - pos);
    pos = end + 1;
    size_t sp = line.find(' ');
    if (sp == std::string::npos) continue;
    std::string key = line.substr(0, sp), value = line.substr(sp + 1);
    if (key == "job") {
      size_t eq = value.find('=');
      if (eq != std::string::npos) value[eq] = ' ';
      key.clear();
    }
    out += (out.empty() ? "" : ", ") + key + (key.empty() ? "" : " ") + value;
  }
  return out.empty() ? "an unknown process" : out;
}

Status WriterLock::Acquire(const std::string& dir, bool required, IoStats* stats,
                           std::unique_ptr<WriterLock>* lock) {
  lock->reset();
  std::string path = dir + "/" + kLockName;
  std::unique_ptr<WriterLock> l(new WriterLock());
  // A handle of this process holds it: answered from the table, without
  // opening the file (closing a second descriptor of a file drops this
  // process's fcntl locks on it, which is what flock is on NFS).
  if (FileIdentity(path, stats, &l->dev_, &l->ino_)) {
    std::lock_guard<std::mutex> g(HeldMu());
    auto it = Held().find({l->dev_, l->ino_});
    if (it != Held().end()) return Busy(dir, "another handle in this process (" + Holder(it->second) + ")");
  }
  Status s = File::Open(path, File::kCreate, stats, &l->file_);
  if (!s.ok()) return s.WithContext("writer lock of store " + dir);
  int rc;
  do rc = ::flock(l->file_->fd(), LOCK_EX | LOCK_NB);
  while (rc != 0 && errno == EINTR);
  // Tests: CAIRN_TEST_FLOCK_ERRNO=N makes flock fail with errno N, as on a
  // file system that cannot lock (one getenv per writable open).
  if (const char* fake = std::getenv("CAIRN_TEST_FLOCK_ERRNO"); fake && std::atoi(fake) > 0) {
    if (rc == 0) ::flock(l->file_->fd(), LOCK_UN);
    rc = -1;
    errno = std::atoi(fake);
  }
  if (rc != 0) {
    int err = errno;
    if (err == EWOULDBLOCK) {
      uint64_t size = 0;
      std::string text;
      if (l->file_->Size(&size).ok()) {
        text.resize(std::min<uint64_t>(size, 4096));
        if (!l->file_->PRead(0, text.data(), text.size()).ok()) text.clear();
      }
      return Busy(dir, Holder(text));
    }
    std::string why = "the file system of " + dir + " cannot lock files (flock " + path + ": " +
                      std::strerror(err) + "; on Lustre, mount the clients with -o flock)";
    if (required)
      return Status::NotSupported(why + "; set Options::require_writer_lock = false to write without the "
                                  "lock, if you make sure yourself that no other job writes this store");
    std::fprintf(stderr, "cairn: warning: %s; writing without the writer lock (require_writer_lock is "
                 "false): nothing stops a second writer\n", why.c_str());
  }
  std::string desc = Describe();
  if (!FileIdentity(path, stats, &l->dev_, &l->ino_)) return Status::IOError(path + " vanished while locked");
  {
    std::lock_guard<std::mutex> g(HeldMu());
    auto it = Held().find({l->dev_, l->ino_});
    if (it != Held().end())  // another thread of this process took it meanwhile
      return Busy(dir, "another handle in this process (" + Holder(it->second) + ")");
    Held()[{l->dev_, l->ino_}] = desc;
    l->registered_ = true;
  }
  // Who holds it, for the next writer's message. Not synced: it describes
  // a live process, and a crash ends that process and its lock anyway.
  if (l->file_->PWrite(0, desc.data(), desc.size()).ok()) (void)l->file_->Truncate(desc.size());
  *lock = std::move(l);
  return Status::OK();
}

WriterLock::~WriterLock() {
  if (registered_) {
    std::lock_guard<std::mutex> g(HeldMu());
    Held().erase({dev_, ino_});
  }
  if (file_) ::flock(file_->fd(), LOCK_UN);
}

}  // namespace cairn
