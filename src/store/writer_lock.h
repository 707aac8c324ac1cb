// The exclusive writer lock of a store: held by a read-write handle (rank 0
// of its job) from Open to Close, and by `cairn drop/pin/unpin` for their
// one record, so that two writers never append to one MANIFEST. The lock
// is flock() on <store>/LOCK, which the kernel releases when its holder
// dies (kill -9 included). The file holds a text description of the
// holder (doc/format.md) and is never removed. doc/design.md tells what
// parallel file systems do with it.
#pragma once

#include <memory>
#include <string>

#include "cairn/status.h"
#include "cairn/store.h"
#include "io/file.h"

namespace cairn {

constexpr char kLockName[] = "LOCK";

class WriterLock {
 public:
  // Takes the writer lock of the store directory `dir` without waiting.
  // Held by anyone else (another process, or another handle in this one):
  // IOError "store DIR is open for writing by host H, pid P, <job>, since T".
  // The file system cannot lock (flock fails with ENOSYS, EOPNOTSUPP,
  // ENOLCK: Lustre without -o flock, some NFS setups): NotSupported naming
  // the cause, unless `required` is false, when it warns on stderr and
  // returns a lock that holds nothing against other processes.
  static Status Acquire(const std::string& dir, bool required, IoStats* stats,
                        std::unique_ptr<WriterLock>* lock);
  // Releases the lock (the file stays).
  ~WriterLock();

  WriterLock(const WriterLock&) = delete;
  WriterLock& operator=(const WriterLock&) = delete;

  // What this process writes into LOCK: "cairn-lock 1\nhost H\npid P\n
  // [job NAME=ID\n]since T\n" (doc/format.md).
  static std::string Describe();
  // A description read from LOCK as words for a message ("host H, pid P,
  // SLURM_JOB_ID 42, since T"); unknown or empty text says so.
  static std::string Holder(const std::string& text);

 private:
  WriterLock() = default;
  std::unique_ptr<File> file_;
  uint64_t dev_ = 0, ino_ = 0;  // key in this process's table of held locks
  bool registered_ = false;
};

}  // namespace cairn
