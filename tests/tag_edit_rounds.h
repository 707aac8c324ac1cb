// Tag edits without a put, for the kill and power-loss writers
// (crash_loop_writer, power_loss_writer): key "tg" is put at revision 1
// only, with tags r = 1 and name = "tg1"; every later revision edits its
// tags alone: SetTag of r (replaced in place), then in turn DeleteTag of
// name, SetTag adding name again, or SetTags of both. So the tags of any
// revision depend only on its number (EditedTags), and a check needs
// nothing else: the value (EditedValue), the tags, and the key found by
// Query on r and on name.
#pragma once

#include <string>
#include <vector>

#include "cairn/store.h"
#include "test_util.h"

namespace cairn::test {

inline std::string EditedValue(int rank) { return Pattern(uint64_t(rank) * 4242 + 9, 6000); }

inline TagList EditedTags(uint64_t rev) {
  if (rev % 3 == 0) return {{"r", TagValue::UInt(rev)}};
  return {{"r", TagValue::UInt(rev)}, {"name", TagValue::String("tg" + std::to_string(rev))}};
}

// The puts and edits of key "tg" for revision `rev` (not committed).
inline Status EditTagsForRevision(Store* s, int rank, uint64_t rev) {
  if (rev == 1) return s->Put("tg", EditedValue(rank), EditedTags(1));
  Status st = s->SetTag("tg", {"r", TagValue::UInt(rev)});
  if (st.ok() && rev % 3 == 0) st = s->DeleteTag("tg", "name");
  if (st.ok() && rev % 3 == 1) st = s->SetTag("tg", EditedTags(rev)[1]);
  if (st.ok() && rev % 3 == 2) st = s->SetTags("tg", EditedTags(rev));
  return st;
}

// "" if namespace ro.rank of the open revision `rev` holds "tg" with its
// value (of writer rank `writer`) and the tags of `rev`, found by Query on
// r and on name exactly as they say.
inline std::string CheckEditedTags(Store* s, int writer, uint64_t rev, const ReadOptions& ro = {}) {
  std::string v, where = "revision " + std::to_string(rev) + " rank " + std::to_string(writer) + " tg: ";
  TagList tags;
  Status st = s->Get("tg", &v, ro);
  if (st.ok()) st = s->GetTags("tg", &tags, ro);
  if (!st.ok()) return where + st.ToString();
  if (v != EditedValue(writer)) return where + "value differs";
  if (tags != EditedTags(rev))
    return where + "tags differ (r = " + (tags.empty() ? std::string("none") : tags[0].value.ToString()) + ", " +
           std::to_string(tags.size()) + " tags)";
  std::vector<std::string> by_r, by_name, want_name;
  st = s->Query({TagQuery::Equal("r", TagValue::UInt(rev))}, &by_r, ro);
  if (st.ok()) st = s->Query({TagQuery::Prefix("name", "tg")}, &by_name, ro);
  if (!st.ok()) return where + "query: " + st.ToString();
  if (rev % 3 != 0) want_name.push_back("tg");
  if (by_r != std::vector<std::string>{"tg"} || by_name != want_name) return where + "Query on its tags differs";
  return "";
}

}  // namespace cairn::test
