// Pages in tests of the read path: page-aligned destinations
// (read_bounce_test, direct_read_test) and what the page cache holds of a
// file (read_once_test, direct_read_test).
#pragma once

#include <gtest/gtest.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

namespace cairn::test {

// `size` bytes of page-aligned memory, each set to `fill` (so that bytes a
// read should not have written can be told); freed by the destructor.
struct PageArena {
  explicit PageArena(size_t n, char fill = '\x5a')
      : size(n), data(static_cast<char*>(std::aligned_alloc(size_t(::sysconf(_SC_PAGESIZE)), n))) {
    std::memset(data, fill, n);
  }
  ~PageArena() { std::free(data); }
  PageArena(const PageArena&) = delete;
  PageArena& operator=(const PageArena&) = delete;
  size_t size;
  char* data;
};

// Pages of [offset, offset + n) of `path` that are in the page cache.
inline size_t ResidentPages(const std::string& path, uint64_t offset, uint64_t n) {
  const uint64_t page = uint64_t(::sysconf(_SC_PAGESIZE));
  uint64_t start = offset / page * page;
  uint64_t len = offset + n - start;
  int fd = ::open(path.c_str(), O_RDONLY);
  EXPECT_GE(fd, 0);
  void* m = ::mmap(nullptr, len, PROT_READ, MAP_SHARED, fd, off_t(start));
  ::close(fd);
  EXPECT_NE(m, MAP_FAILED);
  std::vector<unsigned char> v((len + page - 1) / page);
  EXPECT_EQ(::mincore(m, len, v.data()), 0);
  ::munmap(m, len);
  size_t resident = 0;
  for (unsigned char c : v) resident += c & 1;
  return resident;
}

}  // namespace cairn::test
