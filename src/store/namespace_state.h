// The live state of one namespace (a rank's objects, or the shared ones):
// the index table of the revision it was opened at ("base", immutable,
// entries kept in their encoded form) plus the changes made since
// ("overlay"). Entries are encoded once, at Put; a commit merges base and
// overlay and copies encoded entries as they are, so state restored from
// disk is as cheap to save again as fresh state, and an unchanged object
// costs a memcpy of its entry.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>

#include "format/index_format.h"
#include "format/tag_codec.h"

namespace cairn {

class NamespaceState {
 public:
  // Starts from `base` (null: empty). The name dictionary starts as base's.
  void Reset(std::shared_ptr<const IndexTable> base);

  // Tag names of this namespace; entries encode tag names as ids into it.
  NameDict* dict() { return &dict_; }
  const NameDict& dict() const { return dict_; }

  // The encoded body of `key`'s entry, if the object exists.
  bool Lookup(std::string_view key, std::string_view* body) const;
  // Sets `key`'s entry body (already encoded against dict()); the bytes
  // are copied into the namespace's arena.
  void Put(std::string_view key, std::string_view body);
  // Removes `key`; false if it did not exist.
  bool Delete(std::string_view key);

  // Calls fn(body) for every current entry in key order.
  void ForEach(const std::function<void(std::string_view body)>& fn) const;
  // Encodes the whole namespace as an index table of `revision`.
  std::string BuildTable(uint32_t ns, uint64_t revision, uint64_t* objects,
                         uint64_t* value_bytes) const;
  // At least the number of current objects (for reserving).
  uint64_t capacity_hint() const;

 private:
  std::shared_ptr<const IndexTable> base_;
  NameDict dict_;
  // Copies bytes into the arena: large blocks, freed together at Reset, so
  // a put costs no allocation of its own (the PDC lesson: no per-element
  // growth). Views into it stay valid until Reset.
  std::string_view Keep(std::string_view bytes);
  std::vector<std::unique_ptr<char[]>> arena_;
  size_t arena_used_ = 0, arena_cap_ = 0;

  // key -> new body (a view into the arena), or nullopt for a deleted key.
  struct Hash {
    using is_transparent = void;
    size_t operator()(std::string_view s) const { return std::hash<std::string_view>()(s); }
  };
  std::unordered_map<std::string, std::optional<std::string_view>, Hash, std::equal_to<>> overlay_;
};

// The value size recorded in an entry body (0 if damaged).
uint64_t EntryValueSize(std::string_view body);

}  // namespace cairn
