// Pages in tests of the read path: page-aligned destinations
// (read_bounce_test, direct_read_test), what the page cache holds of a
// file (read_once_test, direct_read_test), and emptying it of a store's
// files (direct_read_test, direct_read_mix_test).
#pragma once

#include <gtest/gtest.h>
#include <dirent.h>
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

// Makes file `path` durable and drops its pages from the page cache.
inline void DropFile(const std::string& path) {
  int fd = ::open(path.c_str(), O_RDONLY);
  ASSERT_GE(fd, 0) << path;
  ASSERT_EQ(::fdatasync(fd), 0) << path;
  ASSERT_EQ(::posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED), 0) << path;
  ::close(fd);
}

// Makes every file under `dir` (recursively) durable and drops its pages
// from the page cache: what a restart on another node finds.
inline void DropTree(const std::string& dir) {
  DIR* d = ::opendir(dir.c_str());
  ASSERT_NE(d, nullptr) << dir;
  while (struct dirent* e = ::readdir(d)) {
    std::string n = e->d_name;
    if (n == "." || n == "..") continue;
    std::string p = dir + "/" + n;
    if (e->d_type == DT_DIR)
      DropTree(p);
    else
      DropFile(p);
  }
  ::closedir(d);
}

// Whether this file system lets clean pages go when asked (tmpfs keeps
// them: nothing there is ever cold, so nothing is read directly, and the
// tests that need cold bytes are skipped, as read_once_test's are).
inline bool DropsCleanPages(const std::string& dir) {
  const std::string p = dir + "/drop-probe";
  const std::string bytes(1 << 16, 'p');
  int fd = ::open(p.c_str(), O_RDWR | O_CREAT | O_TRUNC, 0644);
  if (fd < 0) return false;
  bool ok = ::pwrite(fd, bytes.data(), bytes.size(), 0) == ssize_t(bytes.size()) && ::fdatasync(fd) == 0 &&
            ::posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED) == 0;
  ::close(fd);
  ok = ok && ResidentPages(p, 0, bytes.size()) == 0;
  ::unlink(p.c_str());
  return ok;
}
#define SKIP_UNLESS_COLD(dir) \
  if (!::cairn::test::DropsCleanPages(dir)) GTEST_SKIP() << "this file system keeps clean pages cached: nothing is cold"

}  // namespace cairn::test
