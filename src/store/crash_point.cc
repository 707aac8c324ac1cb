#include "store/crash_point.h"

#include <chrono>
#include <cstdlib>
#include <new>
#include <thread>

#include <signal.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <string>

namespace cairn {

bool CrashPointArmed(const char* point, int rank) {
  const char* want = std::getenv("CAIRN_CRASH_POINT");
  if (!want || std::strcmp(want, point) != 0) return false;
  const char* r = std::getenv("CAIRN_CRASH_RANK");
  return !(r && *r && std::atoi(r) != rank);
}

void CrashPoint(const char* point, int rank) {
  if (CrashPointArmed(point, rank)) ::kill(::getpid(), SIGKILL);
}

void TestFsyncDelay(int rank) {
  if (rank == 0) return;
  static const long ms = [] {
    const char* v = std::getenv("CAIRN_TEST_FSYNC_DELAY_MS");
    return v ? std::atol(v) : 0L;
  }();
  if (ms > 0) std::this_thread::sleep_for(std::chrono::milliseconds(ms));
}

void TestBadAllocPoint(const char* point, int rank) {
  const char* want = std::getenv("CAIRN_TEST_BAD_ALLOC_POINT");
  if (!want || std::strcmp(want, point) != 0) return;
  const char* r = std::getenv("CAIRN_TEST_BAD_ALLOC_RANK");
  if (!(r && *r && std::atoi(r) != rank)) throw std::bad_alloc();
}

}  // namespace cairn
