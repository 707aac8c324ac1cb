// Reads whose destination sits 1-31 bytes past the file's page offset go
// through a bounce buffer (io/coalescing_reader.h): every placement of
// destination against file offset reads the right bytes, they are in place
// before the range's `done` runs (where checksums are checked), nothing
// around a destination is written, exactly the short-distance ranges are
// bounced, and a range larger than the bounce is read in pieces. Through
// the store: values read into such buffers by Get, GetRange and both
// MultiGets are equal to what was put, and a damaged chunk is Corruption.
#include <gtest/gtest.h>
#include <malloc.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
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

constexpr uint64_t kPage = 4096;
constexpr char kGuard = '\x5a';

// Page-aligned memory, filled with kGuard.
struct Arena : test::PageArena {
  explicit Arena(size_t n) : PageArena(n, kGuard) {}
};

// Destination distances against the file offset, within a page: the short
// ones (1-31) are bounced, the others (32-63 too: as fast as any, measured) read straight in.
const uint64_t kDistances[] = {0, 1, 8, 15, 16, 31, 32, 33, 47, 63, 64, 100, 2048, 4032, 4095};

bool Short(uint64_t d) { return d >= 1 && d <= 31; }

struct Fixture {
  TempDir dir;
  std::string bytes;
  IoStats stats;
  std::unique_ptr<File> file;
  explicit Fixture(size_t n) : bytes(Pattern(7, n)) {
    std::string path = dir.sub("f");
    std::ofstream(path, std::ios::binary | std::ios::trunc) << bytes;
    Status s = File::Open(path, File::kReadOnly, &stats, &file);
    EXPECT_TRUE(s.ok()) << s.ToString();
  }
  FileResolver Resolver() {
    return [this](uint32_t, File** f) {
      *f = file.get();
      return Status::OK();
    };
  }
};

// Places range k (file offset `offset`, `length` bytes) in its own slot of
// the arena at distance d from the file's page offset.
char* Place(Arena* a, uint64_t* slot_at, uint64_t offset, uint64_t length, uint64_t d) {
  uint64_t slot = *slot_at;
  char* dest = a->data + slot + ((offset + d) & (kPage - 1));
  *slot_at = slot + ((length + 2 * kPage) / kPage) * kPage;  // a guard page at least between slots
  EXPECT_LE(*slot_at, a->size);
  return dest;
}

// Every byte of the arena outside the ranges still holds kGuard.
void ExpectGuardsIntact(const Arena& a, const std::vector<ReadRange>& ranges) {
  std::vector<char> inside(a.size, 0);
  for (const ReadRange& x : ranges) std::memset(inside.data() + (x.dest - a.data), 1, x.length);
  size_t bad = 0;
  for (size_t i = 0; i < a.size; i++)
    if (!inside[i] && a.data[i] != kGuard) bad++;
  EXPECT_EQ(bad, 0u) << "bytes written outside the destinations";
}

TEST(ReadBounce, EveryPlacementOfOneRangeReadsItsBytesBeforeDone) {
  Fixture fx(8 << 20);
  const uint64_t lengths[] = {1, 63, 4096, 65536 + 3, (1 << 20) - 100, (1 << 20) + 4096, (3 << 20) + 5};
  for (uint64_t len : lengths) {
    for (uint64_t d : kDistances) {
      for (uint64_t offset : {uint64_t(0), uint64_t(8192 + 7), uint64_t(4096 * 3 - 20)}) {
        Arena a(len + 4 * kPage);
        uint64_t slot = 0;
        std::vector<ReadRange> ranges = {ReadRange{0, offset, len, Place(&a, &slot, offset, len, d), 0}};
        int dones = 0;
        bool in_place = false;
        ReadCounts counts;
        Status s = ReadCoalesced(ranges, ReadPlanLimits(), fx.Resolver(),
                                 [&](const ReadRange& x, const char* bytes) {
                                   dones++;
                                   in_place = std::memcmp(x.dest, fx.bytes.data() + x.offset, x.length) == 0 &&
                                              std::memcmp(bytes, fx.bytes.data() + x.offset, x.length) == 0;
                                 },
                                 &counts);
        ASSERT_TRUE(s.ok()) << s.ToString();
        SCOPED_TRACE("length " + std::to_string(len) + " distance " + std::to_string(d) + " offset " +
                     std::to_string(offset));
        EXPECT_EQ(dones, 1);
        EXPECT_TRUE(in_place) << "bytes not in place when done ran";
        EXPECT_EQ(counts.bounced, Short(d) ? len : 0);
        EXPECT_EQ(counts.streamed, 0u) << "a read below kStreamingCopyBytes copies through the cache";
        EXPECT_EQ(counts.bytes, len);
        // A range larger than the bounce (1 MiB) is read a MiB at a time.
        uint64_t pieces = Short(d) ? (len + (1 << 20) - 1) >> 20 : 1;
        EXPECT_EQ(counts.requests, pieces);
        ExpectGuardsIntact(a, ranges);
      }
    }
  }
}

TEST(ReadBounce, ManyRangesOfMixedPlacementInOneBlock) {
  // Ranges of every size up to 300 KiB, some touching, some with gaps,
  // destinations cycling through every distance: one block read in
  // requests of about 1 MiB, each with bounced and direct ranges mixed.
  Fixture fx(24 << 20);
  std::vector<ReadRange> ranges;
  Arena a(64 << 20);
  uint64_t slot = 0, offset = 100, want_bounced = 0, wanted = 0;
  for (size_t k = 0; k < 120; k++) {
    uint64_t len = 1 + (k * 7919 * 13) % (300 << 10);
    uint64_t d = kDistances[k % std::size(kDistances)];
    ranges.push_back(ReadRange{0, offset, len, Place(&a, &slot, offset, len, d), k});
    if (Short(d)) want_bounced += len;
    wanted += len;
    offset += len + (k % 3 == 0 ? 0 : (k * 31) % 5000);  // one in three touches the next
  }
  ASSERT_LE(offset, fx.bytes.size());
  std::vector<int> dones(ranges.size(), 0);
  size_t not_in_place = 0;
  ReadCounts counts;
  ReadPlanLimits limits;
  limits.gap_limit = 1 << 20;
  Status s = ReadCoalesced(ranges, limits, fx.Resolver(),
                           [&](const ReadRange& x, const char* bytes) {
                             dones[x.tag]++;
                             if (std::memcmp(x.dest, fx.bytes.data() + x.offset, x.length) != 0) not_in_place++;
                             if (std::memcmp(bytes, fx.bytes.data() + x.offset, x.length) != 0) not_in_place++;
                           },
                           &counts);
  ASSERT_TRUE(s.ok()) << s.ToString();
  for (size_t k = 0; k < dones.size(); k++) EXPECT_EQ(dones[k], 1) << "range " << k;
  EXPECT_EQ(not_in_place, 0u);
  EXPECT_EQ(counts.bounced, want_bounced);
  ASSERT_GE(wanted, kStreamingCopyBytes);
  EXPECT_EQ(counts.streamed, want_bounced) << "a read this large copies out past the cache";
  EXPECT_GT(counts.requests, 10u) << "expected a block of many requests";
  EXPECT_GE(counts.bytes, wanted);
  ExpectGuardsIntact(a, ranges);
}

TEST(ReadBounce, EmptyRangesInsideABlockAreDoneOnce) {
  // Empty ranges between others of one block (a value of no bytes among
  // chunked ones): each range's `done` runs exactly once.
  Fixture fx(1 << 20);
  Arena a(4 << 20);
  uint64_t slot = 0;
  std::vector<ReadRange> ranges;
  for (size_t k = 0; k < 9; k++) {
    uint64_t off = 1000 + k * 2600, len = k % 2 ? 0 : 5000;  // close: one block
    ranges.push_back(ReadRange{0, off, len, Place(&a, &slot, off, len + 1, kDistances[k]), k});
  }
  std::vector<int> dones(ranges.size(), 0);
  Status s = ReadCoalesced(ranges, ReadPlanLimits(), fx.Resolver(), [&](const ReadRange& x, const char*) { dones[x.tag]++; });
  ASSERT_TRUE(s.ok()) << s.ToString();
  for (size_t k = 0; k < dones.size(); k++) EXPECT_EQ(dones[k], 1) << "range " << k;
}

TEST(ReadBounce, OverlappingRangesReadWhole) {
  // Ranges that overlap in the file take the block's own bounce buffer.
  Fixture fx(4 << 20);
  Arena a(16 << 20);
  uint64_t slot = 0;
  std::vector<ReadRange> ranges;
  for (size_t k = 0; k < 8; k++) {
    uint64_t off = 5000 + k * 200000, len = 300000;  // each overlaps the next
    ranges.push_back(ReadRange{0, off, len, Place(&a, &slot, off, len, kDistances[k]), k});
  }
  size_t bad = 0;
  Status s = ReadCoalesced(ranges, ReadPlanLimits(), fx.Resolver(), [&](const ReadRange& x, const char* bytes) {
    if (std::memcmp(x.dest, fx.bytes.data() + x.offset, x.length) != 0) bad++;
    if (std::memcmp(bytes, fx.bytes.data() + x.offset, x.length) != 0) bad++;
  });
  ASSERT_TRUE(s.ok()) << s.ToString();
  EXPECT_EQ(bad, 0u);
  ExpectGuardsIntact(a, ranges);
}

TEST(ReadBounce, LargeReadsCopyPastTheCacheAndHandDoneTheBouncedBytes) {
  // A read of kStreamingCopyBytes or more (a GetArray's 4 KiB grains into
  // one std::vector, at page + 16): its bounced ranges are copied out past
  // the cache, land whole and in place, and `done` is handed the bytes in
  // the bounce (not the destination), equal to the file's; a range read
  // straight in is handed its destination.
  const uint64_t kGrain = 4096, kGrains = (kStreamingCopyBytes + (4 << 20)) / kGrain;
  Fixture fx(kGrains * kGrain + 3 * kPage);
  for (uint64_t d : {uint64_t(16), uint64_t(0), uint64_t(2048)}) {
    Arena a(kGrains * kGrain + 4 * kPage);
    uint64_t slot = 0, offset = kPage;
    char* dest = Place(&a, &slot, offset, kGrains * kGrain, d);
    std::vector<ReadRange> ranges;
    for (uint64_t g = 0; g < kGrains; g++)
      ranges.push_back(ReadRange{0, offset + g * kGrain, kGrain, dest + g * kGrain, g});
    std::vector<int> dones(kGrains, 0);
    size_t wrong = 0, elsewhere = 0;
    ReadCounts counts;
    Status s = ReadCoalesced(ranges, ReadPlanLimits(), fx.Resolver(),
                             [&](const ReadRange& x, const char* bytes) {
                               dones[x.tag]++;
                               if (std::memcmp(bytes, fx.bytes.data() + x.offset, x.length) != 0) wrong++;
                               if (std::memcmp(x.dest, fx.bytes.data() + x.offset, x.length) != 0) wrong++;
                               if (bytes != x.dest) elsewhere++;
                             },
                             &counts);
    ASSERT_TRUE(s.ok()) << s.ToString();
    SCOPED_TRACE("distance " + std::to_string(d));
    for (uint64_t g = 0; g < kGrains; g++) ASSERT_EQ(dones[g], 1) << "grain " << g;
    EXPECT_EQ(wrong, 0u);
    EXPECT_EQ(std::memcmp(dest, fx.bytes.data() + offset, kGrains * kGrain), 0);
    EXPECT_EQ(counts.bounced, Short(d) ? kGrains * kGrain : 0);
    EXPECT_EQ(counts.streamed, counts.bounced);
    EXPECT_EQ(elsewhere, Short(d) ? kGrains : 0) << "done must read bounced bytes in the bounce";
    ExpectGuardsIntact(a, ranges);
  }
}

// Through the store: an array larger than kStreamingCopyBytes read whole
// into a buffer at page + 16 from its block's file offset (as a
// std::vector's) is what was put, and one damaged byte is Corruption.
TEST(ReadBounce, LargeArrayReadIntoAVectorLikeBufferIsVerified) {
  TempDir dir;
  std::string path = dir.sub("s");
  const uint64_t rows = 2560, cols = 512;  // 10 MiB of float64
  std::vector<double> v(rows * cols);
  for (uint64_t i = 0; i < v.size(); i++) v[i] = double(i) * 0.5 + 1.0;
  {
    auto s = test::MustOpen(path, test::SmallOptions());
    ASSERT_TRUE(s->PutArray("a", DType::kFloat64, {rows, cols}, {0, 0}, {rows, cols}, v.data()).ok());
    ASSERT_TRUE(s->Commit().ok());
  }
  std::string data = path + "/data.00000";
  std::string head(reinterpret_cast<const char*>(v.data()), 64);
  uint64_t at = test::FileOffsetOf(data, head);
  const uint64_t n = v.size() * sizeof(double);
  Arena a(n + 4 * kPage);
  uint64_t slot = 0;
  char* dest = Place(&a, &slot, at, n, 16);
  {
    auto s = test::MustOpen(path, test::SmallOptions());
    ASSERT_TRUE(s->GetArray("a", {0, 0}, {rows, cols}, dest).ok());
    EXPECT_EQ(std::memcmp(dest, v.data(), n), 0);
    ExpectGuardsIntact(a, {ReadRange{0, at, n, dest, 0}});
  }
  test::FlipByte(data, at + n / 2 + 77);
  auto s = test::MustOpen(path, test::SmallOptions());
  Status r = s->GetArray("a", {0, 0}, {rows, cols}, dest);
  EXPECT_TRUE(r.IsCorruption()) << r.ToString();
}

TEST(ReadBounce, ReadWholeAtEveryPlacement) {
  // One buffer read whole (an index table), cached or dropped behind.
  Fixture fx(12 << 20);
  for (uint64_t len : {uint64_t(1), uint64_t(4096), uint64_t((1 << 20) + 5), uint64_t((9 << 20) + 3)}) {
    for (uint64_t d : kDistances) {
      for (bool once : {false, true}) {
        Arena a(len + 4 * kPage);
        uint64_t slot = 0, offset = 4096 * 5 + (len & 4095);
        std::vector<ReadRange> ranges = {ReadRange{0, offset, len, Place(&a, &slot, offset, len, d), 0}};
        uint64_t before = fx.stats.read_requests;
        Status s = ReadWhole(fx.file.get(), offset, ranges[0].dest, len, once);
        ASSERT_TRUE(s.ok()) << s.ToString();
        SCOPED_TRACE("length " + std::to_string(len) + " distance " + std::to_string(d));
        EXPECT_EQ(std::memcmp(ranges[0].dest, fx.bytes.data() + offset, len), 0);
        // A MiB per request through the bounce, one request otherwise.
        EXPECT_EQ(fx.stats.read_requests - before, Short(d) ? (len + (1 << 20) - 1) >> 20 : 1);
        ExpectGuardsIntact(a, ranges);
      }
    }
  }
  // A file too short is still Corruption through the bounce.
  Arena a(2 << 20);
  char* dest = a.data + ((fx.bytes.size() - 100 + 16) & (kPage - 1));
  Status s = ReadWhole(fx.file.get(), fx.bytes.size() - 100, dest, 1 << 20, true);
  EXPECT_TRUE(s.IsCorruption()) << s.ToString();
}

// Through the store: values read into buffers at every distance from their
// chunks' file offsets (found in the data file) are what was put, and one
// damaged byte in a bounced chunk is Corruption, never data.
TEST(ReadBounce, StoreReadsIntoShortDistanceBuffersAndDetectsDamage) {
  TempDir dir;
  std::string path = dir.sub("s");
  Options o = test::SmallOptions();
  o.chunk_size = 1 << 20;
  const size_t kBig = (3 << 20) + 11, kSmall = 70000;
  std::vector<std::string> keys, values;
  for (int i = 0; i < 6; i++) {
    keys.push_back("v" + std::to_string(i));
    values.push_back(Pattern(uint64_t(100 + i), i == 0 ? kBig : kSmall));
  }
  {
    auto s = test::MustOpen(path, o);
    for (size_t i = 0; i < keys.size(); i++) ASSERT_TRUE(s->Put(keys[i], values[i]).ok());
    ASSERT_TRUE(s->Commit().ok());
  }
  std::string data = path + "/data.00000";
  std::vector<uint64_t> at;
  for (const std::string& v : values) at.push_back(test::FileOffsetOf(data, v.substr(0, 64)));
  Arena a(32 << 20);
  auto read_all = [&](Store* s, uint64_t d, std::vector<Status>* st) {
    uint64_t slot = 0;
    std::vector<Store::ValueBuffer> bufs;
    for (size_t i = 0; i < keys.size(); i++)
      bufs.push_back(Store::ValueBuffer{Place(&a, &slot, at[i], values[i].size(), d), values[i].size(), 0});
    std::memset(a.data, kGuard, a.size);
    Status first = s->MultiGet(keys, &bufs, st);
    for (size_t i = 0; i < keys.size(); i++) {
      if (!(*st)[i].ok()) continue;
      EXPECT_EQ(bufs[i].size, values[i].size());
      EXPECT_EQ(std::memcmp(bufs[i].data, values[i].data(), values[i].size()), 0) << keys[i] << " distance " << d;
    }
    return first;
  };
  {
    auto s = test::MustOpen(path, o);
    for (uint64_t d : kDistances) {
      std::vector<Status> st;
      Status r = read_all(s.get(), d, &st);
      EXPECT_TRUE(r.ok()) << r.ToString() << " distance " << d;
      // GetRange of the big value into a short-distance buffer.
      uint64_t slot = 0;
      char* dest = Place(&a, &slot, at[0] + 4096, 2 << 20, d);
      ASSERT_TRUE(s->GetRange(keys[0], 4096, dest, 2 << 20).ok());
      EXPECT_EQ(std::memcmp(dest, values[0].data() + 4096, 2 << 20), 0) << "distance " << d;
    }
    std::string v;
    ASSERT_TRUE(s->Get(keys[0], &v).ok());
    EXPECT_EQ(v, values[0]);
  }
  // One byte of the big value's second chunk, and one of a small value.
  test::FlipByte(data, at[0] + (1 << 20) + 12345);
  test::FlipByte(data, at[3] + 999);
  auto s = test::MustOpen(path, o);
  for (uint64_t d : kDistances) {
    std::vector<Status> st;
    Status r = read_all(s.get(), d, &st);
    EXPECT_TRUE(r.IsCorruption()) << r.ToString();
    for (size_t i = 0; i < keys.size(); i++) {
      bool damaged = i == 0 || i == 3;
      EXPECT_EQ(st[i].IsCorruption(), damaged) << keys[i] << " distance " << d << ": " << st[i].ToString();
      EXPECT_EQ(st[i].ok(), !damaged) << keys[i] << " distance " << d;
    }
  }
  std::string v = "stale";
  EXPECT_TRUE(s->Get(keys[0], &v).IsCorruption());
  EXPECT_TRUE(v.empty());
}

// A read after the reading thread's own destructors ran (a std::atexit
// handler or a static destructor on the main thread, whose thread_local
// objects are destroyed first by exit(); another thread_local's destructor)
// still reads the right bytes: the bounce freed then is not used (it was,
// and the read went into unmapped or reused memory). In a child process,
// with the bounce from mmap (M_MMAP_THRESHOLD), so that free unmaps it.
Store* g_exit_store = nullptr;
std::string* g_exit_value = nullptr;
uint64_t g_exit_offset = 0;

// GetRange of the value into a buffer at distance 16 from its file offset;
// true if it read the value's bytes.
bool ReadShortAtExit() {
  const uint64_t n = g_exit_value->size();
  char* a = static_cast<char*>(std::aligned_alloc(kPage, n + 2 * kPage));
  if (a == nullptr) return false;
  char* dest = a + ((g_exit_offset + 16) & (kPage - 1));
  bool ok = g_exit_store->GetRange("v", 0, dest, n).ok() && std::memcmp(dest, g_exit_value->data(), n) == 0;
  std::free(a);
  return ok;
}

TEST(ReadBounce, ReadsAfterTheThreadsDestructorsStillReadTheBytes) {
  TempDir dir;
  std::string path = dir.sub("s");
  Options o = test::SmallOptions();
  o.chunk_size = 1 << 20;
  std::string value = Pattern(5, 300000);
  {
    auto s = test::MustOpen(path, o);
    ASSERT_TRUE(s->Put("v", value).ok());
    ASSERT_TRUE(s->Commit().ok());
  }
  uint64_t offset = test::FileOffsetOf(path + "/data.00000", value.substr(0, 64));
  std::fflush(nullptr);
  pid_t pid = ::fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    ::mallopt(M_MMAP_THRESHOLD, 128 * 1024);
    std::unique_ptr<Store> s;
    if (!Store::Open(o, path, &s).ok()) ::_exit(2);
    g_exit_store = s.release();  // kept past exit()
    g_exit_value = new std::string(value);
    g_exit_offset = offset;
    // Another thread: a thread_local made before its first read reads in
    // its destructor, after the bounce's (destroyed in reverse order).
    bool thread_ok = false;
    std::thread([&] {
      struct ReadsWhenDestroyed {
        bool* ok;
        ~ReadsWhenDestroyed() { *ok = ReadShortAtExit(); }
      };
      static thread_local ReadsWhenDestroyed r{&thread_ok};
      if (!ReadShortAtExit()) ::_exit(3);
    }).join();
    if (!thread_ok) ::_exit(4);
    if (!ReadShortAtExit()) ::_exit(5);  // the main thread's bounce, made
    std::atexit([] { ::_exit(ReadShortAtExit() ? 0 : 6); });
    std::exit(7);
  }
  int status = 0;
  ASSERT_EQ(::waitpid(pid, &status, 0), pid);
  ASSERT_TRUE(WIFEXITED(status)) << "the child died of signal " << WTERMSIG(status);
  EXPECT_EQ(WEXITSTATUS(status), 0) << "2: open failed, 3/5: a read failed, 4: the read in a thread_local's "
                                       "destructor failed, 6: the read in a std::atexit handler failed";
}

}  // namespace
}  // namespace cairn
