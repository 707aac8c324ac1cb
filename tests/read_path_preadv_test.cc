// File::PReadV (src/io/file.h): one scattered read fills every entry of the
// caller's vector in order (empty entries too), is counted as one request,
// allocates nothing (the batch read path calls it once per coalesced
// request), and a file that ends inside or between entries is Corruption
// naming where it ends.
#include <gtest/gtest.h>
#include <sys/uio.h>

#include <atomic>
#include <cstdlib>
#include <fstream>
#include <new>
#include <string>
#include <vector>

#include "io/file.h"
#include "test_util.h"

namespace {
// Every operator new of this process is counted, so that a test can check
// that a call allocates nothing.
std::atomic<uint64_t> g_news{0};
}  // namespace

void* operator new(std::size_t n) {
  g_news.fetch_add(1, std::memory_order_relaxed);
  if (void* p = std::malloc(n ? n : 1)) return p;
  throw std::bad_alloc();
}
void* operator new[](std::size_t n) { return operator new(n); }
void operator delete(void* p) noexcept { std::free(p); }
void operator delete[](void* p) noexcept { std::free(p); }
void operator delete(void* p, std::size_t) noexcept { std::free(p); }
void operator delete[](void* p, std::size_t) noexcept { std::free(p); }

namespace cairn {
namespace {

std::unique_ptr<File> OpenWith(const std::string& path, const std::string& bytes, IoStats* stats) {
  std::ofstream(path, std::ios::binary | std::ios::trunc) << bytes;
  std::unique_ptr<File> f;
  Status s = File::Open(path, File::kReadOnly, stats, &f);
  EXPECT_TRUE(s.ok()) << s.ToString();
  return f;
}

TEST(PReadV, FillsEveryEntryAsOneRequestWithoutAllocating) {
  test::TempDir dir;
  IoStats stats;
  const std::string bytes = test::Pattern(7, 64 << 10);
  auto f = OpenWith(dir.sub("f"), bytes, &stats);
  ASSERT_TRUE(f);
  std::vector<size_t> sizes = {100, 0, 5000, 1, 30000, 0};
  std::vector<std::string> bufs;
  for (size_t n : sizes) bufs.emplace_back(n, '\0');
  std::vector<struct iovec> iov;
  uint64_t n = 0;
  for (std::string& b : bufs) {
    iov.push_back(iovec{b.data(), b.size()});
    n += b.size();
  }
  const uint64_t offset = 123;
  IoStats before = stats;
  uint64_t news = g_news.load();
  Status s = f->PReadV(offset, iov.data(), int(iov.size()), n);
  uint64_t allocated = g_news.load() - news;
  ASSERT_TRUE(s.ok()) << s.ToString();
  EXPECT_EQ(allocated, 0u) << "PReadV allocated " << allocated << " time(s)";
  uint64_t at = offset;
  for (const std::string& b : bufs) {
    EXPECT_EQ(b, bytes.substr(at, b.size())) << "the entry at file offset " << at;
    at += b.size();
  }
  EXPECT_EQ(stats.read_requests - before.read_requests, 1u);
  EXPECT_EQ(stats.read_bytes - before.read_bytes, n);
}

// The file ends inside the second entry (the first preadv is short, the
// rest of that entry is read on its own and finds the end), or exactly
// between two entries (the next preadv finds it): Corruption, "truncated",
// naming the offset where the file ends.
TEST(PReadV, FileEndingInsideOrBetweenEntriesIsCorruption) {
  test::TempDir dir;
  IoStats stats;
  const std::string bytes = test::Pattern(9, 10000);
  auto f = OpenWith(dir.sub("f"), bytes, &stats);
  ASSERT_TRUE(f);
  for (std::vector<size_t> sizes : {std::vector<size_t>{4000, 8000}, std::vector<size_t>{5000, 5000, 100},
                                    std::vector<size_t>{3000, 0, 7000, 0, 1}}) {
    std::vector<std::string> bufs;
    std::vector<struct iovec> iov;
    uint64_t n = 0;
    for (size_t k : sizes) bufs.emplace_back(k, '\0');
    for (std::string& b : bufs) {
      iov.push_back(iovec{b.data(), b.size()});
      n += b.size();
    }
    SCOPED_TRACE(std::to_string(sizes.size()) + " entries, " + std::to_string(n) + " bytes");
    Status s = f->PReadV(0, iov.data(), int(iov.size()), n);
    EXPECT_TRUE(s.IsCorruption()) << s.ToString();
    EXPECT_NE(s.message().find("truncated: wanted " + std::to_string(n) + " bytes at offset 0, file ends at 10000"),
              std::string::npos)
        << s.ToString();
    EXPECT_EQ(bufs[0], bytes.substr(0, sizes[0]));  // what the file holds was read
  }
}

}  // namespace
}  // namespace cairn
