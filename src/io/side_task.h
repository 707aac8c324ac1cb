// SideTask: one job run on its own thread beside the caller's work, for
// fsyncs that need not wait for each other. A journaling file system
// (ext4, XFS) makes each fsync a journal commit; fsyncs issued together
// share one, where the same fsyncs in sequence pay one each (a file and its
// two directories: 14.5 ms in sequence against 6.5 ms together on this
// project's test machine, doc/design.md "Which fsyncs run together").
#pragma once

#include <exception>
#include <functional>
#include <thread>

#include "cairn/status.h"

namespace cairn {

class SideTask {
 public:
  // Starts `job` on a new thread. If no thread can be started (too many
  // threads, no memory), nothing runs now and Join runs the job itself:
  // the same result, in sequence. Never throws.
  explicit SideTask(std::function<Status()> job) noexcept;
  // Waits for the job's thread if Join was not called (its result is
  // dropped); a job that got no thread then never runs.
  ~SideTask();
  SideTask(const SideTask&) = delete;
  SideTask& operator=(const SideTask&) = delete;

  // Waits for the job and returns its status; an exception the job threw
  // (std::bad_alloc) is thrown here, in the caller's thread. Call once.
  Status Join();

 private:
  std::function<Status()> job_;
  std::thread thread_;
  Status status_;
  std::exception_ptr thrown_;
};

}  // namespace cairn
