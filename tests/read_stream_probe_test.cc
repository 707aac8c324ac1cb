// Probes of the streaming copy-out (io/streaming_copy.h) through the public
// API: reads of kStreamingCopyBytes or more into buffers at page + 16 from
// the bytes' file offsets, by each read path (GetArray scattered, cut and
// mixed boxes; both MultiGets; Get; GetRange cutting chunks), return what
// was put, write nothing around the buffer, and a damaged byte is
// Corruption on every path.
#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "cairn/array.h"
#include "cairn/store.h"
#include "io/coalescing_reader.h"
#include "store_test_util.h"
#include "test_util.h"

namespace cairn {
namespace {

using test::Pattern;
using test::TempDir;

constexpr uint64_t kPage = 4096;
constexpr char kGuard = '\x5a';

// n bytes at distance d from file offset `at` within a page, with guard
// pages around.
struct Placed {
  Placed(uint64_t at, uint64_t n, uint64_t d)
      : size(n + 4 * kPage), base(static_cast<char*>(std::aligned_alloc(kPage, n + 4 * kPage))), n(n) {
    std::memset(base, kGuard, size);
    p = base + kPage + ((at + d) & (kPage - 1));
  }
  ~Placed() { std::free(base); }
  size_t GuardsHit() const {
    size_t bad = 0;
    for (char* q = base; q < p; q++) bad += *q != kGuard;
    for (char* q = p + n; q < base + size; q++) bad += *q != kGuard;
    return bad;
  }
  size_t size;
  char* base;
  uint64_t n;
  char* p = nullptr;
};

uint64_t Prod(const std::vector<uint64_t>& v) {
  uint64_t p = 1;
  for (uint64_t x : v) p *= x;
  return p;
}

// The box (st, ct) of a row-major 2-D array of 8-byte elements.
std::string Cut(const std::string& all, uint64_t cols, const std::vector<uint64_t>& st,
                const std::vector<uint64_t>& ct) {
  std::string out;
  for (uint64_t r = 0; r < ct[0]; r++) out.append(all, size_t(((st[0] + r) * cols + st[1]) * 8), size_t(ct[1] * 8));
  return out;
}

// Two blocks side by side, rows of 2 KiB each: a 4 KiB grain holds two
// rows, which land 4 KiB apart in the whole array's buffer (kScatter), one
// of them at page + 16 (bounced), the other at page + 2064.
TEST(ReadStreamProbe, ArrayBoxesAtPagePlus16) {
  TempDir dir;
  std::string path = dir.sub("s");
  Options o = test::SmallOptions();
  o.chunk_size = 4ull << 20;
  o.extent_size = 64ull << 20;
  const uint64_t rows = 4096, cols = 512, half = 256;  // 16 MiB
  std::string all = Pattern(31, size_t(rows * cols * 8));
  std::string a = Cut(all, cols, {0, 0}, {rows, half}), b = Cut(all, cols, {0, half}, {rows, half});
  {
    auto s = test::MustOpen(path, o);
    ASSERT_TRUE(s->PutArray("g", DType::kFloat64, {rows, cols}, {0, 0}, {rows, half}, a.data()).ok());
    ASSERT_TRUE(s->PutArray("g", DType::kFloat64, {rows, cols}, {0, half}, {rows, half}, b.data()).ok());
    ASSERT_TRUE(s->Commit().ok());
  }
  std::string file = path + "/data.00000";
  uint64_t at_a = test::FileOffsetOf(file, a.substr(0, 64)), at_b = test::FileOffsetOf(file, b.substr(0, 64));
  ASSERT_EQ(at_a % kPage, 0u);
  ASSERT_EQ(at_b % kPage, 0u);
  struct Case {
    const char* name;
    std::vector<uint64_t> st, ct;
  } cases[] = {
      {"scatter", {0, 0}, {rows, cols}},
      {"mixed", {1, 0}, {rows - 2, cols}},      // first and last grains cut, the rest scattered
      {"side", {0, 1}, {rows, cols - 2}},       // every grain cut
      {"one block", {0, half}, {rows, half}},   // B alone, direct
  };
  auto read = [&](Store* s, const Case& c, Status* st) {
    const uint64_t n = Prod(c.ct) * 8;
    // The box's first element at page + 16 from its block's file offset.
    uint64_t first = c.st[1] < half ? at_a + (c.st[0] * half + c.st[1]) * 8
                                    : at_b + (c.st[0] * half + c.st[1] - half) * 8;
    Placed out(first, n, 16);
    *st = s->GetArray("g", c.st, c.ct, out.p);
    EXPECT_EQ(out.GuardsHit(), 0u) << c.name;
    return st->ok() ? std::string(out.p, n) : std::string();
  };
  {
    auto s = test::MustOpen(path, o);
    for (const Case& c : cases) {
      Status st;
      std::string got = read(s.get(), c, &st);
      EXPECT_TRUE(st.ok()) << c.name << ": " << st.ToString();
      EXPECT_TRUE(got == Cut(all, cols, c.st, c.ct)) << c.name;
    }
  }
  // Grain 100 of A: its first row lands at page + 16 (bounced), its second
  // at page + 2064 (read straight in); grain 101 of B the other way round.
  for (uint64_t flip : {at_a + 100 * kPage + 100, at_a + 100 * kPage + 2048 + 100, at_b + 101 * kPage + 100,
                        at_b + 101 * kPage + 2048 + 100}) {
    test::FlipByte(file, flip);
    auto s = test::MustOpen(path, o);
    for (const Case& c : cases) {
      if (std::string(c.name) == "one block" && flip < at_b) continue;
      Status st;
      read(s.get(), c, &st);
      EXPECT_TRUE(st.IsCorruption()) << c.name << " flip at " << flip - at_a << ": " << st.ToString();
    }
    test::FlipByte(file, flip);  // repaired
  }
}

// Values of 4 MiB + 5 (three, 12 MiB in one MultiGet; chunks of 1 MiB).
TEST(ReadStreamProbe, ValuesAtPagePlus16) {
  TempDir dir;
  std::string path = dir.sub("s");
  Options o = test::SmallOptions();
  o.chunk_size = 1 << 20;
  const size_t kLen = (4 << 20) + 5;
  std::vector<std::string> keys, values;
  for (int i = 0; i < 3; i++) {
    keys.push_back("v" + std::to_string(i));
    values.push_back(Pattern(uint64_t(200 + i), kLen));
  }
  const std::string big = Pattern(299, (12 << 20) + 77);
  {
    auto s = test::MustOpen(path, o);
    for (size_t i = 0; i < keys.size(); i++) ASSERT_TRUE(s->Put(keys[i], values[i]).ok());
    ASSERT_TRUE(s->Put("big", big).ok());
    ASSERT_TRUE(s->Commit().ok());
  }
  std::string file = path + "/data.00000";
  std::vector<uint64_t> at;
  for (const std::string& v : values) at.push_back(test::FileOffsetOf(file, v.substr(0, 64)));
  const uint64_t at_big = test::FileOffsetOf(file, big.substr(0, 64));
  // Every path; returns how many keys were reported Corruption, and counts
  // values reported ok but wrong in *wrong.
  auto probe = [&](size_t* wrong) {
    auto s = test::MustOpen(path, o);
    size_t corrupt = 0;
    {  // MultiGet into buffers at page + 16
      std::vector<std::unique_ptr<Placed>> pl;
      std::vector<Store::ValueBuffer> bufs;
      for (size_t i = 0; i < keys.size(); i++) {
        pl.push_back(std::make_unique<Placed>(at[i], kLen, 16));
        bufs.push_back(Store::ValueBuffer{pl.back()->p, kLen, 0});
      }
      std::vector<Status> st;
      s->MultiGet(keys, &bufs, &st);
      for (size_t i = 0; i < keys.size(); i++) {
        corrupt += st[i].IsCorruption();
        if (st[i].ok() && std::memcmp(pl[i]->p, values[i].data(), kLen) != 0) {
          (*wrong)++;
          ADD_FAILURE() << "MultiGet buffers: " << keys[i] << " wrong";
        }
        EXPECT_EQ(pl[i]->GuardsHit(), 0u);
      }
    }
    {  // MultiGet into strings (page + 16 from malloc, whatever the offset)
      std::vector<std::string> got;
      std::vector<Status> st;
      s->MultiGet(keys, &got, &st);
      for (size_t i = 0; i < keys.size(); i++) {
        corrupt += st[i].IsCorruption();
        if (st[i].ok() && got[i] != values[i]) {
          (*wrong)++;
          ADD_FAILURE() << "MultiGet strings: " << keys[i] << " wrong";
        }
      }
    }
    {  // Get, GetRange whole and cutting chunks at both ends
      std::string v;
      Status st = s->Get("big", &v);
      corrupt += st.IsCorruption();
      if (st.ok() && v != big) {
        (*wrong)++;
        ADD_FAILURE() << "Get wrong";
      }
      for (uint64_t off : {uint64_t(0), uint64_t(1000)}) {
        const uint64_t n = big.size() - off - 3000;
        Placed out(at_big + off, n, 16);
        st = s->GetRange("big", off, out.p, n);
        corrupt += st.IsCorruption();
        if (st.ok() && std::memcmp(out.p, big.data() + off, n) != 0) {
          (*wrong)++;
          ADD_FAILURE() << "GetRange at " << off << " wrong";
        }
        EXPECT_EQ(out.GuardsHit(), 0u);
      }
    }
    return corrupt;
  };
  size_t wrong = 0;
  EXPECT_EQ(probe(&wrong), 0u);
  EXPECT_EQ(wrong, 0u);
  // A byte in the second chunk of v1, one in the third chunk of big, one
  // in big's last chunk (cut by the second GetRange).
  test::FlipByte(file, at[1] + (1 << 20) + 4321);
  test::FlipByte(file, at_big + (2 << 20) + 77);
  test::FlipByte(file, at_big + big.size() - 10);
  wrong = 0;
  EXPECT_EQ(probe(&wrong), 2u + 3u);  // v1 twice; Get and both GetRanges
  EXPECT_EQ(wrong, 0u);
}

}  // namespace
}  // namespace cairn
