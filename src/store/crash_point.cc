#include "store/crash_point.h"

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

}  // namespace cairn
