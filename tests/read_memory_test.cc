// A value larger than the memory the process may still take (a restart on
// a node with less memory than the one that wrote it): Get, MultiGet into
// strings and GetShared return an IOError naming the key and its size
// instead of throwing std::bad_alloc out of the API; GetRange of a part
// still works, and the store goes on. The memory is bounded with
// RLIMIT_AS (soft limit, raised back after), not mocked.
#include <gtest/gtest.h>
#include <sys/resource.h>

#include <fstream>
#include <string>

#include "store_test_util.h"
#include "test_util.h"

namespace cairn {
namespace {

using namespace cairn::test;

constexpr uint64_t kValue = 64ull << 20;

// This process's virtual size in bytes (/proc/self/status VmSize).
uint64_t VmSize() {
  std::ifstream in("/proc/self/status");
  std::string word;
  while (in >> word)
    if (word == "VmSize:") {
      uint64_t kb = 0;
      in >> kb;
      return kb << 10;
    }
  return 0;
}

// Lowers the soft RLIMIT_AS to the current size plus `room` for its lifetime.
class AddressLimit {
 public:
  explicit AddressLimit(uint64_t room) {
    getrlimit(RLIMIT_AS, &old_);
    rlimit r = old_;
    r.rlim_cur = VmSize() + room;
    ok_ = VmSize() > 0 && setrlimit(RLIMIT_AS, &r) == 0;
  }
  ~AddressLimit() { setrlimit(RLIMIT_AS, &old_); }
  bool ok() const { return ok_; }

 private:
  rlimit old_;
  bool ok_ = false;
};

void ExpectTooLarge(const Status& s, const std::string& key) {
  EXPECT_TRUE(s.IsIOError()) << s.ToString();
  EXPECT_NE(s.message().find("'" + key + "'"), std::string::npos) << s.ToString();
  EXPECT_NE(s.message().find("memory"), std::string::npos) << s.ToString();
}

TEST(ReadMemory, AValueLargerThanTheMemoryLeftIsAnErrorNotAnException) {
#if defined(__SANITIZE_ADDRESS__)
  GTEST_SKIP() << "AddressSanitizer reserves its shadow memory: RLIMIT_AS cannot bound it";
#endif
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
  ExpectTooLarge(get, "big");
  ExpectTooLarge(multi, "big");
  ASSERT_EQ(sts.size(), 2u);
  EXPECT_TRUE(sts[0].ok()) << sts[0].ToString();
  EXPECT_EQ(values[0], "x");
  ExpectTooLarge(sts[1], "big");
  ExpectTooLarge(shared, "shared_big");
  // A part, and the whole once the memory is there.
  char part[16];
  ASSERT_TRUE(s->GetRange("big", kValue - 16, part, 16).ok());
  EXPECT_EQ(std::string(part, 16), Pattern(1, kValue).substr(kValue - 16));
  ASSERT_TRUE(s->Get("big", &v).ok());
  EXPECT_EQ(v.size(), kValue);
}

}  // namespace
}  // namespace cairn
