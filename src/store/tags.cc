#include "cairn/tags.h"

#include <cstdio>
#include <cstring>

#include "format/tag_codec.h"

namespace cairn {

TagValue TagValue::Int(int64_t v, TagType width) {
  return TagValue(uint8_t(width), uint64_t(v), {});
}
TagValue TagValue::UInt(uint64_t v, TagType width) { return TagValue(uint8_t(width), v, {}); }
TagValue TagValue::Float32(float v) {
  double d = v;
  uint64_t bits;
  std::memcpy(&bits, &d, 8);
  return TagValue(uint8_t(TagType::kFloat32), bits, {});
}
TagValue TagValue::Float64(double v) {
  uint64_t bits;
  std::memcpy(&bits, &v, 8);
  return TagValue(uint8_t(TagType::kFloat64), bits, {});
}
TagValue TagValue::String(std::string_view s) {
  return TagValue(uint8_t(TagType::kString), 0, std::string(s));
}
TagValue TagValue::Bytes(std::string_view b) {
  return TagValue(uint8_t(TagType::kBytes), 0, std::string(b));
}
TagValue TagValue::Array(TagType elem, const void* data, size_t count) {
  size_t w = TagTypeWidth(uint8_t(elem));
  return TagValue(uint8_t(kTagArrayFlag | uint8_t(elem)), 0,
                  std::string(static_cast<const char*>(data), w * count));
}

int64_t TagValue::as_int() const { return !is_array() && is_signed() ? int64_t(bits_) : 0; }
uint64_t TagValue::as_uint() const { return !is_array() && is_unsigned() ? bits_ : 0; }
double TagValue::as_double() const {
  if (is_array()) return 0;
  if (is_signed()) return double(int64_t(bits_));
  if (is_unsigned()) return double(bits_);
  if (is_float()) {
    double d;
    std::memcpy(&d, &bits_, 8);
    return d;
  }
  return 0;
}

size_t TagValue::array_size() const {
  if (!is_array()) return 0;
  size_t w = TagTypeWidth(uint8_t(type()));
  return w ? bytes_.size() / w : 0;
}

bool TagValue::operator==(const TagValue& o) const {
  return code_ == o.code_ && bits_ == o.bits_ && bytes_ == o.bytes_;
}

namespace {
std::string Number(uint8_t code, const char* p) {
  char buf[64];
  switch (static_cast<TagType>(code)) {
    case TagType::kInt8: { int8_t v; std::memcpy(&v, p, 1); return std::to_string(v); }
    case TagType::kInt16: { int16_t v; std::memcpy(&v, p, 2); return std::to_string(v); }
    case TagType::kInt32: { int32_t v; std::memcpy(&v, p, 4); return std::to_string(v); }
    case TagType::kInt64: { int64_t v; std::memcpy(&v, p, 8); return std::to_string(v); }
    case TagType::kUInt8: { uint8_t v; std::memcpy(&v, p, 1); return std::to_string(v); }
    case TagType::kUInt16: { uint16_t v; std::memcpy(&v, p, 2); return std::to_string(v); }
    case TagType::kUInt32: { uint32_t v; std::memcpy(&v, p, 4); return std::to_string(v); }
    case TagType::kUInt64: { uint64_t v; std::memcpy(&v, p, 8); return std::to_string(v); }
    case TagType::kFloat32: { float v; std::memcpy(&v, p, 4); std::snprintf(buf, sizeof buf, "%.9g", v); return buf; }
    case TagType::kFloat64: { double v; std::memcpy(&v, p, 8); std::snprintf(buf, sizeof buf, "%.17g", v); return buf; }
    default: return "?";
  }
}
}  // namespace

std::string TagValue::ToString() const {
  if (is_array()) {
    uint8_t elem = uint8_t(type());
    size_t w = TagTypeWidth(elem);
    std::string out = "[";
    for (size_t i = 0; w && i < bytes_.size() / w; i++) {
      if (i) out += ", ";
      out += Number(elem, bytes_.data() + i * w);
    }
    return out + "]";
  }
  char buf[64];
  if (is_signed()) return std::to_string(as_int());
  if (is_unsigned()) return std::to_string(as_uint());
  if (type() == TagType::kFloat32) {
    std::snprintf(buf, sizeof buf, "%.9g", as_double());
    return buf;
  }
  if (type() == TagType::kFloat64) {
    std::snprintf(buf, sizeof buf, "%.17g", as_double());
    return buf;
  }
  if (type() == TagType::kString) return "\"" + bytes_ + "\"";
  std::string out = "0x";
  for (unsigned char c : bytes_) {
    std::snprintf(buf, sizeof buf, "%02x", c);
    out += buf;
  }
  return out;
}

}  // namespace cairn
