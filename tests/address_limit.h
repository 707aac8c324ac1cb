// Memory bounded for real in a test, not mocked: the soft RLIMIT_AS lowered
// to what the process already uses plus some room, raised back after
// (read_memory_test, put_memory_test). AddressSanitizer reserves its shadow
// memory up front, so tests using this skip under it.
#pragma once

#include <gtest/gtest.h>
#include <malloc.h>
#include <sys/resource.h>

#include <cstdint>
#include <fstream>
#include <string>

#include "cairn/status.h"

// Skips the test under AddressSanitizer (see the top of this file).
#if defined(__SANITIZE_ADDRESS__)
#define SKIP_UNDER_ASAN() GTEST_SKIP() << "AddressSanitizer reserves its shadow memory: RLIMIT_AS cannot bound it"
#else
#define SKIP_UNDER_ASAN() (void)0
#endif

namespace cairn::test {

// One malloc arena for every test process that bounds its memory, set
// before any thread runs. When the main arena cannot grow, glibc's malloc
// retries in another thread's arena, whose 64 MiB of reserved address
// space is already inside a limit set after it was made: every thread that
// freed memory has one (the library's I/O thread, the thread a first
// commit runs its directory fsyncs on), and an allocation below 64 MiB
// that the limit should refuse then succeeds there (an outside review,
// fifteenth session: read_memory_test at 48 MiB). With one arena the limit
// means what it says.
inline const bool kOneMallocArena = mallopt(M_ARENA_MAX, 1) == 1;

// This process's virtual size in bytes (/proc/self/status VmSize); 0 if
// it cannot be read.
inline uint64_t VmSize() {
  std::ifstream in("/proc/self/status");
  std::string word;
  while (in >> word)
    if (word == "VmSize:") {
      uint64_t kb = 0;
      in >> kb;
      return kb << 10;
    }
  return 0;
}

// Lowers the soft RLIMIT_AS to the current size plus `room` for its lifetime.
class AddressLimit {
 public:
  explicit AddressLimit(uint64_t room) {
    getrlimit(RLIMIT_AS, &old_);
    rlimit r = old_;
    r.rlim_cur = VmSize() + room;
    ok_ = VmSize() > 0 && setrlimit(RLIMIT_AS, &r) == 0;
  }
  ~AddressLimit() { setrlimit(RLIMIT_AS, &old_); }
  AddressLimit(const AddressLimit&) = delete;
  AddressLimit& operator=(const AddressLimit&) = delete;
  bool ok() const { return ok_; }

 private:
  rlimit old_;
  bool ok_ = false;
};

// `s` is the IOError of a process out of memory, naming `key`.
inline void ExpectOutOfMemory(const Status& s, const std::string& key) {
  EXPECT_TRUE(s.IsIOError()) << s.ToString();
  EXPECT_NE(s.message().find("'" + key + "'"), std::string::npos) << s.ToString();
  EXPECT_NE(s.message().find("memory"), std::string::npos) << s.ToString();
}

// What `call` returns; std::bad_alloc out of it (what these tests exist to
// catch: it used to leave the API) sets *threw instead, and gives an
// IOError saying so.
template <class F>
Status StatusUnlessThrown(F&& call, bool* threw) {
  try {
    return call();
  } catch (const std::bad_alloc&) {
    *threw = true;
    return Status::IOError("threw std::bad_alloc");
  }
}

}  // namespace cairn::test
