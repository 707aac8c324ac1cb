// A grain damaged in the middle of a read of many requests (io/
// coalescing_reader.h cuts reads into requests, of about 16 MiB for values
// and 1 MiB for arrays, and verifies
// each request's chunks after it) is Corruption for Get, GetRange, both
// MultiGets and a full GetArray, and the intact values and rows around it
// read correctly. Written beside a pipeline that verified request k on a
// second thread while request k+1 was read (measured, not kept: bench/
// HISTORY.md, "A verify pipeline"); it guards whatever overlaps reads and
// verification next.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "cairn/store.h"
#include "store_test_util.h"
#include "test_util.h"

namespace cairn {
namespace {

using test::MustOpen;
using test::Pattern;
using test::FileOffsetOf;
using test::TempDir;

constexpr size_t kMiB = 1 << 20;

std::string Key(int i) { return "k" + std::to_string(i); }

Options BigOptions() {
  Options o = test::SmallOptions();
  o.extent_size = 64ull << 20;
  o.chunk_size = 256 << 10;
  o.write_buffer_size = 1 << 20;
  return o;
}

TEST(ReadManyRequests, DamageInTheMiddleOfAMultiRequestReadIsCorruption) {
  TempDir dir;
  std::string path = dir.sub("s");
  // Values read in requests of about 16 MiB (kValueRequestBytes): three each.
  const size_t kValue = 40 * kMiB;
  {
    auto s = MustOpen(path, BigOptions());
    for (int i = 0; i < 3; i++) ASSERT_TRUE(s->Put(Key(i), Pattern(uint64_t(i), kValue)).ok());
    ASSERT_TRUE(s->Commit().ok());
  }
  // Intact: a 40 MiB Get (several requests) reads whole.
  {
    auto s = MustOpen(path, BigOptions());
    std::string v;
    ASSERT_TRUE(s->Get(Key(1), &v).ok());
    EXPECT_EQ(v, Pattern(1, kValue));
  }
  // One byte of k1 at 20.5 MiB: in the request in the middle of its read.
  std::string value = Pattern(1, kValue);
  uint64_t at = FileOffsetOf(path + "/data.00000", value.substr(0, 64)) + 20 * kMiB + kMiB / 2 + 7;
  test::FlipByte(path + "/data.00000", at);
  auto s = MustOpen(path, BigOptions());

  IoStats io = s->stats();
  std::string v = "stale";
  Status r = s->Get(Key(1), &v);
  EXPECT_GE(s->stats().read_requests - io.read_requests, 3u) << "not a read of several requests";
  EXPECT_TRUE(r.IsCorruption()) << r.ToString();
  EXPECT_NE(r.message().find("checksum mismatch"), std::string::npos) << r.ToString();
  EXPECT_TRUE(v.empty());
  // GetRange of the damaged MiB alone, and of a MiB beside it.
  std::string mib(kMiB, '\0');
  EXPECT_TRUE(s->GetRange(Key(1), 20 * kMiB, mib.data(), kMiB).IsCorruption());
  ASSERT_TRUE(s->GetRange(Key(1), 30 * kMiB, mib.data(), kMiB).ok());
  EXPECT_EQ(mib, value.substr(30 * kMiB, kMiB));

  // All three values in one MultiGet (one coalesced pass of ~8 requests):
  // only k1 fails, the values before and after it read whole.
  std::vector<std::string> keys = {Key(0), Key(1), Key(2)};
  std::vector<std::string> values;
  std::vector<Status> st;
  io = s->stats();
  r = s->MultiGet(keys, &values, &st);
  EXPECT_GE(s->stats().read_requests - io.read_requests, 7u) << "not a read of several requests";
  EXPECT_TRUE(r.IsCorruption()) << r.ToString();
  ASSERT_EQ(st.size(), 3u);
  EXPECT_TRUE(st[0].ok()) << st[0].ToString();
  EXPECT_TRUE(st[1].IsCorruption()) << st[1].ToString();
  EXPECT_TRUE(st[2].ok()) << st[2].ToString();
  EXPECT_EQ(values[0], Pattern(0, kValue));
  EXPECT_TRUE(values[1].empty());
  EXPECT_EQ(values[2], Pattern(2, kValue));

  std::vector<std::string> bufs(3, std::string(kValue, 'x'));
  std::vector<Store::ValueBuffer> vb;
  for (std::string& b : bufs) vb.push_back({b.data(), b.size(), 0});
  r = s->MultiGet(keys, &vb, &st);
  EXPECT_TRUE(r.IsCorruption()) << r.ToString();
  EXPECT_TRUE(st[1].IsCorruption()) << st[1].ToString();
  EXPECT_EQ(bufs[1], std::string(kValue, '\0'));  // no byte of the damaged value is left
  EXPECT_EQ(bufs[0], Pattern(0, kValue));
  EXPECT_EQ(bufs[2], Pattern(2, kValue));
}

TEST(ReadManyRequests, DamagedGrainInTheMiddleOfAFullArrayReadIsCorruption) {
  TempDir dir;
  std::string path = dir.sub("s");
  Options o = test::SmallOptions();
  o.extent_size = 64ull << 20;
  o.chunk_size = 4ull << 20;
  std::vector<uint64_t> shape = {32, 256, 256};  // 16 MiB of float64, 4 KiB grains
  const size_t kBytes = 32 * 256 * 256 * 8;
  std::string all = Pattern(21, kBytes);
  {
    auto s = MustOpen(path, o);
    // Two blocks (rows [0, 16) and [16, 32)): the read crosses blocks too.
    ASSERT_TRUE(s->PutArray("a", DType::kFloat64, shape, {0, 0, 0}, {16, 256, 256}, all.data()).ok());
    ASSERT_TRUE(s->PutArray("a", DType::kFloat64, shape, {16, 0, 0}, {16, 256, 256}, all.data() + kBytes / 2).ok());
    ASSERT_TRUE(s->Commit().ok());
  }
  std::string out(kBytes, '\0');
  {
    auto s = MustOpen(path, o);
    ASSERT_TRUE(s->GetArray("a", {0, 0, 0}, shape, out.data()).ok());
    EXPECT_EQ(out, all);
  }
  // A byte of element row 9 (5 MiB into the first block): the middle of
  // the first block's requests.
  uint64_t base = FileOffsetOf(path + "/data.00000", all.substr(0, 64));
  test::FlipByte(path + "/data.00000", base + 5 * kMiB + 12345);
  auto s = MustOpen(path, o);
  uint64_t requests = s->array_read_stats().requests;
  Status r = s->GetArray("a", {0, 0, 0}, shape, out.data());
  EXPECT_GE(s->array_read_stats().requests - requests, 12u) << "not a read of several requests";
  EXPECT_TRUE(r.IsCorruption()) << r.ToString();
  EXPECT_NE(r.message().find("checksum mismatch"), std::string::npos) << r.ToString();
  // The rows around the damaged grain, and the second block, read.
  std::string half(kBytes / 2, '\0');
  ASSERT_TRUE(s->GetArray("a", {16, 0, 0}, {16, 256, 256}, half.data()).ok());
  EXPECT_EQ(half, all.substr(kBytes / 2));
  std::string rows(4 * 256 * 256 * 8, '\0');
  ASSERT_TRUE(s->GetArray("a", {0, 0, 0}, {4, 256, 256}, rows.data()).ok());
  EXPECT_EQ(rows, all.substr(0, rows.size()));
}

}  // namespace
}  // namespace cairn
