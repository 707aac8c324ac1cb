// Little-endian fixed-width and varint encodings, and a bounds-checked
// decoder. Every on-disk structure of cairn is built from these
// (doc/format.md, "Primitive encodings").
#pragma once

#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>

namespace cairn {

inline void PutFixed16(std::string* dst, uint16_t v) {
  char b[2] = {char(v), char(v >> 8)};
  dst->append(b, 2);
}
inline void PutFixed32(std::string* dst, uint32_t v) {
  char b[4];
  for (int i = 0; i < 4; i++) b[i] = char(v >> (8 * i));
  dst->append(b, 4);
}
inline void PutFixed64(std::string* dst, uint64_t v) {
  char b[8];
  for (int i = 0; i < 8; i++) b[i] = char(v >> (8 * i));
  dst->append(b, 8);
}
inline void EncodeFixed32(char* p, uint32_t v) {
  for (int i = 0; i < 4; i++) p[i] = char(v >> (8 * i));
}
inline void EncodeFixed64(char* p, uint64_t v) {
  for (int i = 0; i < 8; i++) p[i] = char(v >> (8 * i));
}
inline uint16_t DecodeFixed16(const char* p) {
  auto u = reinterpret_cast<const uint8_t*>(p);
  return uint16_t(u[0] | (u[1] << 8));
}
inline uint32_t DecodeFixed32(const char* p) {
  auto u = reinterpret_cast<const uint8_t*>(p);
  return uint32_t(u[0]) | (uint32_t(u[1]) << 8) | (uint32_t(u[2]) << 16) | (uint32_t(u[3]) << 24);
}
inline uint64_t DecodeFixed64(const char* p) {
  return uint64_t(DecodeFixed32(p)) | (uint64_t(DecodeFixed32(p + 4)) << 32);
}

// Unsigned LEB128: 7 bits per byte, low group first, high bit = more.
void PutVarint64(std::string* dst, uint64_t v);
// Writes the varint at p (room for 10 bytes) and returns the end.
inline char* EncodeVarint(char* p, uint64_t v) {
  while (v >= 0x80) {
    *p++ = char((v & 0x7f) | 0x80);
    v >>= 7;
  }
  *p++ = char(v);
  return p;
}
inline void PutVarint32(std::string* dst, uint32_t v) { PutVarint64(dst, v); }
// Zigzag maps signed to unsigned so small magnitudes encode short.
inline uint64_t ZigZag(int64_t v) { return (uint64_t(v) << 1) ^ uint64_t(v >> 63); }
inline int64_t UnZigZag(uint64_t v) { return int64_t(v >> 1) ^ -int64_t(v & 1); }
// A varint length followed by that many bytes.
void PutLengthPrefixed(std::string* dst, std::string_view s);
int VarintLength(uint64_t v);

// Reads primitives from a byte range; any read past the end or malformed
// varint sets failed() and returns zero values, so a decoder checks once.
class Decoder {
 public:
  explicit Decoder(std::string_view in) : p_(in.data()), end_(in.data() + in.size()) {}
  bool failed() const { return failed_; }
  size_t remaining() const { return size_t(end_ - p_); }
  const char* pos() const { return p_; }

  uint8_t U8() {
    if (!Need(1)) return 0;
    return uint8_t(*p_++);
  }
  uint16_t U16() {
    if (!Need(2)) return 0;
    uint16_t v = DecodeFixed16(p_);
    p_ += 2;
    return v;
  }
  uint32_t U32() {
    if (!Need(4)) return 0;
    uint32_t v = DecodeFixed32(p_);
    p_ += 4;
    return v;
  }
  uint64_t U64() {
    if (!Need(8)) return 0;
    uint64_t v = DecodeFixed64(p_);
    p_ += 8;
    return v;
  }
  // One-byte varints (most tag ids, counts and small numbers) inline;
  // longer ones out of line.
  uint64_t Varint64() {
    if (p_ < end_ && !(uint8_t(*p_) & 0x80) && !failed_) return uint8_t(*p_++);
    return Varint64Slow();
  }
  // A varint that must fit in 32 bits.
  uint32_t Varint32() {
    uint64_t v = Varint64();
    if (v > 0xffffffffull) { failed_ = true; return 0; }
    return uint32_t(v);
  }
  std::string_view Bytes(uint64_t n) {
    if (!Need(n)) return {};
    std::string_view s(p_, size_t(n));
    p_ += n;
    return s;
  }
  std::string_view LengthPrefixed() { return Bytes(Varint64()); }
  void Fail() { failed_ = true; }

 private:
  uint64_t Varint64Slow();

 private:
  bool Need(uint64_t n) {
    if (failed_ || uint64_t(end_ - p_) < n) {
      failed_ = true;
      return false;
    }
    return true;
  }
  const char* p_;
  const char* end_;
  bool failed_ = false;
};

}  // namespace cairn
