// Direct reads (File::PReadVDirect, ReadPlanLimits::direct_bytes,
// CAIRN_DIRECT_READ_BYTES): a request of bytes the page cache does not
// hold, aligned as the file system requires, is read past the cache and
// comes back with the same bytes; a request any of whose pages is cached,
// or that is not aligned, or below the threshold, is read through the
// cache; a request past the end of the file is reported, not returned.
// Through the store: Get, MultiGet and GetArray read cold values directly
// (IoStats::direct_read_bytes) when CAIRN_DIRECT_READ_BYTES asks for it,
// with their checksums checked, so a damaged chunk read directly is
// Corruption; without the variable (the default) nothing is read
// directly; bytes put and read back in the same handle (in the cache) are
// not read directly; a variable that is not a byte count fails the open.
#include <gtest/gtest.h>
#include <fcntl.h>
#include <sys/uio.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "cairn/array.h"
#include "cairn/store.h"
#include "io/coalescing_reader.h"
#include "io/file.h"
#include "page_cache.h"
#include "store_test_util.h"
#include "test_util.h"

namespace cairn {
namespace {

using test::Pattern;
using test::TempDir;

constexpr uint64_t kMiB = 1ull << 20;
constexpr uint64_t kPage = 4096;

using Aligned = test::PageArena;

using test::DropTree;

// A file of `n` pattern bytes, durable and out of the page cache.
struct ColdFile {
  TempDir dir;
  std::string bytes;
  IoStats stats;
  std::unique_ptr<File> file;
  explicit ColdFile(size_t n) : bytes(Pattern(11, n)) {
    std::string path = dir.sub("f");
    std::unique_ptr<File> w;
    IoStats ws;
    EXPECT_TRUE(File::Open(path, File::kCreate, &ws, &w).ok());
    EXPECT_TRUE(w->PWrite(0, bytes.data(), bytes.size()).ok());
    EXPECT_TRUE(w->Sync().ok());
    w->DropCache();
    w.reset();
    Status s = File::Open(path, File::kReadOnly, &stats, &file);
    EXPECT_TRUE(s.ok()) << s.ToString();
  }
  FileResolver Resolver() {
    return [this](uint32_t, File** f) {
      *f = file.get();
      return Status::OK();
    };
  }
  // Reads `ranges` with direct reads from 1 MiB; the counts.
  ReadCounts Read(std::vector<ReadRange> ranges, Status* status, uint64_t direct_bytes = kMiB,
                  uint64_t request_bytes = kRequestBytes) {
    ReadPlanLimits l;
    l.direct_bytes = direct_bytes;
    l.request_bytes = request_bytes;
    ReadCounts c;
    *status = ReadCoalesced(std::move(ranges), l, Resolver(), nullptr, &c);
    return c;
  }
  bool Same(const char* dest, uint64_t offset, uint64_t n) const {
    return std::memcmp(dest, bytes.data() + offset, n) == 0;
  }
};

TEST(DirectRead, ColdAlignedRequestIsReadPastTheCache) {
  ColdFile f(8 * kMiB);
  SKIP_UNLESS_COLD(f.dir.path());
  Aligned a(4 * kMiB);
  std::vector<const char*> seen;
  ReadPlanLimits l;
  l.direct_bytes = kMiB;
  ReadCounts c;
  Status s = ReadCoalesced({{0, 2 * kMiB, 4 * kMiB, a.data, 0}}, l, f.Resolver(),
                           [&](const ReadRange& r, const char* bytes) {
                             // The bytes are in place when `done` runs.
                             EXPECT_TRUE(f.Same(bytes, r.offset, r.length));
                             seen.push_back(bytes);
                           },
                           &c);
  ASSERT_TRUE(s.ok()) << s.ToString();
  EXPECT_TRUE(f.Same(a.data, 2 * kMiB, 4 * kMiB));
  EXPECT_EQ(c.direct, 4 * kMiB);
  EXPECT_EQ(f.stats.direct_read_bytes, 4 * kMiB);
  EXPECT_EQ(f.stats.read_bytes, 4 * kMiB);
  ASSERT_EQ(seen.size(), 1u);
  EXPECT_EQ(seen[0], a.data);
  // The O_DIRECT descriptor is one more open, made once.
  EXPECT_EQ(f.stats.opens, 2u);
  Status s2;
  f.file->DropCache();
  EXPECT_EQ(f.Read({{0, 0, 2 * kMiB, a.data, 0}}, &s2).direct, 2 * kMiB);
  EXPECT_EQ(f.stats.opens, 2u);
}

TEST(DirectRead, CachedBytesAreReadThroughTheCache) {
  ColdFile f(4 * kMiB);
  SKIP_UNLESS_COLD(f.dir.path());
  Aligned a(4 * kMiB);
  // One page of the range in the cache is enough to read it all through it.
  char page[kPage];
  ASSERT_TRUE(f.file->PRead(3 * kMiB, page, kPage).ok());
  Status s;
  EXPECT_EQ(f.Read({{0, 0, 4 * kMiB, a.data, 0}}, &s).direct, 0u);
  ASSERT_TRUE(s.ok()) << s.ToString();
  EXPECT_TRUE(f.Same(a.data, 0, 4 * kMiB));
  EXPECT_EQ(f.stats.direct_read_bytes, 0u);
  // Dropped again: direct.
  f.file->DropCache();
  std::memset(a.data, 0, 4 * kMiB);
  EXPECT_EQ(f.Read({{0, 0, 4 * kMiB, a.data, 0}}, &s).direct, 4 * kMiB);
  EXPECT_TRUE(f.Same(a.data, 0, 4 * kMiB));
}

TEST(DirectRead, UnalignedOrSmallRequestsAreReadThroughTheCache) {
  ColdFile f(8 * kMiB);
  Aligned a(8 * kMiB);
  Status s;
  // Memory 64 bytes past a page (not the bounce's 1-31: read in place).
  EXPECT_EQ(f.Read({{0, 0, 2 * kMiB, a.data + 64, 0}}, &s).direct, 0u);
  ASSERT_TRUE(s.ok());
  EXPECT_TRUE(f.Same(a.data + 64, 0, 2 * kMiB));
  f.file->DropCache();
  // A file offset off the sector, memory at the same distance from a page.
  EXPECT_EQ(f.Read({{0, 100, 2 * kMiB, a.data + 100, 0}}, &s).direct, 0u);
  ASSERT_TRUE(s.ok());
  EXPECT_TRUE(f.Same(a.data + 100, 100, 2 * kMiB));
  f.file->DropCache();
  // A length off the sector.
  EXPECT_EQ(f.Read({{0, 0, 2 * kMiB + 100, a.data, 0}}, &s).direct, 0u);
  ASSERT_TRUE(s.ok());
  EXPECT_TRUE(f.Same(a.data, 0, 2 * kMiB + 100));
  f.file->DropCache();
  // Below the threshold, and with direct reads off.
  EXPECT_EQ(f.Read({{0, 0, kMiB / 2, a.data, 0}}, &s).direct, 0u);
  f.file->DropCache();
  EXPECT_EQ(f.Read({{0, 0, 2 * kMiB, a.data, 0}}, &s, 0).direct, 0u);
  ASSERT_TRUE(s.ok());
  EXPECT_TRUE(f.Same(a.data, 0, 2 * kMiB));
  EXPECT_EQ(f.stats.direct_read_bytes, 0u);
}

TEST(DirectRead, GapsBetweenRangesAreReadDirectlyToo) {
  ColdFile f(8 * kMiB);
  SKIP_UNLESS_COLD(f.dir.path());
  Aligned a(4 * kMiB), b(4 * kMiB);
  Status s;
  // Two ranges 64 KiB apart: one request (as key-value reads make), the
  // gap into aligned scratch.
  ReadCounts c = f.Read({{0, 0, kMiB, a.data, 0}, {0, kMiB + 65536, kMiB, b.data, 1}}, &s, kMiB,
                        kValueRequestBytes);
  ASSERT_TRUE(s.ok()) << s.ToString();
  EXPECT_EQ(c.requests, 1u);
  EXPECT_EQ(c.direct, 2 * kMiB + 65536);
  EXPECT_TRUE(f.Same(a.data, 0, kMiB));
  EXPECT_TRUE(f.Same(b.data, kMiB + 65536, kMiB));
}

TEST(DirectRead, ARequestPastTheEndIsReportedNotReturned) {
  ColdFile f(4 * kMiB);
  Aligned a(4 * kMiB);
  Status s;
  ReadCounts c = f.Read({{0, 2 * kMiB, 4 * kMiB, a.data, 0}}, &s);
  EXPECT_TRUE(s.IsCorruption()) << s.ToString();
  EXPECT_NE(s.ToString().find("truncated"), std::string::npos) << s.ToString();
  EXPECT_EQ(c.direct, 0u);
  EXPECT_EQ(f.stats.direct_read_bytes, 0u);
}

TEST(DirectRead, ThreadsShareTheDirectDescriptor) {
  ColdFile f(16 * kMiB);
  SKIP_UNLESS_COLD(f.dir.path());
  std::vector<std::unique_ptr<Aligned>> bufs;
  for (int t = 0; t < 4; t++) bufs.push_back(std::make_unique<Aligned>(4 * kMiB));
  std::vector<std::thread> threads;
  std::vector<Status> st(4);
  for (int t = 0; t < 4; t++)
    threads.emplace_back([&, t] {
      ReadPlanLimits l;
      l.direct_bytes = kMiB;
      st[t] = ReadCoalesced({{0, uint64_t(t) * 4 * kMiB, 4 * kMiB, bufs[t]->data, 0}}, l, f.Resolver());
    });
  for (auto& th : threads) th.join();
  for (int t = 0; t < 4; t++) {
    EXPECT_TRUE(st[t].ok()) << st[t].ToString();
    EXPECT_TRUE(f.Same(bufs[t]->data, uint64_t(t) * 4 * kMiB, 4 * kMiB)) << t;
  }
  EXPECT_EQ(f.stats.direct_read_bytes, 16 * kMiB);
  EXPECT_EQ(f.stats.opens, 2u);
}

// A request larger than one read call moves (Linux stops a preadv at
// 2 GiB - 4 KiB): read directly to its end, not read once directly, found
// short and read again through the cache. The file is sparse but for its
// last 4 MiB, and every 4 MiB entry before those takes the same scratch.
TEST(DirectRead, ARequestPastTwoGiBIsReadDirectlyWhole) {
  TempDir dir;
  SKIP_UNLESS_COLD(dir.path());
  const uint64_t piece = 4 * kMiB, pieces = 512;  // 2 GiB of hole
  const uint64_t n = (pieces + 1) * piece;
  std::string path = dir.sub("f"), tail = Pattern(13, piece);
  {
    std::unique_ptr<File> w;
    IoStats ws;
    ASSERT_TRUE(File::Open(path, File::kCreate, &ws, &w).ok());
    ASSERT_TRUE(w->PWrite(pieces * piece, tail.data(), piece).ok());
    ASSERT_TRUE(w->Sync().ok());
    w->DropCache();
  }
  IoStats stats;
  std::unique_ptr<File> f;
  ASSERT_TRUE(File::Open(path, File::kReadOnly, &stats, &f).ok());
  Aligned scratch(piece), last(piece);
  std::vector<struct iovec> iov(pieces, iovec{scratch.data, size_t(piece)});
  iov.push_back(iovec{last.data, size_t(piece)});
  EXPECT_TRUE(f->PReadVDirect(0, iov.data(), int(iov.size()), n));
  EXPECT_EQ(stats.direct_read_bytes, n);
  EXPECT_EQ(stats.read_bytes, n);
  EXPECT_EQ(stats.read_requests, 1u);
  EXPECT_EQ(std::memcmp(last.data, tail.data(), piece), 0);
  EXPECT_EQ(scratch.data[0], 0);
}

// --- Through the store ---

Options BigOptions() {
  Options o;  // the defaults: 4 MiB chunks, 16 MiB extents
  o.subfiles = 1;
  return o;
}

// CAIRN_DIRECT_READ_BYTES for the life of the object (unset if null).
struct DirectEnv {
  explicit DirectEnv(const char* v) {
    if (v)
      setenv("CAIRN_DIRECT_READ_BYTES", v, 1);
    else
      unsetenv("CAIRN_DIRECT_READ_BYTES");
  }
  ~DirectEnv() { unsetenv("CAIRN_DIRECT_READ_BYTES"); }
};

void PutAndClose(const std::string& path, const std::string& value) {
  auto s = test::MustOpen(path, BigOptions());
  ASSERT_TRUE(s->Put("v", value).ok());
  ASSERT_TRUE(s->Commit().ok());
  ASSERT_TRUE(s->Close().ok());
}

TEST(DirectRead, ColdValuesAreReadDirectlyAndVerified) {
  TempDir d;
  SKIP_UNLESS_COLD(d.path());
  std::string path = d.sub("store");
  std::string value = Pattern(3, 8 * kMiB);
  PutAndClose(path, value);
  DropTree(path);
  Options ro = BigOptions();
  ro.read_only = true;
  DirectEnv env("1048576");
  {
    auto s = test::MustOpen(path, ro);
    Aligned a(8 * kMiB);
    std::vector<Store::ValueBuffer> bufs{{a.data, 8 * kMiB, 0}};
    std::vector<Status> st;
    ASSERT_TRUE(s->MultiGet({"v"}, &bufs, &st).ok());
    EXPECT_EQ(std::memcmp(a.data, value.data(), value.size()), 0);
    EXPECT_EQ(s->stats().direct_read_bytes, 8 * kMiB);
    // Read again: still not in the cache (direct reads leave none), direct again.
    std::string got;
    ASSERT_TRUE(s->Get("v", &got).ok());
    EXPECT_EQ(got, value);
  }
  for (const char* off : {"0", ""}) {  // off: nothing direct, the same bytes
    DropTree(path);
    DirectEnv no(off);
    auto s = test::MustOpen(path, ro);
    std::string got;
    ASSERT_TRUE(s->Get("v", &got).ok());
    EXPECT_EQ(got, value);
    EXPECT_EQ(s->stats().direct_read_bytes, 0u);
  }
  // A flipped byte in the value, read directly: Corruption, not data.
  std::string file = path + "/data.00000";
  ASSERT_FALSE(file.empty());
  test::FlipByte(file, test::FileOffsetOf(file, value.substr(5 * kMiB, 64)) + 7);
  DropTree(path);
  {
    DirectEnv on("1048576");
    auto s = test::MustOpen(path, ro);
    Aligned a(8 * kMiB);
    std::vector<Store::ValueBuffer> bufs{{a.data, 8 * kMiB, 0}};
    std::vector<Status> st;
    Status m = s->MultiGet({"v"}, &bufs, &st);
    EXPECT_TRUE(m.IsCorruption()) << m.ToString();
    EXPECT_NE(m.ToString().find("checksum mismatch"), std::string::npos) << m.ToString();
    EXPECT_GT(s->stats().direct_read_bytes, 0u);
  }
}

TEST(DirectRead, OffByDefault) {
  TempDir d;
  std::string path = d.sub("store");
  std::string value = Pattern(3, 4 * kMiB);
  PutAndClose(path, value);
  DropTree(path);
  DirectEnv unset(nullptr);
  Options ro = BigOptions();
  ro.read_only = true;
  auto s = test::MustOpen(path, ro);
  Aligned a(4 * kMiB);
  std::vector<Store::ValueBuffer> bufs{{a.data, 4 * kMiB, 0}};
  std::vector<Status> st;
  ASSERT_TRUE(s->MultiGet({"v"}, &bufs, &st).ok());
  EXPECT_EQ(std::memcmp(a.data, value.data(), value.size()), 0);
  EXPECT_EQ(s->stats().direct_read_bytes, 0u);
}

TEST(DirectRead, ABadVariableFailsTheOpen) {
  TempDir d;
  std::string path = d.sub("store");
  PutAndClose(path, "x");
  for (const char* bad : {"1M", "-1", "abc", "9223372036854775808", " -18446744073709551615", " -0", "+5", " 5",
                          "\t5"}) {
    DirectEnv env(bad);
    std::unique_ptr<Store> s;
    Status st = Store::Open(BigOptions(), path, &s);
    EXPECT_TRUE(st.IsInvalidArgument()) << bad << ": " << st.ToString();
    EXPECT_NE(st.ToString().find("CAIRN_DIRECT_READ_BYTES"), std::string::npos) << st.ToString();
  }
}

TEST(DirectRead, BytesInTheCacheOfAWriterAreNotReadDirectly) {
  TempDir d;
  DirectEnv env("1048576");
  auto s = test::MustOpen(d.sub("store"), BigOptions());
  std::string value = Pattern(5, 4 * kMiB);
  ASSERT_TRUE(s->Put("v", value).ok());
  ASSERT_TRUE(s->Commit().ok());
  std::string got;
  ASSERT_TRUE(s->Get("v", &got).ok());
  EXPECT_EQ(got, value);
  EXPECT_EQ(s->stats().direct_read_bytes, 0u);
}

// The O_DIRECT descriptor is opened at the first direct read, through
// /proc/self/fd (by path, checked to be the same inode, where there is no
// /proc): a reader whose store was removed and made again at the same
// path since it opened the data file reads the file it opened (the bytes
// of the revision it shows), not the new one, and still directly.
TEST(DirectRead, AFileReplacedAtItsPathIsNotReadInItsPlace) {
  TempDir d;
  SKIP_UNLESS_COLD(d.path());
  std::string path = d.sub("store");
  std::string old_value = Pattern(21, 8 * kMiB), new_value = Pattern(22, 8 * kMiB);
  auto write = [&](const std::string& value) {
    auto s = test::MustOpen(path, BigOptions());
    ASSERT_TRUE(s->Put("small", std::string(1000, 's')).ok());
    ASSERT_TRUE(s->Put("v", value).ok());
    ASSERT_TRUE(s->Commit().ok());
    ASSERT_TRUE(s->Close().ok());
  };
  write(old_value);
  DirectEnv env("1048576");
  Options ro = BigOptions();
  ro.read_only = true;
  auto s = test::MustOpen(path, ro);
  std::string small;
  ASSERT_TRUE(s->Get("small", &small).ok());  // the data file opened, nothing read directly
  ASSERT_EQ(s->stats().direct_read_bytes, 0u);
  DropTree(path);  // the old file's pages: what the reader's descriptor names
  std::filesystem::remove_all(path);
  write(new_value);
  DropTree(path);
  Aligned a(8 * kMiB);
  std::vector<Store::ValueBuffer> bufs{{a.data, 8 * kMiB, 0}};
  std::vector<Status> st;
  Status m = s->MultiGet({"v"}, &bufs, &st);
  ASSERT_TRUE(m.ok()) << m.ToString();
  EXPECT_EQ(std::memcmp(a.data, old_value.data(), old_value.size()), 0);
  EXPECT_EQ(s->stats().direct_read_bytes, 8 * kMiB);
}

// A request that cannot be direct (memory from malloc, or bytes in the
// cache) opens nothing more: the O_DIRECT descriptor waits for one that can.
TEST(DirectRead, NoSecondOpenUntilARequestCanBeDirect) {
  ColdFile f(8 * kMiB);
  SKIP_UNLESS_COLD(f.dir.path());
  Aligned a(8 * kMiB);
  Status s;
  EXPECT_EQ(f.Read({{0, 0, 2 * kMiB, a.data + 64, 0}}, &s).direct, 0u);  // not aligned
  ASSERT_TRUE(s.ok());
  EXPECT_EQ(f.Read({{0, 0, 2 * kMiB, a.data, 0}}, &s).direct, 0u);  // now in the cache
  ASSERT_TRUE(s.ok());
  EXPECT_EQ(f.stats.opens, 1u);
  EXPECT_EQ(f.Read({{0, 4 * kMiB, 2 * kMiB, a.data, 0}}, &s).direct, 2 * kMiB);
  EXPECT_EQ(f.stats.opens, 2u);
}

TEST(DirectRead, ColdArraysAreReadDirectly) {
  TempDir d;
  SKIP_UNLESS_COLD(d.path());
  std::string path = d.sub("store");
  // 3072 x 1024 float64, 24 MiB in one block: a stream longer than the
  // short ones the reader advises into the cache (coalescing_reader.h).
  const uint64_t n = 1024, m = 3 * n;
  std::vector<double> grid(m * n);
  for (uint64_t i = 0; i < grid.size(); i++) grid[i] = double(i) * 0.5;
  {
    auto s = test::MustOpen(path, BigOptions());
    ASSERT_TRUE(s->PutArray("g", DType::kFloat64, {m, n}, {0, 0}, {m, n}, grid.data()).ok());
    ASSERT_TRUE(s->Commit().ok());
    ASSERT_TRUE(s->Close().ok());
  }
  DropTree(path);
  Options ro = BigOptions();
  ro.read_only = true;
  DirectEnv env("1048576");
  auto s = test::MustOpen(path, ro);
  Aligned a(m * n * sizeof(double));
  ASSERT_TRUE(s->GetArray("g", {0, 0}, {m, n}, a.data).ok());
  EXPECT_EQ(std::memcmp(a.data, grid.data(), m * n * sizeof(double)), 0);
  EXPECT_GT(s->stats().direct_read_bytes, 8 * kMiB);
}

}  // namespace
}  // namespace cairn
