// Helpers shared by the store tests: temporary directories, byte patterns,
// and raw file surgery for corruption tests.
#pragma once

#include <fcntl.h>
#include <unistd.h>

#include <cstdint>
#include <cstring>
#include <filesystem>
#include <random>
#include <string>

#include "cairn/options.h"

namespace cairn::test {

// A fresh empty directory under $TMPDIR (or /tmp), removed by the destructor.
class TempDir {
 public:
  TempDir() {
    const char* base = std::getenv("TMPDIR");
    std::string tmpl = std::string(base ? base : "/tmp") + "/cairn-test-XXXXXX";
    path_ = mkdtemp(tmpl.data());
  }
  ~TempDir() { std::filesystem::remove_all(path_); }
  const std::string& path() const { return path_; }
  std::string sub(const std::string& name) const { return path_ + "/" + name; }

 private:
  std::string path_;
};

// Deterministic pseudo-random bytes: the same (seed, n) gives the same bytes.
inline std::string Pattern(uint64_t seed, size_t n) {
  std::string s(n, '\0');
  std::mt19937_64 g(seed);
  size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    uint64_t v = g();
    std::memcpy(&s[i], &v, 8);
  }
  for (; i < n; i++) s[i] = char(g());
  return s;
}

// XORs one byte of a file at `offset` with `mask`.
inline void FlipByte(const std::string& path, uint64_t offset, uint8_t mask = 0x01) {
  int fd = ::open(path.c_str(), O_RDWR);
  char c;
  if (fd < 0 || ::pread(fd, &c, 1, off_t(offset)) != 1) std::abort();
  c ^= char(mask);
  if (::pwrite(fd, &c, 1, off_t(offset)) != 1) std::abort();
  ::close(fd);
}

inline uint64_t FileSize(const std::string& path) { return std::filesystem::file_size(path); }

// The bytes of a store's data files ("data.*" in its directory): what a
// test of space reuse watches grow or not.
inline uint64_t DataFileBytes(const std::string& store_dir) {
  uint64_t n = 0;
  for (const auto& e : std::filesystem::directory_iterator(store_dir))
    if (e.path().filename().string().rfind("data.", 0) == 0) n += std::filesystem::file_size(e.path());
  return n;
}

// The store of the tests that watch one shared data file grow or level
// off: every rank writes one data file (subfiles 1), 64 KiB extents,
// 16 KiB chunks, keep 2, no fsync.
inline Options SharedFileSpaceOptions() {
  Options o;
  o.extent_size = 64 * 1024;
  o.chunk_size = 16 * 1024;
  o.subfiles = 1;
  o.keep_revisions = 2;
  o.sync = false;
  return o;
}

}  // namespace cairn::test
