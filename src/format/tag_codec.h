// Encoding of an object's tags inside an index entry, and the per-namespace
// dictionary of tag names (names are stored once per table, tags refer to
// them by number). Byte layout: doc/format.md, "Tags".
#pragma once

#include <algorithm>
#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "cairn/status.h"
#include "cairn/tags.h"

namespace cairn {

constexpr size_t kMaxTagNameLength = 65535;

// Tag names of one namespace, numbered in order of first use. Append-only,
// so entries encoded against it stay valid as names are added.
class NameDict {
 public:
  // The id of `name`, adding it if new.
  uint32_t Intern(std::string_view name);
  // The same, trying first the id used at the same position of the last tag
  // list (services tag every object alike, so this skips the hash).
  uint32_t InternAt(size_t position, std::string_view name) {
    if (position < hints_.size()) {
      uint32_t h = hints_[position];
      if (h < names_.size() && names_[h] == name) return h;
    } else {
      hints_.resize(position + 1, UINT32_MAX);
    }
    return hints_[position] = Intern(name);
  }
  // Looks up without adding.
  bool Find(std::string_view name, uint32_t* id) const;
  const std::string& name(uint32_t id) const { return names_[id]; }
  size_t size() const { return names_.size(); }
  const std::vector<std::string>& names() const { return names_; }
  void Reserve(size_t n) {
    names_.reserve(n);
    ids_.reserve(n);
  }
  // Duplicate detection within one tag list in O(1) per tag: BeginMarks()
  // starts a new list; Mark(id) is false if id was marked since.
  void BeginMarks() {
    if (++epoch_ == 0) {  // wrapped: clear old stamps
      std::fill(marks_.begin(), marks_.end(), 0);
      epoch_ = 1;
    }
  }
  bool Mark(uint32_t id) {
    if (marks_.size() <= id) marks_.resize(names_.size() + 1, 0);
    if (marks_[id] == epoch_) return false;
    marks_[id] = epoch_;
    return true;
  }

 private:
  std::vector<uint32_t> marks_;
  std::vector<uint32_t> hints_;
  uint32_t epoch_ = 0;
  struct Hash {
    using is_transparent = void;
    size_t operator()(std::string_view s) const { return std::hash<std::string_view>()(s); }
  };
  std::vector<std::string> names_;
  std::unordered_map<std::string, uint32_t, Hash, std::equal_to<>> ids_;
};

// Checks a tag list for bad names and out-of-range values (duplicate names
// are caught by EncodeTags).
Status ValidateTags(const TagList& tags);
// Validates, then appends varint count + each tag (name id, type code,
// payload). InvalidArgument (and *out unchanged) on a bad tag or a name
// given twice.
Status EncodeTags(const TagList& tags, NameDict* dict, std::string* out);
// Decodes an encoded tag list; names resolved through `dict`.
Status DecodeTags(std::string_view in, const NameDict& dict, TagList* tags);

// Encodes/decodes one tag value's payload (after its type code).
void EncodeTagPayload(const TagValue& v, std::string* out);
class Decoder;
Status DecodeTagPayload(uint8_t code, Decoder* d, TagValue* v);
// Byte width of a numeric element type; 0 for string/bytes/unknown.
size_t TagTypeWidth(uint8_t type);

// A tag as it lies in the encoded list, without copying: the type code, the
// integer or IEEE-double bits of a scalar, or a view of string/bytes/array
// payload bytes.
struct TagRef {
  uint32_t name_id = 0;
  uint8_t code = 0;
  uint64_t bits = 0;
  std::string_view bytes;
};
// Walks an encoded tag list: Next() returns false at the end or on damage
// (then ok() is false).
class TagCursor {
 public:
  explicit TagCursor(std::string_view encoded);
  bool Next(TagRef* tag);
  bool ok() const { return ok_; }

 private:
  const char* p_;
  const char* end_;
  uint64_t left_ = 0;
  bool ok_ = true;
};

}  // namespace cairn
