#include "io/io_queue.h"

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <exception>
#include <new>
#include <string>
#include <thread>

namespace cairn {

namespace {
uint64_t TestDelayUs() {
  const char* e = std::getenv("CAIRN_TEST_IO_DELAY_US");
  return e && *e ? std::strtoull(e, nullptr, 10) : 0;
}
}  // namespace

IoQueue::IoQueue(uint64_t staging_limit, IoStats* stats)
    : limit_(staging_limit), stats_(stats), test_delay_us_(TestDelayUs()), thread_([this] { Run(); }) {}

IoQueue::~IoQueue() {
  {
    std::unique_lock<std::mutex> l(mu_);
    stop_ = true;
  }
  work_cv_.notify_all();
  thread_.join();
}

std::string IoQueue::Acquire(size_t cap) {
  std::unique_lock<std::mutex> l(mu_);
  if (staged_ > 0 && staged_ + cap > limit_) {
    auto t0 = std::chrono::steady_clock::now();
    pool_cv_.wait(l, [&] { return staged_ == 0 || staged_ + cap <= limit_; });
    auto ns = std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - t0).count();
    CountIo(stats_->staging_stalls);
    CountIo(stats_->staging_stall_ns, uint64_t(ns));
  }
  std::string buf;
  while (!pool_.empty()) {
    buf = std::move(pool_.back());
    pool_.pop_back();
    if (buf.capacity() >= cap) break;
    buf = std::string();  // too small for this writer: let it go
  }
  buf.clear();
  if (buf.capacity() < cap) buf.reserve(cap);
  staged_ += buf.capacity();
  return buf;
}

void IoQueue::Prefault(size_t cap) {
  std::unique_lock<std::mutex> l(mu_);
  for (uint64_t held = 0; held + cap <= limit_; held += cap) {
    std::string b;
    b.resize(cap);  // writes every page
    b.clear();      // keeps the capacity
    pool_.push_back(std::move(b));
  }
}

void IoQueue::Release(std::string buf) {
  std::unique_lock<std::mutex> l(mu_);
  staged_ -= std::min<uint64_t>(staged_, buf.capacity());
  buf.clear();
  pool_.push_back(std::move(buf));
  pool_cv_.notify_all();
}

uint64_t IoQueue::SubmitWrite(File* file, uint64_t offset, std::string&& buf) {
  std::unique_lock<std::mutex> l(mu_);
  // The job's room first (a new deque node may be needed): if there is no
  // memory for it, nothing is queued, no ticket is taken and `buf` keeps
  // its bytes. Nothing below allocates (the job writes its own buffer: no
  // closure to allocate once it is queued).
  jobs_.emplace_back();
  Job& j = jobs_.back();
  j.ticket = next_ticket_++;
  j.file = file;
  j.offset = offset;
  j.buf = std::move(buf);
  work_cv_.notify_one();
  return j.ticket;
}

uint64_t IoQueue::SubmitWriteFrom(File* file, uint64_t offset, const char* p, uint64_t n) {
  return Submit([file, offset, p, n] { return file->PWrite(offset, p, n); });
}

uint64_t IoQueue::Submit(std::function<Status()> job) {
  std::unique_lock<std::mutex> l(mu_);
  jobs_.emplace_back();  // (as SubmitWrite: no ticket taken if this throws)
  Job& j = jobs_.back();
  j.ticket = next_ticket_++;
  j.fn = std::move(job);
  work_cv_.notify_one();
  return j.ticket;
}

bool IoQueue::Done(uint64_t ticket) const {
  std::unique_lock<std::mutex> l(mu_);
  return finished_ >= ticket;
}

Status IoQueue::Wait(uint64_t ticket) {
  std::unique_lock<std::mutex> l(mu_);
  if (ticket == 0) ticket = next_ticket_ - 1;
  done_cv_.wait(l, [&] { return finished_ >= ticket; });
  return error_;
}

Status IoQueue::error() const {
  std::unique_lock<std::mutex> l(mu_);
  return error_;
}

Status IoQueue::ClearError() {
  std::unique_lock<std::mutex> l(mu_);
  uint64_t ticket = next_ticket_ - 1;
  done_cv_.wait(l, [&] { return finished_ >= ticket; });
  Status s = error_;
  error_ = Status::OK();
  return s;
}

namespace {
// The failure of a job that threw (in a catch block only). Nothing may
// leave the thread (std::terminate would end the process): the exception
// becomes the queue's error, which the next Wait, Flush or commit reports.
// If even its message cannot be allocated, a message short enough for the
// string's inline buffer (at most 15 bytes in libstdc++ and libc++: no
// allocation) says what happened.
Status JobThrew() noexcept {
  const char* after = "; every job queued after it was skipped (nothing after it was written)";
  try {
    try {
      throw;
    } catch (const std::bad_alloc&) {
      return Status::IOError(std::string("a job of the I/O thread ran out of memory (std::bad_alloc)") + after);
    } catch (const std::exception& e) {
      return Status::IOError(std::string("a job of the I/O thread failed: ") + e.what() + after);
    } catch (...) {
      return Status::IOError(std::string("a job of the I/O thread threw an unknown exception") + after);
    }
  } catch (...) {
    return Status(Status::Code::kIOError, "out of memory");
  }
}
}  // namespace

Status IoQueue::RunJob(Job& j) noexcept {
  try {
    return j.fn ? j.fn() : j.file->PWrite(j.offset, j.buf.data(), j.buf.size());
  } catch (...) {
    return JobThrew();
  }
}

void IoQueue::Run() {
  std::unique_lock<std::mutex> l(mu_);
  for (;;) {
    work_cv_.wait(l, [&] { return stop_ || !jobs_.empty(); });
    if (jobs_.empty()) return;  // stop_ and nothing left
    // The job stays at the front of the deque while it runs (a write's
    // buffer is there).
    Job& j = jobs_.front();
    bool skip = !error_.ok();  // (a flag: a copy of the error may not be had)
    l.unlock();
    if (test_delay_us_) std::this_thread::sleep_for(std::chrono::microseconds(test_delay_us_));
    Status s;
    if (!skip) s = RunJob(j);
    l.lock();
    if (!s.ok() && error_.ok()) error_ = std::move(s);
    finished_ = j.ticket;
    if (j.buf.capacity() > 0) {
      staged_ -= std::min<uint64_t>(staged_, j.buf.capacity());
      j.buf.clear();
      try {
        pool_.push_back(std::move(j.buf));
      } catch (const std::bad_alloc&) {
        // No room in the pool: the buffer is freed (with the job) instead.
      }
      pool_cv_.notify_all();
    }
    jobs_.pop_front();
    done_cv_.notify_all();
  }
}

}  // namespace cairn
