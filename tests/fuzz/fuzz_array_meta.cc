// Fuzzes the global array descriptor decoder: a descriptor that decodes has
// every block inside its shape, and encodes back to the same bytes.
#include <cstdio>

#include "array/array_meta.h"
#include "fuzz_util.h"

using namespace cairn;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view in(reinterpret_cast<const char*>(data), size);
  ArrayMeta m;
  Status s = DecodeArrayMeta(in, "fuzz", &m);
  if (!s.ok()) {
    FUZZ_CHECK(s.IsCorruption());
    return 0;
  }
  FUZZ_CHECK(EncodeArrayMeta(m) == in);
  size_t nd = m.ndims();
  uint64_t start[kMaxArrayDims], count[kMaxArrayDims];
  for (uint64_t i = 0; i < m.nblocks && i < 4096; i++) {
    m.Block(i, start, count);
    for (size_t d = 0; d < nd; d++) FUZZ_CHECK(start[d] <= m.shape[d] && count[d] <= m.shape[d] - start[d]);
    FUZZ_CHECK(m.BlockNs(i) <= m.max_ns);
  }
  return 0;
}
