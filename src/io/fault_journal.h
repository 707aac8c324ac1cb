// A test hook for power-loss testing (tests/power_loss_test.py), off unless
// the environment variable CAIRN_FAULT_JOURNAL names a journal file. When
// off, a FaultOp is one test of a flag set once at start-up, and nothing else.
//
// When on, every mutating file-system call of cairn (File::PWrite, Sync,
// Truncate, a file created by File::Open, MakeDir, SyncDir, and the wait
// for writeback, File::WaitWriteback) appends one
// record to the journal, which every process of a job (and of the jobs that
// follow it until the next simulated power loss) shares: a write with the
// bytes and file size it replaces, an fsync of a file or a directory, a new
// directory entry, a rename (with the bytes of the file it replaced). The journal is locked (flock, and a mutex between the
// threads of a process) around each call and its record, so the records
// are in the order the calls happened, across ranks and threads. The
// replay in tests/power_loss_test.py then undoes whatever was not durable.
//
// The cut: CAIRN_FAULT_CUT=K makes the call that would be the journal's
// K-th (counted from 0 over all processes since the journal was made) not
// happen: the journal is marked cut and the process _exits; every later
// call of any process finds the mark and _exits too, so nothing changes on
// disk after the cut. The byte layout is in tests/power_loss_test.py.
#pragma once

#include <cstdint>
#include <string>

namespace cairn {

class FaultOp {
 public:
  // kWriteBack: a wait for a range's writeback (sync_file_range), which
  // makes nothing durable; journaled so that a cut can land on it and a
  // test can see the path was taken (the replay ignores it).
  enum Kind : uint32_t {
    kWrite = 1, kSync = 2, kTruncate = 3, kCreate = 4, kMkdir = 5, kSyncDir = 6, kRename = 7, kWriteBack = 8
  };
  // Before the call. kWrite: `arg` is the length written at `offset`;
  // kTruncate: `arg` is the new size; fd is the file's (-1 for the others).
  FaultOp(Kind kind, int fd, const std::string& path, uint64_t offset = 0, uint64_t arg = 0) {
    if (enabled_) Begin(kind, fd, path, offset, arg);
  }
  // kRename of `from` over `to`, before the call: the journal keeps what
  // `to` held, so the replay can undo a rename whose directory was not
  // fsynced after it. Recorded only if it succeeded (Done).
  FaultOp(const std::string& from, const std::string& to) {
    if (enabled_) BeginRename(from, to);
  }
  // After the call: kCreate, kMkdir, kSync, kSyncDir and kWriteBack are recorded only if
  // it succeeded (Done), since they make something exist or durable.
  void Done() {
    if (active_) done_ = true;
  }
  ~FaultOp() {
    if (active_) End();
  }
  FaultOp(const FaultOp&) = delete;
  FaultOp& operator=(const FaultOp&) = delete;

 private:
  void Begin(Kind kind, int fd, const std::string& path, uint64_t offset, uint64_t arg);
  void BeginRename(const std::string& from, const std::string& to);
  void End();
  static const bool enabled_;
  bool active_ = false;
  bool done_ = false;
  Kind kind_ = kWrite;
  std::string path_;
  std::string data_;  // kRename: the target's path, a NUL, the target's bytes
  uint64_t a_ = 0;    // kRename: 1 if the target existed
};

}  // namespace cairn
