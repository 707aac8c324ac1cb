// Fuzzes tag decoding: DecodeTags (every type, arrays, the name dictionary)
// and the in-place TagCursor the queries use; they must agree.
#include <cstdio>

#include "format/coding.h"
#include "format/tag_codec.h"
#include "fuzz_util.h"

using namespace cairn;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  // First byte: how many names the dictionary holds.
  NameDict dict;
  for (int i = 0; i < data[0] % 16; i++) dict.Intern("n" + std::to_string(i));
  std::string in(reinterpret_cast<const char*>(data) + 1, size - 1);
  TagList tags;
  Status s = DecodeTags(in, dict, &tags);
  TagCursor cur(in);
  TagRef ref;
  size_t walked = 0;
  while (cur.Next(&ref)) walked++;
  if (!s.ok()) {
    FUZZ_CHECK(s.IsCorruption() || s.IsNotSupported());
    return 0;
  }
  // What DecodeTags accepts, the cursor walks whole.
  FUZZ_CHECK(cur.ok() && walked == tags.size());
  // Re-encoded, the tags decode the same (unless a name is given twice,
  // which the encoder refuses).
  NameDict d2;
  std::string enc;
  s = EncodeTags(tags, &d2, &enc);
  if (!s.ok()) {
    FUZZ_CHECK(s.message().find("given twice") != std::string::npos);
    return 0;
  }
  TagList again;
  FUZZ_CHECK(DecodeTags(enc, d2, &again).ok());
  FUZZ_CHECK(again.size() == tags.size());
  for (size_t i = 0; i < tags.size(); i++)
    FUZZ_CHECK(again[i].name == tags[i].name && again[i].value.type_code() == tags[i].value.type_code());
  return 0;
}
