// SideTask (src/io/side_task.h): the job runs on its own thread while the
// caller goes on, Join gives its status or throws what it threw, and a task
// never joined is joined by its destructor.
#include "io/side_task.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <new>
#include <thread>

namespace cairn {
namespace {

TEST(SideTask, RunsBesideTheCaller) {
  // The caller waits for the job to start before it joins: run in sequence
  // (inside Join) the job would not have started, and the wait's deadline
  // turns that into a failure instead of a hang.
  std::atomic<bool> started{false};
  SideTask t([&] {
    started = true;
    return Status::OK();
  });
  auto end = std::chrono::steady_clock::now() + std::chrono::seconds(20);
  while (!started && std::chrono::steady_clock::now() < end) std::this_thread::yield();
  EXPECT_TRUE(started);
  EXPECT_TRUE(t.Join().ok());
}

TEST(SideTask, JoinReturnsTheJobsStatus) {
  SideTask t([] { return Status::IOError("fsync directory /x: Input/output error"); });
  Status s = t.Join();
  EXPECT_TRUE(s.IsIOError());
  EXPECT_NE(s.message().find("fsync directory /x"), std::string::npos) << s.ToString();
}

TEST(SideTask, JoinThrowsWhatTheJobThrew) {
  SideTask t([]() -> Status { throw std::bad_alloc(); });
  EXPECT_THROW(t.Join(), std::bad_alloc);
}

TEST(SideTask, ASecondJoinDoesNotRunTheJobAgain) {
  std::atomic<int> runs{0};
  SideTask t([&] {
    runs++;
    return Status::OK();
  });
  EXPECT_TRUE(t.Join().ok());
  t.Join();
  EXPECT_EQ(runs.load(), 1);
}

TEST(SideTask, DestructorWaitsForTheJob) {
  std::atomic<bool> done{false};
  {
    SideTask t([&] {
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
      done = true;
      return Status::OK();
    });
  }
  EXPECT_TRUE(done);
}

}  // namespace
}  // namespace cairn
