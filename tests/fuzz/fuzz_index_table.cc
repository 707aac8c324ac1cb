// Fuzzes the index table parser (header, name dictionary, entries, order)
// and, for a table it accepts, every entry and tag list in it, as a read
// of each object would.
#include <cstdio>

#include "format/index_format.h"
#include "fuzz_util.h"

using namespace cairn;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  bool fix;
  std::string in;
  if (!fuzz::Split(data, size, &fix, &in)) return 0;
  if (fix && in.size() >= 8) fuzz::FixChecksumAt(&in, in.size() - 8);
  std::shared_ptr<IndexTable> t;
  Status s = ParseIndexTable(in, "fuzz", &t);
  if (!s.ok()) {
    FUZZ_CHECK(s.IsCorruption() || s.IsNotSupported());
    return 0;
  }
  FUZZ_CHECK(t->entries.size() == t->keys.size());
  for (const std::string& n : t->names.names()) FUZZ_CHECK(!n.empty() && n.size() <= kMaxTagNameLength);
  for (size_t i = 0; i < t->keys.size(); i++) {
    FUZZ_CHECK(!t->keys[i].empty() && t->keys[i].size() <= kMaxKeyLength);
    FUZZ_CHECK(i == 0 || t->keys[i - 1] < t->keys[i]);
    FUZZ_CHECK(t->Find(t->keys[i]) == ptrdiff_t(i));
    EntryView e;
    if (!DecodeEntryBody(t->entries[i], &e).ok()) continue;
    FUZZ_CHECK(e.key == t->keys[i]);
    TagList tags;
    DecodeTags(e.tags, t->names, &tags);
    TagCursor cur(e.tags);
    TagRef ref;
    while (cur.Next(&ref)) {
    }
  }
  return 0;
}
