// Objects saved again unchanged, for the kill and power-loss writers
// (crash_loop_writer CAIRN_TEST_SAME, power_loss_writer flag i): every
// revision, each rank puts all of its small objects "i0".."i4" (inline
// values, so that a put byte for byte as before leaves the entry as it
// was) again. Most revisions put them back exactly as they were (same
// value, same tags), so the rank's namespace is unchanged and the commit
// reuses its index table as it lies (the samesave path of MakeNextTable,
// src/store/commit_tables.cc). In the rank's change revisions
// (SameChanges) one object differs: at an even revision its value, at an
// odd one its tag "t". Everything depends only on (rank, revision, key),
// so a check needs nothing else.
#pragma once

#include <string>

#include "cairn/store.h"
#include "test_util.h"

namespace cairn::test {

constexpr int kSameKeys = 5;
// All within Options::inline_value_limit (2048 by default).
constexpr size_t kSameSize[kSameKeys] = {40, 300, 900, 1500, 2000};

// Whether rank `rank` changes one of its objects at revision `rev` (the
// first revision puts them all; then one revision in three, a different
// one for neighbouring ranks).
inline bool SameChanges(int rank, uint64_t rev) { return rev == 1 || (rev + uint64_t(rank)) % 3 == 0; }
// The last revision <= rev at which rank `rank` changed something.
inline uint64_t SameLastChange(int rank, uint64_t rev) {
  while (!SameChanges(rank, rev)) rev--;
  return rev;
}
// The revision whose value (tag = false) or tag "t" (tag = true) object i
// of rank `rank` holds at revision `rev`: the last change revision that
// changed that, or 1.
inline uint64_t SameGen(int rank, uint64_t rev, int i, bool tag) {
  for (; rev > 1; rev--)
    if (SameChanges(rank, rev) && int(rev % kSameKeys) == i && (rev % 2 == 1) == tag) return rev;
  return 1;
}
inline std::string SameKey(int i) { return "i" + std::to_string(i); }
inline std::string SameValue(int rank, uint64_t rev, int i) {
  uint64_t g = SameGen(rank, rev, i, false);
  return Pattern(uint64_t(rank) * 7919 + g * 131 + uint64_t(i), kSameSize[i] - size_t(g % 3));
}
inline TagList SameTags(int rank, uint64_t rev, int i) {
  return {{"rank", TagValue::Int(rank)}, {"t", TagValue::UInt(SameGen(rank, rev, i, true))}};
}

// Every object of this rank put again as revision `rev` holds them.
inline Status SamePutAll(Store* s, int rank, uint64_t rev) {
  for (int i = 0; i < kSameKeys; i++) {
    Status st = s->Put(SameKey(i), SameValue(rank, rev, i), SameTags(rank, rev, i));
    if (!st.ok()) return st;
  }
  return Status::OK();
}

// "" if the open revision `rev` holds rank `rank`'s objects as it must
// (values and tags), read through `ro`.
inline std::string SameCheck(Store* s, int rank, uint64_t rev, const ReadOptions& ro = ReadOptions()) {
  for (int i = 0; i < kSameKeys; i++) {
    std::string v;
    TagList tags;
    Status st = s->Get(SameKey(i), &v, ro);
    if (st.ok()) st = s->GetTags(SameKey(i), &tags, ro);
    std::string at = "revision " + std::to_string(rev) + " rank " + std::to_string(rank) + " " + SameKey(i);
    if (!st.ok()) return at + ": " + st.ToString();
    if (v != SameValue(rank, rev, i)) return at + ": value differs";
    if (tags != SameTags(rank, rev, i)) return at + ": tags differ";
  }
  return "";
}

}  // namespace cairn::test
