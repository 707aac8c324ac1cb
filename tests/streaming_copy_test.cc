// StreamingCopy (io/streaming_copy.h) copies exactly n bytes, for every
// alignment of the destination and the source and every length around the
// 16-byte head and 64-byte steps, and writes nothing around them.
#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>
#include <string>

#include "io/streaming_copy.h"
#include "test_util.h"

namespace cairn {
namespace {

TEST(StreamingCopy, CopiesExactlyTheBytesAtEveryAlignmentAndLength) {
  const std::string src = test::Pattern(3, 1 << 16);
  const size_t lengths[] = {0, 1, 15, 16, 17, 63, 64, 65, 127, 128, 129, 1000, 4096, 4096 + 48, 40000};
  char* buf = static_cast<char*>(std::aligned_alloc(4096, 1 << 17));
  ASSERT_NE(buf, nullptr);
  size_t bad = 0, cases = 0;
  for (size_t n : lengths)
    for (size_t dalign = 0; dalign < 64; dalign++)
      for (size_t salign : {size_t(0), size_t(1), size_t(16), size_t(33)}) {
        std::memset(buf, 0x5a, 1 << 17);
        char* dest = buf + 4096 + dalign;
        StreamingCopy(dest, src.data() + salign, n);
        StreamingCopyFence();
        cases++;
        if (std::memcmp(dest, src.data() + salign, n) != 0) bad++;
        for (size_t i = 0; i < 4096 + dalign; i++) bad += buf[i] != 0x5a;
        for (size_t i = 4096 + dalign + n; i < (1 << 17); i++) bad += buf[i] != 0x5a;
      }
  std::free(buf);
  EXPECT_EQ(cases, std::size(lengths) * 64 * 4);
  EXPECT_EQ(bad, 0u);
}

}  // namespace
}  // namespace cairn
