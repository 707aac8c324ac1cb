// Fuzzes the manifest decoders: the file header, record framing (including
// the search for intact records after a damaged one), revision payloads.
#include <cstdio>

#include "format/manifest_format.h"
#include "fuzz_util.h"

using namespace cairn;

static void FixManifest(std::string* f) {
  fuzz::FixChecksumAt(f, 56);
  uint64_t off = kManifestHeaderSize;
  while (off + kRecordOverhead <= f->size()) {
    uint64_t plen = DecodeFixed32(f->data() + off);
    if (plen > f->size() - off - kRecordOverhead) break;
    uint64_t end = off + 8 + plen;
    EncodeFixed64(f->data() + end, Checksum(f->data() + off, end - off));
    off = end + 8;
  }
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  bool fix;
  std::string file;
  if (!fuzz::Split(data, size, &fix, &file)) return 0;
  if (fix) FixManifest(&file);
  ParsedManifest pm;
  Status s = ParseManifest(file, &pm);
  if (s.ok()) {
    FUZZ_CHECK(pm.valid_end + pm.torn_bytes == file.size());
    FUZZ_CHECK(pm.valid_end >= kManifestHeaderSize);
    FUZZ_CHECK(!pm.damaged_tail || pm.torn_bytes > 0);
    uint64_t last = 0;
    for (const RevisionRecord& r : pm.revisions) {
      FUZZ_CHECK(r.revision > last);
      last = r.revision;
      FUZZ_CHECK(r.namespaces.size() == size_t(r.nranks) + 1);
      for (const NamespaceDesc& d : r.namespaces) FUZZ_CHECK(d.length == 0 || d.subfile < r.high_water.size());
      // Re-encoding a decoded record gives a record that decodes the same.
      RevisionRecord again;
      FUZZ_CHECK(DecodeRevisionPayload(EncodeRevisionPayload(r), &again).ok());
      FUZZ_CHECK(again.revision == r.revision && again.high_water == r.high_water &&
                 again.namespaces.size() == r.namespaces.size());
    }
  } else {
    FUZZ_CHECK(s.IsCorruption() || s.IsNotSupported());
  }
  // The payload decoder on its own, on the raw bytes.
  RevisionRecord r;
  s = DecodeRevisionPayload(file, &r);
  FUZZ_CHECK(s.ok() || s.IsCorruption());
  return 0;
}
