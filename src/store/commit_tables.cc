#include "store/commit_tables.h"

#include "format/checksum.h"

namespace cairn {

NextTable MakeNextTable(const NamespaceState& st, uint32_t ns, uint64_t rev,
                        const NamespaceDesc* previous) {
  NextTable t;
  // Reuse needs the base to be the table `previous` names: same length
  // (a cheap guard; Open, Adopt and DiscardPending keep them paired).
  if (previous && st.unchanged() && st.base() && st.base()->ns == ns &&
      previous->length == st.base()->bytes.size()) {
    t.reused = true;
    t.table = st.base();
    t.desc = *previous;
    return t;
  }
  t.bytes = st.BuildTable(ns, rev, &t.desc.objects, &t.desc.value_bytes);
  t.desc.length = t.bytes.size();
  t.desc.checksum = Checksum(t.bytes);
  return t;
}

Status AdoptNextTable(NextTable t, const std::string& where, std::shared_ptr<const IndexTable>* out) {
  if (t.reused) {
    *out = std::move(t.table);
    return Status::OK();
  }
  std::shared_ptr<IndexTable> parsed;
  // The bytes were built here and t.desc.checksum hashed from them: their
  // trailing checksum needs no second pass.
  Status s = ParseIndexTable(std::move(t.bytes), where, &parsed, true);
  *out = std::move(parsed);
  return s;
}

}  // namespace cairn
