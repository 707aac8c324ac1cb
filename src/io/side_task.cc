#include "io/side_task.h"

#include <system_error>
#include <utility>

namespace cairn {

SideTask::SideTask(std::function<Status()> job) noexcept : job_(std::move(job)) {
  try {
    thread_ = std::thread([this] {
      try {
        status_ = job_();
      } catch (...) {
        thrown_ = std::current_exception();
      }
    });
  } catch (...) {
    // std::system_error (no thread) or std::bad_alloc: Join runs the job.
  }
}

SideTask::~SideTask() {
  if (thread_.joinable()) thread_.join();
}

Status SideTask::Join() {
  if (thread_.joinable()) {
    thread_.join();
    job_ = nullptr;  // (ran: a second Join returns what is left, never runs it again)
  } else if (job_) {
    std::function<Status()> job = std::move(job_);
    job_ = nullptr;
    return job();  // (no thread was started: in sequence, here)
  }
  if (thrown_) std::rethrow_exception(std::exchange(thrown_, nullptr));
  return std::move(status_);
}

}  // namespace cairn
