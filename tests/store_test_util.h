// Options and an open helper shared by the single-process store tests.
#pragma once

#include <gtest/gtest.h>

#include <cstdio>
#include <memory>
#include <string>

#include "cairn/store.h"
#include "test_util.h"

namespace cairn::test {

// Small extents and chunks so that tests cross their boundaries cheaply.
inline Options SmallOptions() {
  Options o;
  o.extent_size = 64 * 1024;
  o.chunk_size = 16 * 1024;
  o.write_buffer_size = 32 * 1024;
  o.inline_value_limit = 100;
  return o;
}

// SmallOptions() with values above 64 bytes chunked and no fsync: the MPI
// tests of features against each other, which commit many times and test
// the data read back, not its durability (the compaction's own fsyncs and
// renames happen regardless).
inline Options SmallUnsyncedOptions() {
  Options o = SmallOptions();
  o.inline_value_limit = 64;
  o.sync = false;
  return o;
}

// Opens the store at `path` in one process; a failure fails the test.
inline std::unique_ptr<Store> MustOpen(const std::string& path, Options o = SmallOptions()) {
  std::unique_ptr<Store> s;
  Status st = Store::Open(o, path, &s);
  EXPECT_TRUE(st.ok()) << st.ToString();
  return s;
}

// Where the bytes `probe` lie in `file`; a failure unless they are there
// exactly once.
inline uint64_t FileOffsetOf(const std::string& file, const std::string& probe) {
  std::string bytes(FileSize(file), '\0');
  FILE* f = fopen(file.c_str(), "rb");
  EXPECT_EQ(fread(bytes.data(), 1, bytes.size(), f), bytes.size());
  fclose(f);
  size_t at = bytes.find(probe);
  EXPECT_NE(at, std::string::npos);
  EXPECT_EQ(bytes.find(probe, at + 1), std::string::npos);
  return uint64_t(at);
}

}  // namespace cairn::test
