#include "format/tag_codec.h"

#include <cstring>

#include "format/coding.h"

namespace cairn {

uint32_t NameDict::Intern(std::string_view name) {
  auto it = ids_.find(name);
  if (it != ids_.end()) return it->second;
  uint32_t id = uint32_t(names_.size());
  // The map first, then the list, undone if the list cannot grow: a name
  // listed but not mapped (std::bad_alloc in the map) was listed again by
  // the next Intern, and a table written with it twice is refused.
  auto added = ids_.emplace(std::string(name), id).first;
  try {
    names_.emplace_back(name);
  } catch (...) {
    ids_.erase(added);
    throw;
  }
  return id;
}

bool NameDict::Find(std::string_view name, uint32_t* id) const {
  auto it = ids_.find(name);
  if (it == ids_.end()) return false;
  *id = it->second;
  return true;
}

size_t TagTypeWidth(uint8_t type) {
  switch (static_cast<TagType>(type)) {
    case TagType::kInt8: case TagType::kUInt8: return 1;
    case TagType::kInt16: case TagType::kUInt16: return 2;
    case TagType::kInt32: case TagType::kUInt32: case TagType::kFloat32: return 4;
    case TagType::kInt64: case TagType::kUInt64: case TagType::kFloat64: return 8;
    default: return 0;
  }
}

namespace {
bool SignedFits(int64_t v, TagType t) {
  switch (t) {
    case TagType::kInt8: return v >= INT8_MIN && v <= INT8_MAX;
    case TagType::kInt16: return v >= INT16_MIN && v <= INT16_MAX;
    case TagType::kInt32: return v >= INT32_MIN && v <= INT32_MAX;
    default: return true;
  }
}
bool UnsignedFits(uint64_t v, TagType t) {
  switch (t) {
    case TagType::kUInt8: return v <= UINT8_MAX;
    case TagType::kUInt16: return v <= UINT16_MAX;
    case TagType::kUInt32: return v <= UINT32_MAX;
    default: return true;
  }
}
bool KnownScalar(uint8_t code) { return code >= 1 && code <= 12; }
}  // namespace

Status ValidateTags(const TagList& tags) {
  for (const Tag& t : tags) {
    if (t.name.empty()) return Status::InvalidArgument("tag name is empty");
    if (t.name.size() > kMaxTagNameLength)
      return Status::InvalidArgument("tag name longer than 65535 bytes");
    const TagValue& v = t.value;
    uint8_t code = v.type_code();
    if (v.is_array()) {
      size_t w = TagTypeWidth(code & ~kTagArrayFlag);
      if (w == 0 || (code & ~kTagArrayFlag) > 10)
        return Status::InvalidArgument("tag '" + t.name + "': arrays hold numbers only");
      if (v.bytes().size() % w != 0)
        return Status::InvalidArgument("tag '" + t.name + "': array bytes not a multiple of the element size");
      continue;
    }
    if (!KnownScalar(code)) return Status::InvalidArgument("tag '" + t.name + "': unknown type");
    if (v.is_signed() && !SignedFits(int64_t(v.raw_bits()), v.type()))
      return Status::InvalidArgument("tag '" + t.name + "': value does not fit its integer width");
    if (v.is_unsigned() && !UnsignedFits(v.raw_bits(), v.type()))
      return Status::InvalidArgument("tag '" + t.name + "': value does not fit its integer width");
  }
  return Status::OK();
}

void EncodeTagPayload(const TagValue& v, std::string* out) {
  uint8_t code = v.type_code();
  if (v.is_array()) {
    size_t w = TagTypeWidth(code & ~kTagArrayFlag);
    PutVarint64(out, v.bytes().size() / w);
    out->append(v.bytes());
    return;
  }
  if (v.is_signed()) {
    PutVarint64(out, ZigZag(int64_t(v.raw_bits())));
  } else if (v.is_unsigned()) {
    PutVarint64(out, v.raw_bits());
  } else if (v.type() == TagType::kFloat32) {
    float f = float(v.as_double());
    uint32_t bits;
    std::memcpy(&bits, &f, 4);
    PutFixed32(out, bits);
  } else if (v.type() == TagType::kFloat64) {
    PutFixed64(out, v.raw_bits());
  } else {  // string, bytes
    PutLengthPrefixed(out, v.bytes());
  }
}

Status EncodeTags(const TagList& tags, NameDict* dict, std::string* out) {
  Status s = ValidateTags(tags);
  if (!s.ok()) return s;
  // Written through a pointer into room made ahead (a scalar tag takes at
  // most 16 bytes), not appended piece by piece; cut to size at the end.
  size_t start = out->size();
  out->resize(start + 10 + tags.size() * 16);
  char* p = out->data() + start;
  auto room = [&](size_t need) {
    size_t at = size_t(p - out->data());
    if (out->size() - at < need) {
      out->resize(std::max(out->size() * 2, at + need));
      p = out->data() + at;
    }
  };
  p = EncodeVarint(p, tags.size());
  dict->BeginMarks();
  for (size_t i = 0; i < tags.size(); i++) {
    const Tag& t = tags[i];
    uint32_t id = dict->InternAt(i, t.name);
    if (!dict->Mark(id)) {
      out->resize(start);
      return Status::InvalidArgument("tag '" + t.name + "' given twice");
    }
    const TagValue& v = t.value;
    const std::string& bytes = v.bytes();  // empty for scalars
    room(16 + 10 + bytes.size());
    p = EncodeVarint(p, id);
    *p++ = char(v.type_code());
    // The same bytes as EncodeTagPayload writes.
    if (v.is_array()) {
      p = EncodeVarint(p, bytes.size() / TagTypeWidth(uint8_t(v.type())));
      std::memcpy(p, bytes.data(), bytes.size());
      p += bytes.size();
    } else if (v.is_signed() || v.is_unsigned()) {
      p = EncodeVarint(p, v.is_signed() ? ZigZag(int64_t(v.raw_bits())) : v.raw_bits());
    } else if (v.type() == TagType::kFloat64) {
      EncodeFixed64(p, v.raw_bits());
      p += 8;
    } else if (v.type() == TagType::kFloat32) {
      float f = float(v.as_double());
      uint32_t b32;
      std::memcpy(&b32, &f, 4);
      EncodeFixed32(p, b32);
      p += 4;
    } else {  // string, bytes
      p = EncodeVarint(p, bytes.size());
      std::memcpy(p, bytes.data(), bytes.size());
      p += bytes.size();
    }
  }
  out->resize(size_t(p - out->data()));
  return Status::OK();
}

Status DecodeTagPayload(uint8_t code, Decoder* d, TagValue* v) {
  if (code & kTagArrayFlag) {
    uint8_t elem = code & ~kTagArrayFlag;
    size_t w = TagTypeWidth(elem);
    if (w == 0 || elem > 10) return Status::Corruption("tag array of a non-numeric type");
    uint64_t n = d->Varint64();
    if (d->failed() || n > d->remaining() / w) return Status::Corruption("tag array truncated");
    *v = TagValue(code, 0, std::string(d->Bytes(n * w)));
    return Status::OK();
  }
  if (!KnownScalar(code))
    return Status::NotSupported("tag type code " + std::to_string(code) +
                                " is unknown to this cairn (written by a newer version?)");
  TagType t = static_cast<TagType>(code);
  uint64_t bits = 0;
  std::string bytes;
  switch (t) {
    case TagType::kInt8: case TagType::kInt16: case TagType::kInt32: case TagType::kInt64: {
      int64_t s = UnZigZag(d->Varint64());
      if (!SignedFits(s, t)) return Status::Corruption("tag integer out of range for its width");
      bits = uint64_t(s);
      break;
    }
    case TagType::kUInt8: case TagType::kUInt16: case TagType::kUInt32: case TagType::kUInt64:
      bits = d->Varint64();
      if (!UnsignedFits(bits, t)) return Status::Corruption("tag integer out of range for its width");
      break;
    case TagType::kFloat32: {
      uint32_t b32 = d->U32();
      float f;
      std::memcpy(&f, &b32, 4);
      double dv = f;
      std::memcpy(&bits, &dv, 8);
      break;
    }
    case TagType::kFloat64:
      bits = d->U64();
      break;
    default:
      bytes = std::string(d->LengthPrefixed());
  }
  if (d->failed()) return Status::Corruption("tag value truncated");
  *v = TagValue(code, bits, std::move(bytes));
  return Status::OK();
}

Status DecodeTags(std::string_view in, const NameDict& dict, TagList* tags) {
  Decoder d(in);
  uint64_t n = d.Varint64();
  if (d.failed() || n > in.size()) return Status::Corruption("tag count damaged");
  // The list's elements are reused in place (their strings keep their
  // buffers): a caller reading object after object into one list, as a
  // restarting service does, allocates nothing per tag.
  tags->resize(n);
  for (uint64_t i = 0; i < n; i++) {
    uint32_t id = d.Varint32();
    uint8_t code = d.U8();
    if (d.failed()) return Status::Corruption("tag truncated");
    if (id >= dict.size()) return Status::Corruption("tag name id outside the name table");
    Tag& t = (*tags)[i];
    t.name.assign(dict.name(id));
    // Scalars, the common case, without the general payload decoder.
    if (code == uint8_t(TagType::kInt64) || code == uint8_t(TagType::kInt32)) {
      int64_t s = UnZigZag(d.Varint64());
      if (code == uint8_t(TagType::kInt32) && (s < INT32_MIN || s > INT32_MAX))
        return Status::Corruption("tag integer out of range for its width");
      t.value = TagValue(code, uint64_t(s), std::string());
    } else if (code == uint8_t(TagType::kUInt64) || code == uint8_t(TagType::kUInt32)) {
      uint64_t u = d.Varint64();
      if (code == uint8_t(TagType::kUInt32) && u > UINT32_MAX)
        return Status::Corruption("tag integer out of range for its width");
      t.value = TagValue(code, u, std::string());
    } else if (code == uint8_t(TagType::kFloat64)) {
      t.value = TagValue(code, d.U64(), std::string());
    } else {
      Status s = DecodeTagPayload(code, &d, &t.value);
      if (!s.ok()) return s;
    }
    if (d.failed()) return Status::Corruption("tag value truncated");
  }
  if (d.remaining() != 0) return Status::Corruption("bytes after the last tag");
  return Status::OK();
}

TagCursor::TagCursor(std::string_view encoded)
    : p_(encoded.data()), end_(encoded.data() + encoded.size()) {
  Decoder d(encoded);
  left_ = d.Varint64();
  if (d.failed()) { ok_ = false; left_ = 0; }
  p_ = d.pos();
}

bool TagCursor::Next(TagRef* t) {
  if (left_ == 0 || !ok_) return false;
  Decoder d(std::string_view(p_, size_t(end_ - p_)));
  t->name_id = d.Varint32();
  t->code = d.U8();
  t->bytes = {};
  t->bits = 0;
  if (t->code & kTagArrayFlag) {
    size_t w = TagTypeWidth(t->code & ~kTagArrayFlag);
    uint64_t n = d.Varint64();
    if (w == 0 || n > d.remaining() / w) { ok_ = false; return false; }
    t->bytes = d.Bytes(n * w);
  } else {
    switch (static_cast<TagType>(t->code)) {
      case TagType::kInt8: case TagType::kInt16: case TagType::kInt32: case TagType::kInt64:
        t->bits = uint64_t(UnZigZag(d.Varint64()));
        break;
      case TagType::kUInt8: case TagType::kUInt16: case TagType::kUInt32: case TagType::kUInt64:
        t->bits = d.Varint64();
        break;
      case TagType::kFloat32: {
        uint32_t b = d.U32();
        float f;
        std::memcpy(&f, &b, 4);
        double dv = f;
        std::memcpy(&t->bits, &dv, 8);
        break;
      }
      case TagType::kFloat64:
        t->bits = d.U64();
        break;
      case TagType::kString: case TagType::kBytes:
        t->bytes = d.LengthPrefixed();
        break;
      default:
        ok_ = false;
        return false;
    }
  }
  if (d.failed()) { ok_ = false; return false; }
  p_ = d.pos();
  left_--;
  return true;
}

}  // namespace cairn
