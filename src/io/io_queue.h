// The background I/O thread of a writable store opened with staging memory
// (Options::staging_bytes > 0), and the bounded pool of staging buffers
// that puts copy their values into. Jobs run one at a time, in the order
// they were submitted; the thread makes no MPI call, so MPI needs no more
// than MPI_THREAD_FUNNELED.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "cairn/status.h"
#include "cairn/store.h"
#include "io/file.h"

namespace cairn {

class IoQueue {
 public:
  // `staging_limit`: most bytes of staging buffers held at once (queued,
  // being written, or being filled). Stalls are counted in *stats.
  IoQueue(uint64_t staging_limit, IoStats* stats);
  // Waits for every queued job, then stops the thread.
  ~IoQueue();
  IoQueue(const IoQueue&) = delete;
  IoQueue& operator=(const IoQueue&) = delete;

  // An empty buffer with capacity >= cap. Blocks while holding it would pass
  // the staging limit and some staged bytes are still being written (so one
  // buffer is always granted, whatever the limit).
  std::string Acquire(size_t cap);
  // Fills the pool with as many buffers of `cap` bytes as the staging limit
  // holds, their pages touched, so that no checkpoint pays the page faults
  // of fresh memory (the first would otherwise: ~1 per 4 KiB).
  void Prefault(size_t cap);
  // Returns a buffer that will not be written (its bytes are dropped).
  void Release(std::string buf);
  // Queues a write of `buf` at `offset` of `file`; the buffer goes back to
  // the pool once written. Returns the job's ticket. On std::bad_alloc
  // nothing is queued and `buf` keeps its bytes (the caller's to hand again).
  uint64_t SubmitWrite(File* file, uint64_t offset, std::string&& buf);
  // Queues a write of n bytes at p, memory the caller keeps unchanged
  // until the job has finished (zero-copy puts). Returns its ticket.
  uint64_t SubmitWriteFrom(File* file, uint64_t offset, const char* p, uint64_t n);
  // Queues any job; returns its ticket (tickets grow by one per job).
  uint64_t Submit(std::function<Status()> job);
  // Whether job `ticket` has finished (local, never blocks).
  bool Done(uint64_t ticket) const;
  // Blocks until job `ticket` (0: every job queued so far) has finished;
  // returns the first failure of any job so far, or ok.
  Status Wait(uint64_t ticket = 0);
  // The first failure of any job, or ok. After a failure every later job is
  // skipped and reports it: bytes queued behind a failed write may depend
  // on it, so nothing after it is trusted. A job that throws (std::bad_alloc
  // in a job that allocates, or any other exception) fails so, with an
  // IOError saying what it threw: no exception leaves the thread.
  Status error() const;
  // Waits for every job queued so far, then forgets the first failure (the
  // caller has dropped whatever depended on the failed jobs) and returns it.
  Status ClearError();

 private:
  void Run();
  struct Job;
  // Runs one job; an exception it throws (std::bad_alloc, any other)
  // becomes its failed status (an IOError saying so).
  static Status RunJob(Job& j) noexcept;
  struct Job {
    uint64_t ticket = 0;
    std::function<Status()> fn;  // else a write of buf at offset of file
    std::string buf;  // a write's staging buffer, returned to the pool after
    File* file = nullptr;
    uint64_t offset = 0;
  };
  mutable std::mutex mu_;
  std::condition_variable work_cv_, done_cv_, pool_cv_;
  std::deque<Job> jobs_;
  std::vector<std::string> pool_;  // empty buffers with capacity, for reuse
  uint64_t staged_ = 0;            // capacity of the buffers handed out
  uint64_t limit_;
  uint64_t next_ticket_ = 1;
  uint64_t finished_ = 0;          // every ticket <= this has finished
  Status error_;
  bool stop_ = false;
  IoStats* stats_;
  // Test hook: CAIRN_TEST_IO_DELAY_US=N makes the thread sleep N us before
  // each job, so that a test can make staging fill up (off when unset).
  uint64_t test_delay_us_;
  std::thread thread_;
};

}  // namespace cairn
