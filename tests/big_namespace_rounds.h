// A large namespace for the power-loss and kill writers (flag B of
// power_loss_writer, crash_loop_writer): revision 1 puts kBigKeys keys
// with four tags each (an index table of several MiB, streamed: all its
// entries are new), and every later revision changes a few of them, so
// its table is built from the base and, being over 4 MiB, written in
// pieces (WriteBuiltTable, src/store/commit_tables.cc). Revision r >= 2:
// DeleteTag "m" on the first key r - 1 tagged, then puts of BigPuts(r)
// (tags k, p = r), then SetTag m = r on BigTagged(r). What any revision
// holds depends only on (rank, revision), so a check needs nothing else.
#pragma once

#include <algorithm>
#include <cstdio>
#include <map>
#include <string>
#include <vector>

#include "cairn/store.h"

namespace cairn::test {

constexpr int kBigKeys = 60000;

inline std::string BigKey(int i) {
  char b[16];
  std::snprintf(b, sizeof b, "b%06d", i);
  return b;
}
// Inline values (in the table itself), so the table is large.
inline std::string BigValue(int rank, int i, uint64_t rev) {
  return "value of " + BigKey(i) + " rank " + std::to_string(rank) + " at " + std::to_string(rev);
}
inline TagList BigBaseTags(int i) {
  return {{"k", TagValue::UInt(uint64_t(i))},
          {"grp", TagValue::String("g" + std::to_string(i % 16))},
          {"neg", TagValue::Int(-int64_t(i))},
          {"about", TagValue::String("key " + std::to_string(i) + " of the big namespace")}};
}
inline std::vector<int> BigPuts(uint64_t r) {
  std::vector<int> v;
  for (uint64_t j = 0; j < 3; j++) v.push_back(int((r * 7919 + j * 4099) % kBigKeys));
  return v;
}
inline std::vector<int> BigTagged(uint64_t r) {
  std::vector<int> v;
  for (uint64_t j = 0; j < 3; j++) v.push_back(int((r * 104729 + j * 15013 + 17) % kBigKeys));
  return v;
}

struct BigKeyState {
  uint64_t put = 1;
  TagList tags;
};

inline void SetTagIn(TagList* tags, const Tag& t) {
  for (Tag& x : *tags)
    if (x.name == t.name) {
      x = t;
      return;
    }
  tags->push_back(t);
}

// The keys revisions 2..rev changed, as revision `rev` holds them (every
// other key: put at revision 1 with BigBaseTags).
inline std::map<int, BigKeyState> BigChanged(uint64_t rev) {
  std::map<int, BigKeyState> m;
  auto at = [&m](int i) -> BigKeyState& {
    auto it = m.find(i);
    if (it == m.end()) it = m.emplace(i, BigKeyState{1, BigBaseTags(i)}).first;
    return it->second;
  };
  for (uint64_t r = 2; r <= rev; r++) {
    if (r >= 3) {
      TagList& t = at(BigTagged(r - 1)[0]).tags;
      t.erase(std::remove_if(t.begin(), t.end(), [](const Tag& x) { return x.name == "m"; }), t.end());
    }
    for (int i : BigPuts(r)) at(i) = BigKeyState{r, {{"k", TagValue::UInt(uint64_t(i))}, {"p", TagValue::UInt(r)}}};
    for (int i : BigTagged(r)) SetTagIn(&at(i).tags, {"m", TagValue::UInt(r)});
  }
  return m;
}

// The puts and tag edits of revision `rev` (not committed).
inline Status BigRevision(Store* s, int rank, uint64_t rev) {
  Status st;
  if (rev == 1) {
    for (int i = 0; i < kBigKeys && st.ok(); i++) st = s->Put(BigKey(i), BigValue(rank, i, 1), BigBaseTags(i));
    return st;
  }
  if (rev >= 3) st = s->DeleteTag(BigKey(BigTagged(rev - 1)[0]), "m");
  for (int i : BigPuts(rev))
    if (st.ok())
      st = s->Put(BigKey(i), BigValue(rank, i, rev), {{"k", TagValue::UInt(uint64_t(i))}, {"p", TagValue::UInt(rev)}});
  for (int i : BigTagged(rev))
    if (st.ok()) st = s->SetTag(BigKey(i), {"m", TagValue::UInt(rev)});
  return st;
}

inline TagList SortedTags(TagList t) {
  std::sort(t.begin(), t.end(), [](const Tag& a, const Tag& b) { return a.name < b.name; });
  return t;
}

// "" if the open revision `rev` holds every big key of namespace `rank`
// (the caller's) with its value and tags, and Query on m, p and grp finds
// exactly the keys that revision says.
inline std::string CheckBig(Store* s, int rank, uint64_t rev) {
  const std::string where = "revision " + std::to_string(rev) + " big namespace: ";
  std::map<int, BigKeyState> changed = BigChanged(rev);
  std::string v;
  TagList tags;
  for (int i = 0; i < kBigKeys; i++) {
    auto it = changed.find(i);
    BigKeyState want = it == changed.end() ? BigKeyState{1, BigBaseTags(i)} : it->second;
    Status st = s->Get(BigKey(i), &v);
    if (st.ok()) st = s->GetTags(BigKey(i), &tags);
    if (!st.ok()) return where + BigKey(i) + ": " + st.ToString();
    if (v != BigValue(rank, i, want.put))
      return where + BigKey(i) + " value differs (\"" + v.substr(0, 60) + "\")";
    if (SortedTags(tags) != SortedTags(want.tags)) return where + BigKey(i) + " tags differ";
  }
  auto query = [&](const TagQuery& q, std::vector<std::string> want, const std::string& what) -> std::string {
    std::vector<std::string> got;
    Status st = s->Query({q}, &got);
    if (!st.ok()) return where + "Query " + what + ": " + st.ToString();
    std::sort(got.begin(), got.end());
    std::sort(want.begin(), want.end());
    want.erase(std::unique(want.begin(), want.end()), want.end());
    if (got != want)
      return where + "Query " + what + " found " + std::to_string(got.size()) + " keys, not " +
             std::to_string(want.size());
    return "";
  };
  std::vector<std::string> m, p, grp;
  for (const auto& [i, k] : changed) {
    for (const Tag& t : k.tags) {
      if (t.name == "m" && t.value.as_uint() == rev) m.push_back(BigKey(i));
      if (t.name == "p" && t.value.as_uint() == rev) p.push_back(BigKey(i));
    }
  }
  for (int i = 5; i < kBigKeys; i += 16) {
    auto it = changed.find(i);
    if (it == changed.end() || it->second.put == 1) grp.push_back(BigKey(i));
  }
  std::string err = query(TagQuery::Equal("m", TagValue::UInt(rev)), m, "m = " + std::to_string(rev));
  if (err.empty()) err = query(TagQuery::Equal("p", TagValue::UInt(rev)), p, "p = " + std::to_string(rev));
  if (err.empty()) err = query(TagQuery::Equal("grp", TagValue::String("g5")), grp, "grp = g5");
  return err;
}

}  // namespace cairn::test
