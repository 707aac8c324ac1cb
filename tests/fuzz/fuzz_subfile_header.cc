// Fuzzes the data file header decoder.
#include <cstdio>

#include "format/subfile_header.h"
#include "fuzz_util.h"

using namespace cairn;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  bool fix;
  std::string in;
  if (!fuzz::Split(data, size, &fix, &in)) return 0;
  if (fix) fuzz::FixChecksumAt(&in, 40);
  SubfileHeader h;
  Status s = DecodeSubfileHeader(in, &h);
  if (!s.ok()) {
    FUZZ_CHECK(s.IsCorruption() || s.IsNotSupported());
    return 0;
  }
  FUZZ_CHECK(h.version <= kSubfileFormatVersion && h.store_id.size() == 16);
  // Re-encoded, it decodes to the same header.
  SubfileHeader again;
  FUZZ_CHECK(DecodeSubfileHeader(EncodeSubfileHeader(h), &again).ok());
  FUZZ_CHECK(again.subfile_id == h.subfile_id && again.store_id == h.store_id);
  return 0;
}
