// Fuzzes the index entry body decoder (key, value kind, inline value or
// chunk list, tags) and the key-only fast path.
#include <cstdio>

#include "format/index_format.h"
#include "fuzz_util.h"

using namespace cairn;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string body(reinterpret_cast<const char*>(data), size);
  EntryView e;
  Status s = DecodeEntryBody(body, &e);
  if (!s.ok()) {
    FUZZ_CHECK(s.IsCorruption() || s.IsNotSupported());
    return 0;
  }
  FUZZ_CHECK(EntryKey(body) == e.key);
  if (e.kind == ValueKind::kInline) {
    FUZZ_CHECK(e.inline_value.size() == e.size);
  } else {
    uint64_t total = 0;
    for (const ChunkRef& c : e.chunks) {
      FUZZ_CHECK(c.raw_length == c.length);
      total += c.raw_length;
    }
    FUZZ_CHECK(total == e.size);
  }
  // Re-encoded (shortest varints), it decodes to the same entry.
  std::string again;
  EncodeEntryBody(e.key, e.kind, e.size, e.inline_value, e.chunks, e.tags, &again);
  EntryView f;
  FUZZ_CHECK(DecodeEntryBody(again, &f).ok());
  FUZZ_CHECK(f.key == e.key && f.kind == e.kind && f.size == e.size && f.tags == e.tags &&
             f.inline_value == e.inline_value && f.chunks.size() == e.chunks.size());
  for (size_t i = 0; i < e.chunks.size(); i++)
    FUZZ_CHECK(f.chunks[i].offset == e.chunks[i].offset && f.chunks[i].checksum == e.chunks[i].checksum);
  return 0;
}
