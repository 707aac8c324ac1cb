#include "format/coding.h"

namespace cairn {

void PutVarint64(std::string* dst, uint64_t v) {
  char buf[10];
  dst->append(buf, size_t(EncodeVarint(buf, v) - buf));
}

void PutLengthPrefixed(std::string* dst, std::string_view s) {
  PutVarint64(dst, s.size());
  dst->append(s.data(), s.size());
}

int VarintLength(uint64_t v) {
  int n = 1;
  while (v >= 0x80) {
    v >>= 7;
    n++;
  }
  return n;
}

uint64_t Decoder::Varint64Slow() {
  uint64_t result = 0;
  for (int shift = 0; shift <= 63; shift += 7) {
    if (!Need(1)) return 0;
    uint8_t b = uint8_t(*p_++);
    if (shift == 63 && b > 1) break;  // would overflow 64 bits
    result |= uint64_t(b & 0x7f) << shift;
    if ((b & 0x80) == 0) return result;
  }
  failed_ = true;
  return 0;
}

}  // namespace cairn
