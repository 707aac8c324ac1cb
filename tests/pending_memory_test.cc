// Replacing pending entries between commits (issue 10, item 13): SetTag
// and DeleteTag one at a time, and repeated Puts of one key, must hold
// memory in proportion to the live pending data, not to the number of
// calls. Checked on the bytes the namespace's pending state holds
// (Inspector::PendingBytes), which does not depend on the machine's load.
#include <gtest/gtest.h>

#include "store/inspect.h"
#include "store_test_util.h"
#include "test_util.h"

namespace cairn {
namespace {

using namespace cairn::test;

struct Held {
  uint64_t held = 0, live = 0;
};

// `objects` objects, each given `tags` tags by SetTag one at a time, then
// every other tag removed by DeleteTag; no commit.
Held AfterSetTags(int objects, int tags) {
  TempDir dir;
  auto s = MustOpen(dir.sub("s"));
  for (int i = 0; i < objects; i++) EXPECT_TRUE(s->Put("o" + std::to_string(i), "value").ok());
  for (int t = 0; t < tags; t++)
    for (int i = 0; i < objects; i++)
      EXPECT_TRUE(s->SetTag("o" + std::to_string(i), {"t" + std::to_string(t), TagValue::Int(t)}).ok());
  for (int t = 0; t < tags; t += 2)
    for (int i = 0; i < objects; i++) EXPECT_TRUE(s->DeleteTag("o" + std::to_string(i), "t" + std::to_string(t)).ok());
  Held h;
  Inspector::PendingBytes(*s, &h.held, &h.live);
  return h;
}

// `keys` keys, each Put `rounds` times with a new 300-byte value; no commit.
Held AfterRepeatedPuts(int keys, int rounds) {
  TempDir dir;
  auto s = MustOpen(dir.sub("s"));
  for (int r = 0; r < rounds; r++)
    for (int k = 0; k < keys; k++) EXPECT_TRUE(s->Put("k" + std::to_string(k), Pattern(r * keys + k, 90)).ok());
  Held h;
  Inspector::PendingBytes(*s, &h.held, &h.live);
  return h;
}

TEST(PendingMemory, SetTagOneAtATimeHoldsMemoryInProportionToTheTags) {
  Held n = AfterSetTags(100, 100), n2 = AfterSetTags(100, 200);
  std::printf("SetTag x100: held %lu live %lu; x200: held %lu live %lu\n", n.held, n.live, n2.held, n2.live);
  // Live data doubles; what is held must follow it, not its square.
  EXPECT_LT(double(n2.held), 2.6 * double(n.held));
  EXPECT_LE(n.held, 3 * n.live + (64u << 10));
  EXPECT_LE(n2.held, 3 * n2.live + (64u << 10));
}

TEST(PendingMemory, RepeatedPutsOfOneKeyHoldOneEntry) {
  Held n = AfterRepeatedPuts(20, 1000), n2 = AfterRepeatedPuts(20, 2000);
  std::printf("Puts x1000: held %lu live %lu; x2000: held %lu live %lu\n", n.held, n.live, n2.held, n2.live);
  EXPECT_EQ(n.live, n2.live);
  EXPECT_LE(n.held, 3 * n.live + (64u << 10));
  EXPECT_LE(n2.held, 3 * n2.live + (64u << 10));
}

}  // namespace
}  // namespace cairn
