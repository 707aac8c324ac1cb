// A value larger than the memory the process may still take (a restart on
// a node with less memory than the one that wrote it): Get, MultiGet into
// strings and GetShared return an IOError naming the key and its size
// instead of throwing std::bad_alloc out of the API; GetRange of a part
// still works, and the store goes on. The memory is bounded with
// RLIMIT_AS (soft limit, raised back after), not mocked.
#include <gtest/gtest.h>

#include <string>

#include "address_limit.h"
#include "store_test_util.h"
#include "test_util.h"

namespace cairn {
namespace {

using namespace cairn::test;

constexpr uint64_t kValue = 64ull << 20;

TEST(ReadMemory, AValueLargerThanTheMemoryLeftIsAnErrorNotAnException) {
  SKIP_UNDER_ASAN();
  TempDir dir;
  auto s = MustOpen(dir.sub("s"));
  std::string big = Pattern(1, kValue);
  ASSERT_TRUE(s->Put("big", big).ok());
  ASSERT_TRUE(s->PutShared("shared_big", big).ok());
  ASSERT_TRUE(s->Put("small", "x").ok());
  ASSERT_TRUE(s->Commit().ok());
  big = std::string();  // (its memory back)
  std::string v;
  std::vector<std::string> values;
  std::vector<Status> sts;
  Status get, multi, shared;
  {
    AddressLimit limit(16u << 20);  // room for a few small allocations, not for 64 MiB
    ASSERT_TRUE(limit.ok());
    get = s->Get("big", &v);
    multi = s->MultiGet({"small", "big"}, &values, &sts);
    shared = s->GetShared("shared_big", &v);
  }
  std::printf("%s\n", get.ToString().c_str());
  ExpectOutOfMemory(get, "big");
  ExpectOutOfMemory(multi, "big");
  ASSERT_EQ(sts.size(), 2u);
  EXPECT_TRUE(sts[0].ok()) << sts[0].ToString();
  EXPECT_EQ(values[0], "x");
  ExpectOutOfMemory(sts[1], "big");
  ExpectOutOfMemory(shared, "shared_big");
  // A part, and the whole once the memory is there.
  char part[16];
  ASSERT_TRUE(s->GetRange("big", kValue - 16, part, 16).ok());
  EXPECT_EQ(std::string(part, 16), Pattern(1, kValue).substr(kValue - 16));
  ASSERT_TRUE(s->Get("big", &v).ok());
  EXPECT_EQ(v.size(), kValue);
}

}  // namespace
}  // namespace cairn
