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
#include <vector>

#include "format/index_format.h"
#include "cairn/status.h"
#include "format/tag_codec.h"

namespace cairn {

class NamespaceState {
 public:
  // Starts from `base` (null: empty). The name dictionary starts as base's.
  void Reset(std::shared_ptr<const IndexTable> base);

  // The table the state started from (null: none), and whether anything
  // was put or deleted since: an unchanged namespace's next table would be
  // this one, entry for entry, so a commit reuses it (commit_tables.cc).
  const std::shared_ptr<const IndexTable>& base() const { return base_; }
  bool unchanged() const { return pending_.empty(); }

  // Tag names of this namespace; entries encode tag names as ids into it.
  NameDict* dict() { return &dict_; }
  const NameDict& dict() const { return dict_; }

  // The encoded body of `key`'s entry, if the object exists.
  bool Lookup(std::string_view key, std::string_view* body) const;
  // Sets `key`'s entry body (already encoded against dict()); the bytes
  // are copied into the namespace's arena.
  // Put and Delete of a key not pending yet add a pending change: past
  // max_pending() they fail with InvalidArgument and change nothing (the
  // earlier changes stay, and commit). A change to a key already pending
  // never fails (a failed round's revert relies on it).
  Status Put(std::string_view key, std::string_view body);
  // Removes `key`; NotFound if it does not exist.
  Status Delete(std::string_view key);
  // OK if a Put or Delete of `key` would not pass the limit: a caller
  // checks it before a side effect the change needs (writing the value).
  Status CheckRoom(std::string_view key) const;

  // The most pending changes (keys put, deleted or retagged since Reset):
  // the index addresses 2^index_bits_limit_ slots (32 bits of position)
  // and is kept at most half full, so 2^31 - 1 unless lowered for a test.
  uint64_t max_pending() const { return (uint64_t(1) << (index_bits_limit_ - 1)) - 1; }

  // Calls fn(body) for every current entry in key order.
  void ForEach(const std::function<void(std::string_view body)>& fn) const;
  // The entries of the next table, in key order: views of base entries
  // and of pending bodies (valid until the next change). MakeNextTable
  // (commit_tables.h) encodes them, or streams them (ViewTable).
  struct Entries {
    std::vector<std::string_view> bodies;
    uint64_t value_bytes = 0;
    bool chunked = false;    // some entry holds a chunked value
    bool from_base = false;  // some entry is the base's
    // Whether the entries differ from the base's: false when every pending
    // change puts back the base entry byte for byte (an object saved again
    // unchanged) or deletes a key the base does not have. Such a table
    // would be the base's, entry for entry, so a commit reuses the base.
    bool changed = true;
  };
  void CollectEntries(Entries* e) const;
  // The table of `revision` made of `e` (from CollectEntries, with no
  // entry from the base) without copying an entry: its entries are views
  // into this state's arena, which it keeps alive, so it can become the
  // base of the next state (Reset) while nothing else holds the arena.
  // `length` is the table's size, IndexTableSize(dict().names(), e.bodies)
  // (the caller has it already); its bytes are written with StreamIndexTable.
  std::shared_ptr<IndexTable> ViewTable(uint32_t ns, uint64_t revision, Entries e, uint64_t length) const;
  // The tag-name ids present in `key`'s pending entry, as a bitset over
  // dict() ids, if one is kept for it (else null). Kept only for entries
  // edited tag by tag (EditTag) with many tags, so that adding a tag needs
  // no pass over the others; Put() of a new body drops it.
  std::vector<uint64_t>* TagIds(std::string_view key);
  void KeepTagIds(std::string_view key, std::vector<uint64_t> ids);

  // At least the number of current objects (for reserving).
  uint64_t capacity_hint() const;
  // Bytes of the arena handed out for pending entries (superseded ones
  // included until they are reclaimed) plus the tag-id sets, and the bytes of the current
  // pending entry bodies. Tests check the first stays proportional to the
  // second however often entries are replaced.
  uint64_t pending_bytes() const;
  uint64_t pending_live_bytes() const;

  // Test seam: caps the pending index at 2^bits slots (10..32; 32, the
  // most its 32-bit positions can address, unless lowered), and so the
  // number of pending changes at 2^(bits-1) - 1, which a unit test reaches
  // with a thousand keys instead of 2^31. Kept across Reset.
  void LimitIndexBitsForTest(unsigned bits) { index_bits_limit_ = bits; }

 private:
  std::shared_ptr<const IndexTable> base_;
  // The base entry the last Lookup found: a restart reads its objects in
  // key order, so the next one is tried before a binary search.
  mutable size_t last_found_ = 0;
  NameDict dict_;
  // A slot of `cap` bytes in the arena: large blocks, so a put costs no
  // allocation of its own (the PDC lesson: no per-element growth).
  char* Allocate(size_t cap);
  // Moves the live pending bodies into fresh blocks and frees the old ones,
  // once superseded slots outweigh live ones (so the arena stays within
  // about twice the pending data: replacing an entry N times costs O(N)
  // time and O(1) memory). Views from Lookup/ForEach die at the next Put.
  void MaybeCompact();
  // The merge of base and overlay in key order, the one walk behind
  // ForEach and CollectEntries: fn(body, from_base) for every current
  // entry, from_base telling a base entry from a pending one.
  // Returns whether the result differs from the base (Entries::changed).
  template <class Fn>
  bool Merge(Fn&& fn) const;
  // Blocks are shared: a table made by ViewTable keeps those it views.
  std::vector<std::shared_ptr<char[]>> arena_;
  size_t arena_used_ = 0, arena_cap_ = 0;
  uint64_t arena_handed_ = 0;  // bytes of slots handed out since the last compaction
  uint64_t garbage_ = 0;       // of which superseded

  // One pending change per key, in the order keys were first put: the
  // key and the new body in the arena (the body's slot replaced in place
  // when the next body fits), or a deletion. A service puts its objects
  // in key order, so a commit finds this list sorted and skips sorting.
  struct Pending {
    const char* key = nullptr;
    char* slot = nullptr;  // the body's; null for a deletion
    uint64_t size = 0;     // of the body
    uint64_t cap = 0;      // of the slot
    uint32_t key_size = 0;
    bool deleted = false;
    std::string_view key_view() const { return std::string_view(key, key_size); }
    std::string_view body() const { return std::string_view(slot, size); }
  };
  std::vector<Pending> pending_;
  // Open-addressed index of pending_ by key (no node per key: a node each
  // made a 1M-object checkpoint spend a fifth of its puts in the hash
  // map's allocations and pointer chasing, and its commit in freeing
  // them). A slot is 0 (empty) or the key hash's top 32 bits << 32 |
  // (index in pending_ + 1); a key's first slot is given by the top bits of
  // its hash, so growing needs no key. Linear probing, at most half full,
  // never a removal (a deletion is a pending change; Reset clears all).
  // Built only when needed: while every put brings a key above the last
  // one (a service saving its catalogue in key order), a key cannot be
  // pending already and pending_ stays sorted, so nothing is hashed; the
  // first key out of order, or the first look-up of a key below the last
  // one, builds it from pending_.
  // (Built by a const look-up, hence mutable: a Store is used by one
  // thread at a time.)
  mutable std::vector<uint64_t> index_;
  mutable unsigned index_bits_ = 0;  // index_.size() == 1 << index_bits_ (0: empty)
  mutable bool indexed_ = false;     // index_ holds every pending_ entry
  unsigned index_bits_limit_ = 32;   // index_bits_ never exceeds it
  static uint64_t HashKey(std::string_view key);
  // The pending change of `key`, or null.
  Pending* FindPending(std::string_view key) const;
  Pending* FindHashed(std::string_view key, uint64_t hash) const;  // indexed_ only
  // The pending change of `key`, made (no body, not deleted) if none;
  // null (nothing changed) if that would pass max_pending().
  Pending* FindOrAddPending(std::string_view key);
  Status TooMany(std::string_view key) const;
  void BuildIndex() const;
  void GrowIndex() const;
  void IndexSlot(uint64_t hash, size_t n) const;  // pending_[n] of key hash `hash` into index_
  struct Hash {
    using is_transparent = void;
    size_t operator()(std::string_view s) const { return std::hash<std::string_view>()(s); }
  };
  std::unordered_map<std::string, std::vector<uint64_t>, Hash, std::equal_to<>> tag_ids_;
};

// The value size recorded in an entry body (0 if damaged).
uint64_t EntryValueSize(std::string_view body);

}  // namespace cairn
