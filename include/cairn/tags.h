// Typed key-value tags attached to objects.
//
// A tag is a name and a typed value: a signed or unsigned integer of 8, 16,
// 32 or 64 bits, a 32- or 64-bit float, a string, raw bytes, or a small
// array of one numeric type. Tags are stored with the object in the index,
// so reading or changing them never touches the object's value.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "cairn/export.h"

namespace cairn {
CAIRN_API_BEGIN

// The on-disk type code of a tag value (doc/format.md, "Tag values").
enum class TagType : uint8_t {
  kInt8 = 1, kInt16 = 2, kInt32 = 3, kInt64 = 4,
  kUInt8 = 5, kUInt16 = 6, kUInt32 = 7, kUInt64 = 8,
  kFloat32 = 9, kFloat64 = 10,
  kString = 11, kBytes = 12,
};
// An array of a numeric type T has the type code (kArrayFlag | T).
constexpr uint8_t kTagArrayFlag = 0x40;

// The value of one tag. A value type: copyable, owns its bytes.
class TagValue {
 public:
  TagValue() = default;  // an Int64 zero

  static TagValue Int(int64_t v, TagType width = TagType::kInt64);
  static TagValue UInt(uint64_t v, TagType width = TagType::kUInt64);
  static TagValue Float32(float v);
  static TagValue Float64(double v);
  static TagValue String(std::string_view s);
  static TagValue Bytes(std::string_view b);
  // An array of `count` numbers of numeric type `elem`, packed little-endian
  // at `data` (e.g. Array(TagType::kFloat64, xs.data(), xs.size())).
  static TagValue Array(TagType elem, const void* data, size_t count);

  uint8_t type_code() const { return code_; }
  bool is_array() const { return (code_ & kTagArrayFlag) != 0; }
  // The scalar type, or the element type of an array.
  TagType type() const { return static_cast<TagType>(code_ & ~kTagArrayFlag); }
  bool is_signed() const {  // kInt8..kInt64
    return type() >= TagType::kInt8 && type() <= TagType::kInt64;
  }
  bool is_unsigned() const {  // kUInt8..kUInt64
    return type() >= TagType::kUInt8 && type() <= TagType::kUInt64;
  }
  bool is_float() const {  // kFloat32, kFloat64
    return type() == TagType::kFloat32 || type() == TagType::kFloat64;
  }
  bool is_number() const { return !is_array() && (is_signed() || is_unsigned() || is_float()); }

  // Accessors: valid for the matching scalar kind only (checked: a mismatch
  // returns 0 / empty). as_double() converts any numeric scalar.
  int64_t as_int() const;
  uint64_t as_uint() const;
  double as_double() const;
  // The string, bytes, or packed little-endian array elements.
  const std::string& bytes() const { return bytes_; }
  // Number of elements of an array (0 for scalars).
  size_t array_size() const;

  bool operator==(const TagValue& o) const;
  // A printable form: 42, 3.5, "text", 0x0a0b, [1, 2, 3].
  std::string ToString() const;

  // Internal constructor from a type code and its payload (used by the codec).
  TagValue(uint8_t code, uint64_t bits, std::string bytes)
      : code_(code), bits_(bits), bytes_(std::move(bytes)) {}
  uint64_t raw_bits() const { return bits_; }

 private:
  uint8_t code_ = static_cast<uint8_t>(TagType::kInt64);
  uint64_t bits_ = 0;  // int64/uint64 value, or the IEEE bits of a double
  std::string bytes_;
};

// A named tag. Names are non-empty UTF-8 or byte strings of at most 65535 bytes.
struct Tag {
  std::string name;
  TagValue value;
  bool operator==(const Tag& o) const { return name == o.name && value == o.value; }
};

using TagList = std::vector<Tag>;

CAIRN_API_END
}  // namespace cairn
