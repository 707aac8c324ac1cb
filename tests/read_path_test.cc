// The read path in a single process: how much a batch read reads against
// what it asks for (ReadOptions::max_read_amplification, seen through
// Store::stats()), MultiGet into the caller's buffers, and corruption found
// by both MultiGets. See doc/design.md "The read path".
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <random>

#include "cairn/store.h"
#include "store_test_util.h"
#include "test_util.h"

namespace cairn {
namespace {

using test::MustOpen;
using test::Pattern;
using test::SmallOptions;
using test::TempDir;

std::string Key(int i) { return "k" + std::to_string(i); }

// `n` values of `size` bytes, written back to back (one rank, one file).
std::unique_ptr<Store> StoreOf(const std::string& path, int n, size_t size) {
  Options o = SmallOptions();
  o.extent_size = 16ull << 20;
  o.chunk_size = 1 << 20;
  o.write_buffer_size = 1 << 20;
  auto s = MustOpen(path, o);
  for (int i = 0; i < n; i++) EXPECT_TRUE(s->Put(Key(i), Pattern(uint64_t(i), size)).ok());
  EXPECT_TRUE(s->Commit().ok());
  return s;
}

// Reads `ids` with one MultiGet, checks the values, and returns bytes read
// / bytes wanted from stats().
double Amplification(Store* s, const std::vector<int>& ids, size_t size, const ReadOptions& ro = {}) {
  std::vector<std::string> keys, values;
  for (int i : ids) keys.push_back(Key(i));
  std::vector<Status> st;
  IoStats b = s->stats();
  Status r = s->MultiGet(keys, &values, &st, ro);
  EXPECT_TRUE(r.ok()) << r.ToString();
  for (size_t k = 0; k < ids.size(); k++) EXPECT_EQ(values[k], Pattern(uint64_t(ids[k]), size)) << keys[k];
  return double(s->stats().read_bytes - b.read_bytes) / double(ids.size() * size);
}

TEST(ReadPath, ScatteredGetsReadAtMostTwiceWhatTheyWant) {
  TempDir dir;
  const size_t kSize = 8192;
  auto s = StoreOf(dir.sub("s"), 1000, kSize);
  // Every third value: gaps of twice the value. Merging them (a 4 MiB gap
  // limit alone would) reads 3x; they must stay separate requests.
  std::vector<int> third;
  for (int i = 0; i < 1000; i += 3) third.push_back(i);
  EXPECT_LE(Amplification(s.get(), third, kSize), 2.0);
  // 1 % at random, as a restart reading a few objects does.
  std::mt19937 g(7);
  std::vector<int> all(1000);
  for (int i = 0; i < 1000; i++) all[size_t(i)] = i;
  std::shuffle(all.begin(), all.end(), g);
  std::vector<int> some(all.begin(), all.begin() + 10);
  EXPECT_LE(Amplification(s.get(), some, kSize), 2.0);
  // Every other value: a gap as large as the value is worth merging (2x).
  std::vector<int> half;
  for (int i = 0; i < 1000; i += 2) half.push_back(i);
  IoStats b = s->stats();
  EXPECT_LE(Amplification(s.get(), half, kSize), 2.0);
  EXPECT_LT(s->stats().read_requests - b.read_requests, 500u / 4);  // merged, not one each
  // Amplification 1: only touching ranges merge, nothing unasked is read.
  ReadOptions exact;
  exact.max_read_amplification = 1.0;
  EXPECT_EQ(Amplification(s.get(), half, kSize, exact), 1.0);
  EXPECT_EQ(Amplification(s.get(), some, kSize, exact), 1.0);
  // GetRange too is a bounded read: one value of the middle.
  b = s->stats();
  std::string v;
  ASSERT_TRUE(s->Get(Key(500), &v).ok());
  EXPECT_EQ(v, Pattern(500, kSize));
  EXPECT_EQ(s->stats().read_bytes - b.read_bytes, kSize);
}

TEST(ReadPath, FullReadInManyRequestsIsExact) {
  TempDir dir;
  // 3000 values of 600 bytes back to back: more than IOV_MAX (1024) ranges
  // per MiB, so requests are cut by their iovec count as well as by size.
  const size_t kSize = 600;
  auto s = StoreOf(dir.sub("s"), 3000, kSize);
  std::vector<int> ids;
  for (int i = 2999; i >= 0; i--) ids.push_back(i);  // any order
  EXPECT_EQ(Amplification(s.get(), ids, kSize), 1.0);
  // With gaps (every other value, merged): the gaps land in scratch memory.
  ids.clear();
  for (int i = 1; i < 3000; i += 2) ids.push_back(i);
  EXPECT_LE(Amplification(s.get(), ids, kSize), 2.0);
  // Gaps that grow within one request (0..99, then every (k+1)-th value):
  // each needs more scratch than the one before.
  ids.clear();
  for (int i = 0; i < 100; i++) ids.push_back(i);
  for (int i = 100, k = 1; i < 3000 && k < 20; k++, i += k) ids.push_back(i);
  EXPECT_LE(Amplification(s.get(), ids, kSize), 2.0);
  // The same key twice (overlapping ranges of one block).
  ids = {5, 6, 5, 7, 6};
  EXPECT_LE(Amplification(s.get(), ids, kSize), 1.0);
}

TEST(ReadPath, MultiGetIntoCallerBuffers) {
  TempDir dir;
  Options o = SmallOptions();  // 16 KiB chunks; values of <= 100 bytes inline
  auto s = MustOpen(dir.sub("s"), o);
  std::vector<std::pair<std::string, std::string>> kv = {
      {"big", Pattern(1, 200000)},   // 13 chunks, several extents
      {"small", Pattern(2, 50)},     // inline
      {"empty", std::string()},
      {"mid", Pattern(3, 20000)},
  };
  for (auto& [k, v] : kv) ASSERT_TRUE(s->Put(k, v).ok());
  ASSERT_TRUE(s->Commit().ok());

  std::vector<std::string> keys;
  std::vector<std::vector<char>> mem;
  std::vector<Store::ValueBuffer> bufs;
  for (auto& [k, v] : kv) {
    keys.push_back(k);
    mem.emplace_back(v.size() + 7, 'x');
  }
  keys.push_back("missing");
  mem.emplace_back(10, 'x');
  keys.push_back("mid");  // again, into a buffer too small for it
  mem.emplace_back(19999, 'x');
  for (auto& m : mem) bufs.push_back(Store::ValueBuffer{m.data(), m.size(), 0});
  std::vector<Status> st;
  Status r = s->MultiGet(keys, &bufs, &st);
  EXPECT_TRUE(r.IsNotFound()) << r.ToString();  // the first failure
  for (size_t i = 0; i < kv.size(); i++) {
    ASSERT_TRUE(st[i].ok()) << keys[i] << ": " << st[i].ToString();
    EXPECT_EQ(bufs[i].size, kv[i].second.size());
    EXPECT_EQ(std::string(mem[i].data(), bufs[i].size), kv[i].second) << keys[i];
    EXPECT_EQ(mem[i][bufs[i].size], 'x');  // nothing past the value
  }
  EXPECT_TRUE(st[4].IsNotFound());
  EXPECT_TRUE(st[5].IsInvalidArgument()) << st[5].ToString();
  EXPECT_NE(st[5].message().find("'mid'"), std::string::npos);
  EXPECT_EQ(bufs[5].size, 20000u);
  EXPECT_EQ(mem[5], std::vector<char>(19999, 'x'));  // untouched
  // Buffers and keys must pair up.
  bufs.pop_back();
  EXPECT_TRUE(s->MultiGet(keys, &bufs, &st).IsInvalidArgument());
}

TEST(ReadPath, FlippedByteIsCorruptionInBothMultiGets) {
  TempDir dir;
  std::string path = dir.sub("s");
  {
    auto s = MustOpen(path);
    ASSERT_TRUE(s->Put("v", Pattern(5, 50000)).ok());
    ASSERT_TRUE(s->Put("w", Pattern(6, 30000)).ok());
    ASSERT_TRUE(s->Commit().ok());
  }
  // "v" starts at the first extent (64 KiB with SmallOptions).
  test::FlipByte(path + "/data.00000", 65536 + 20000);
  auto s = MustOpen(path);
  std::vector<std::string> keys = {"v", "w"};
  std::vector<char> a(50000, 'x'), b(30000, 'x');
  std::vector<Store::ValueBuffer> bufs = {{a.data(), a.size(), 0}, {b.data(), b.size(), 0}};
  std::vector<Status> st;
  Status r = s->MultiGet(keys, &bufs, &st);
  EXPECT_TRUE(r.IsCorruption()) << r.ToString();
  EXPECT_TRUE(st[0].IsCorruption());
  EXPECT_NE(st[0].message().find("'v'"), std::string::npos) << st[0].ToString();
  EXPECT_EQ(a, std::vector<char>(50000, '\0'));  // no byte of the damaged value is left
  ASSERT_TRUE(st[1].ok()) << st[1].ToString();
  EXPECT_EQ(std::string(b.data(), b.size()), Pattern(6, 30000));

  std::vector<std::string> values = {"stale", "stale"};
  r = s->MultiGet(keys, &values, &st);
  EXPECT_TRUE(r.IsCorruption()) << r.ToString();
  EXPECT_TRUE(st[0].IsCorruption());
  EXPECT_TRUE(values[0].empty());
  EXPECT_EQ(values[1], Pattern(6, 30000));
}

}  // namespace
}  // namespace cairn
