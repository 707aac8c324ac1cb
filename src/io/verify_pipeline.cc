#include "io/verify_pipeline.h"

#include <unistd.h>

#include <atomic>
#include <cstdlib>
#include <cstring>

namespace cairn {

namespace {
std::atomic<uint64_t> g_batches{0};
}  // namespace

VerifyPipeline::VerifyPipeline() : pid_(getpid()), thread_([this] { Run(); }) {}

VerifyPipeline::~VerifyPipeline() {
  {
    std::lock_guard<std::mutex> l(mu_);
    stop_ = true;
  }
  work_cv_.notify_one();
  thread_.join();
}

VerifyPipeline* VerifyPipeline::TryAcquire() {
  // Benchmark hook: CAIRN_READ_PIPELINE=0 runs every callback in the
  // reading thread (as before the pipeline), for A/B runs of one binary.
  static const bool off = [] {
    const char* v = std::getenv("CAIRN_READ_PIPELINE");
    return v != nullptr && std::strcmp(v, "0") == 0;
  }();
  if (off) return nullptr;
  static VerifyPipeline worker;  // started on first use, joined at exit
  // A child forked after the first read has no worker thread: it reads
  // without one.
  if (getpid() != worker.pid_) return nullptr;
  std::lock_guard<std::mutex> l(worker.mu_);
  if (worker.held_) return nullptr;
  worker.held_ = true;
  return &worker;
}

void VerifyPipeline::Release() {
  std::unique_lock<std::mutex> l(mu_);
  idle_cv_.wait(l, [this] { return !busy_; });
  thrown_ = nullptr;  // the caller is already unwinding, or called Wait
  held_ = false;
}

uint64_t VerifyPipeline::batches() { return g_batches.load(std::memory_order_relaxed); }

void VerifyPipeline::WaitLocked(std::unique_lock<std::mutex>& l) {
  idle_cv_.wait(l, [this] { return !busy_; });
  if (thrown_) {
    std::exception_ptr e = thrown_;
    thrown_ = nullptr;
    std::rethrow_exception(e);
  }
}

void VerifyPipeline::Wait() {
  std::unique_lock<std::mutex> l(mu_);
  WaitLocked(l);
}

void VerifyPipeline::Submit(const RangeDone* done, const ReadRange* r, size_t first, size_t last,
                            bool skip_empty) {
  {
    std::unique_lock<std::mutex> l(mu_);
    WaitLocked(l);
    done_ = done;
    r_ = r;
    first_ = first;
    last_ = last;
    skip_empty_ = skip_empty;
    busy_ = true;
  }
  work_cv_.notify_one();
}

void VerifyPipeline::Run() {
  std::unique_lock<std::mutex> l(mu_);
  for (;;) {
    work_cv_.wait(l, [this] { return stop_ || busy_; });
    if (busy_) {
      const RangeDone& done = *done_;
      const ReadRange* r = r_;
      size_t first = first_, last = last_;
      bool skip = skip_empty_;
      l.unlock();
      std::exception_ptr e;
      try {
        for (size_t m = first; m < last; m++)
          if (!skip || r[m].length != 0) done(r[m]);
      } catch (...) {
        e = std::current_exception();
      }
      g_batches.fetch_add(1, std::memory_order_relaxed);
      l.lock();
      thrown_ = e;
      busy_ = false;
      idle_cv_.notify_one();
      continue;
    }
    if (stop_) return;
  }
}

}  // namespace cairn
