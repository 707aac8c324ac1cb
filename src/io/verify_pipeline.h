// A second thread for the coalesced read path (io/coalescing_reader.h): it
// runs the `done` callbacks of one request (checksum verification, copies
// out of side buffers) while the reading thread issues the next pread, so
// that a large read costs max(read, verify) per request instead of the sum.
//
// One worker per process, started on first use and joined at exit (it makes
// no MPI call). One read holds it at a time: a read that finds it held by
// another thread runs its callbacks itself. At most one batch is in flight:
// handing over the next batch first waits for the previous one, so nothing
// queues up. A read of one request never uses it (ReadCoalesced runs the
// callbacks of the last request itself). A process forked after the
// worker started reads without it.
#pragma once

#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <mutex>
#include <thread>

#include "io/coalescing_reader.h"

namespace cairn {

class VerifyPipeline {
 public:
  // The process's worker, taken for one read; nullptr when another read
  // holds it. Give it back with Release.
  static VerifyPipeline* TryAcquire();
  // Waits for the batch in flight, then gives the worker back. Never throws.
  void Release();

  // Hands over done(r[m]) for m in [first, last) (ranges of length 0
  // skipped when skip_empty), after waiting for the previous batch. `done`
  // and `r` must stay unchanged until Wait or Release returns.
  void Submit(const RangeDone* done, const ReadRange* r, size_t first, size_t last, bool skip_empty);
  // Waits until the batch in flight has run; rethrows what it threw.
  void Wait();

  // Batches run by the worker since the process started (tests: shows
  // that a read went through the pipeline).
  static uint64_t batches();

  VerifyPipeline();
  ~VerifyPipeline();  // stops and joins the worker
  VerifyPipeline(const VerifyPipeline&) = delete;
  VerifyPipeline& operator=(const VerifyPipeline&) = delete;

 private:
  void Run();
  void WaitLocked(std::unique_lock<std::mutex>& lock);

  std::mutex mu_;
  std::condition_variable work_cv_, idle_cv_;
  bool held_ = false;  // a read holds the worker
  bool busy_ = false;  // a batch is handed over and not finished
  bool stop_ = false;
  const RangeDone* done_ = nullptr;
  const ReadRange* r_ = nullptr;
  size_t first_ = 0, last_ = 0;
  bool skip_empty_ = false;
  std::exception_ptr thrown_;
  const long pid_;  // the process that started the worker (a forked child has none)
  std::thread thread_;
};

}  // namespace cairn
