#include "store/namespace_state.h"

#include <algorithm>
#include <cstring>
#include <new>
#include <vector>

#include "format/coding.h"
#include "store/key_text.h"

namespace cairn {

void NamespaceState::Reset(std::shared_ptr<const IndexTable> base) {
  base_ = std::move(base);
  dict_ = NameDict();
  if (base_) dict_ = base_->names;
  // Both keep their capacity: the next checkpoint of as many objects
  // reuses it instead of memory the process never touched. A few changes
  // after a large commit clear their own slots, not the whole index.
  if (!indexed_) {
    // nothing in index_
  } else if (pending_.size() * 16 >= index_.size()) {
    std::fill(index_.begin(), index_.end(), 0);
  } else {
    const uint64_t mask = (uint64_t(1) << index_bits_) - 1;
    for (size_t n = 0; n < pending_.size(); n++) {
      const uint64_t hash = HashKey(pending_[n].key_view());
      const uint64_t want = (hash >> 32 << 32) | (n + 1);
      uint64_t i = hash >> (64 - index_bits_);
      while (index_[i] != want) i = (i + 1) & mask;  // past slots cleared already: it is there
      index_[i] = 0;
    }
  }
  indexed_ = false;
  pending_.clear();
  tag_ids_.clear();
  arena_.clear();
  arena_used_ = arena_cap_ = 0;
  arena_handed_ = garbage_ = 0;
}

char* NamespaceState::Allocate(size_t cap) {
  if (arena_cap_ - arena_used_ < cap) {
    size_t block = std::max<size_t>(cap, 8u << 20);
    arena_.push_back(std::shared_ptr<char[]>(new char[block]));
    arena_used_ = 0;
    arena_cap_ = block;
  }
  char* p = arena_.back().get() + arena_used_;
  arena_used_ += cap;
  arena_handed_ += cap;
  return p;
}

void NamespaceState::MaybeCompact() {
  uint64_t live = arena_handed_ - garbage_;
  if (garbage_ < (64u << 10) || garbage_ < live) return;
  // The compacted copy is one block, taken before anything changes: it
  // runs after the change that called it is made, so without memory for
  // it the arena stays as it is (a compaction is an economy) instead of
  // throwing with the pending keys and bodies moved out of a freed arena.
  size_t total = 0;
  for (const Pending& p : pending_) total += p.key_size + (p.slot ? p.size : 0);
  const size_t cap = std::max<size_t>(total, 8u << 20);
  std::vector<std::shared_ptr<char[]>> fresh;
  try {
    fresh.reserve(1);
    fresh.push_back(std::shared_ptr<char[]>(new char[cap]));
  } catch (const std::bad_alloc&) {
    return;
  }
  char* n = fresh.back().get();
  for (Pending& p : pending_) {  // the key, then the body, as a first put lays them out
    std::memcpy(n, p.key, p.key_size);
    p.key = n;
    n += p.key_size;
    if (p.slot) {
      std::memcpy(n, p.slot, p.size);
      p.slot = n;
      n += p.size;
    }
    p.cap = p.slot ? p.size : 0;
  }
  arena_ = std::move(fresh);  // frees the old blocks (those a table views stay with it)
  arena_used_ = arena_handed_ = total;
  arena_cap_ = cap;
  garbage_ = 0;
}

uint64_t NamespaceState::HashKey(std::string_view key) {
  // std::hash mixes the bytes; the multiply spreads them to the top bits,
  // which pick the slot.
  return uint64_t(std::hash<std::string_view>()(key)) * 0x9e3779b97f4a7c15ull;
}

NamespaceState::Pending* NamespaceState::FindPending(std::string_view key) const {
  if (pending_.empty()) return nullptr;
  if (!indexed_) {  // sorted: above the last key is not pending
    std::string_view last = pending_.back().key_view();
    if (last < key) return nullptr;
    if (last == key) return const_cast<Pending*>(&pending_.back());
    try {
      BuildIndex();
    } catch (const std::bad_alloc&) {
      // No memory for the index (it stays unbuilt, all empty): a walk over
      // the pending keys, so that a look-up (Get, CheckRoom) cannot throw.
      for (const Pending& p : pending_)
        if (p.key_view() == key) return const_cast<Pending*>(&p);
      return nullptr;
    }
  }
  return FindHashed(key, HashKey(key));
}

NamespaceState::Pending* NamespaceState::FindHashed(std::string_view key, uint64_t hash) const {
  const uint64_t mask = (uint64_t(1) << index_bits_) - 1;
  const uint32_t tag = uint32_t(hash >> 32);
  for (uint64_t i = hash >> (64 - index_bits_);; i = (i + 1) & mask) {
    uint64_t slot = index_[i];
    if (slot == 0) return nullptr;
    if (uint32_t(slot >> 32) != tag) continue;
    const Pending& p = pending_[uint32_t(slot) - 1];
    if (p.key_view() == key) return const_cast<Pending*>(&p);
  }
}

void NamespaceState::IndexSlot(uint64_t hash, size_t n) const {
  const uint64_t mask = (uint64_t(1) << index_bits_) - 1;
  uint64_t i = hash >> (64 - index_bits_);
  while (index_[i] != 0) i = (i + 1) & mask;
  index_[i] = (hash >> 32 << 32) | (n + 1);
}

void NamespaceState::GrowIndex() const {
  // The slot of a key is the top index_bits_ bits of its hash, of which a
  // slot keeps the top 32: enough to place it again at up to 2^32 slots.
  // Never past index_bits_limit_: FindOrAddPending keeps pending_ at most
  // max_pending(), for which 2^index_bits_limit_ slots are half full.
  unsigned bits = index_bits_ == 0 ? 10 : index_bits_ + 1;
  // Made before anything changes: if there is no memory for it, the index
  // stays as it was (std::bad_alloc; see Put).
  std::vector<uint64_t> grown(size_t(1) << bits, 0);
  std::vector<uint64_t> old = std::move(index_);
  index_ = std::move(grown);
  index_bits_ = bits;
  for (uint64_t slot : old) {
    if (slot != 0) IndexSlot(slot >> 32 << 32, uint32_t(slot) - 1);
  }
}

void NamespaceState::BuildIndex() const {
  // index_ is all empty here (Reset cleared what the last one held).
  while (index_.size() < 2 * (pending_.size() + 1)) GrowIndex();
  for (size_t n = 0; n < pending_.size(); n++) IndexSlot(HashKey(pending_[n].key_view()), n);
  indexed_ = true;
}

NamespaceState::Pending* NamespaceState::FindOrAddPending(std::string_view key) {
  if (!indexed_ && !pending_.empty() && !(pending_.back().key_view() < key)) {
    if (pending_.back().key_view() == key) return &pending_.back();  // the last key, changed again
    BuildIndex();  // out of order
  }
  uint64_t hash = 0;
  if (indexed_) {
    hash = HashKey(key);
    if (Pending* p = FindHashed(key, hash)) return p;
  }
  if (pending_.size() >= max_pending()) return nullptr;
  // Every allocation first, so that running out of memory (std::bad_alloc)
  // leaves the pending state as it was: room for one more entry, the
  // key's bytes (in the arena, where a put's body follows them, so a
  // commit walking put order reads both together; garbage if a later step
  // fails), a larger index.
  if (pending_.size() == pending_.capacity()) pending_.reserve(std::max<size_t>(64, 2 * pending_.size()));
  char* k = Allocate(key.size());
  if (indexed_ && 2 * (pending_.size() + 1) > index_.size()) {
    try {
      GrowIndex();
    } catch (const std::bad_alloc&) {
      garbage_ += key.size();  // the key's bytes, unused
      throw;
    }
  }
  // Nothing below allocates.
  if (indexed_) IndexSlot(hash, pending_.size());
  // (Not indexed: above every pending key, so a new one.)
  Pending p;
  p.key_size = uint32_t(key.size());
  std::memcpy(k, key.data(), key.size());
  p.key = k;
  pending_.push_back(p);
  return &pending_.back();
}

bool NamespaceState::Lookup(std::string_view key, std::string_view* body) const {
  if (!pending_.empty()) {
    if (const Pending* p = FindPending(key)) {
      if (p->deleted) return false;
      *body = p->body();
      return true;
    }
  }
  if (!base_) return false;
  const auto& keys = base_->keys;
  size_t next = last_found_ + 1;
  ptrdiff_t i = next < keys.size() && keys[next] == key ? ptrdiff_t(next) : base_->Find(key);
  if (i < 0) return false;
  last_found_ = size_t(i);
  *body = base_->entries[size_t(i)];
  return true;
}

Status NamespaceState::TooMany(std::string_view key) const {
  return Status::InvalidArgument("key '" + KeyText(key) + "' not changed: its namespace holds " +
                                 std::to_string(pending_.size()) +
                                 " pending changes (objects put, deleted or retagged since the last commit), "
                                 "the most one commit takes; commit, then change it again");
}

Status NamespaceState::CheckRoom(std::string_view key) const {
  if (pending_.size() < max_pending() || FindPending(key)) return Status::OK();
  return TooMany(key);
}

Status NamespaceState::Put(std::string_view key, std::string_view body) {
  // No look-up in the base: re-saving restored objects costs what saving
  // fresh ones does. The body's room is taken before the key is added, so
  // that running out of memory (std::bad_alloc, turned into a Status by
  // Store::Put) changes nothing: a key added with no body would read as
  // deleted at the next commit.
  char* room = nullptr;
  size_t room_cap = 0;
  {
    const Pending* old = FindPending(key);
    if (!(old && old->slot && body.size() <= old->cap)) {
      // A replaced entry that grows (SetTag after SetTag) gets room to grow
      // again; a first put takes just its size.
      room_cap = old && old->slot ? body.size() + body.size() / 2 : body.size();
      if (old || pending_.size() < max_pending()) room = Allocate(room_cap);
    }
  }
  Pending* found = nullptr;
  try {
    found = FindOrAddPending(key);
  } catch (const std::bad_alloc&) {
    garbage_ += room_cap;  // the room, unused
    throw;
  }
  if (!found) {
    garbage_ += room_cap;
    return TooMany(key);
  }
  Pending& p = *found;
  if (!tag_ids_.empty()) {
    auto t = tag_ids_.find(key);
    if (t != tag_ids_.end()) tag_ids_.erase(t);
  }
  if (room == nullptr) {
    std::memmove(p.slot, body.data(), body.size());  // may be a view of this very slot
  } else {
    std::memcpy(room, body.data(), body.size());
    garbage_ += p.cap;
    p.slot = room;
    p.cap = room_cap;
  }
  p.size = body.size();
  p.deleted = false;
  MaybeCompact();
  return Status::OK();
}

std::vector<uint64_t>* NamespaceState::TagIds(std::string_view key) {
  if (tag_ids_.empty()) return nullptr;
  auto it = tag_ids_.find(key);
  return it == tag_ids_.end() ? nullptr : &it->second;
}

void NamespaceState::KeepTagIds(std::string_view key, std::vector<uint64_t> ids) {
  auto it = tag_ids_.find(key);
  if (it == tag_ids_.end()) tag_ids_.emplace(std::string(key), std::move(ids));
  else it->second = std::move(ids);
}

Status NamespaceState::Delete(std::string_view key) {
  std::string_view body;
  if (!Lookup(key, &body)) return Status::NotFound("key '" + KeyText(key) + "' not found");
  Pending* found = FindOrAddPending(key);
  if (!found) return TooMany(key);
  Pending& p = *found;
  if (!tag_ids_.empty()) {  // (found by view: a key's copy could fail once the change has begun)
    auto t = tag_ids_.find(key);
    if (t != tag_ids_.end()) tag_ids_.erase(t);
  }
  garbage_ += p.cap;
  p.slot = nullptr;
  p.size = p.cap = 0;
  p.deleted = true;
  MaybeCompact();
  return Status::OK();
}

uint64_t NamespaceState::pending_bytes() const {
  uint64_t n = arena_handed_;
  for (const auto& kv : tag_ids_) n += kv.second.capacity() * sizeof(uint64_t);
  return n;
}

uint64_t NamespaceState::pending_live_bytes() const {
  uint64_t n = 0;
  for (const Pending& p : pending_) n += p.deleted ? 0 : p.size;
  return n;
}

uint64_t NamespaceState::capacity_hint() const {
  return (base_ ? base_->entries.size() : 0) + pending_.size();
}

template <class Fn>
bool NamespaceState::Merge(Fn&& fn) const {
  // Put order, walked as it is when sorted (always, if not indexed), else
  // through pointers sorted by key.
  auto less = [](const Pending& a, const Pending& b) { return a.key_view() < b.key_view(); };
  std::vector<const Pending*> sorted;
  if (indexed_ && !std::is_sorted(pending_.begin(), pending_.end(), less)) {
    sorted.reserve(pending_.size());
    for (const Pending& p : pending_) sorted.push_back(&p);
    std::sort(sorted.begin(), sorted.end(), [&less](const Pending* a, const Pending* b) { return less(*a, *b); });
  }
  auto ov = [&](size_t j) -> const Pending& { return sorted.empty() ? pending_[j] : *sorted[j]; };
  const size_t nov = pending_.size();
  size_t nb = base_ ? base_->entries.size() : 0;
  size_t i = 0, j = 0;
  bool changed = false;
  while (i < nb || j < nov) {
    if (j == nov || (i < nb && base_->keys[i] < ov(j).key_view())) {
      fn(base_->entries[i++], true);
      continue;
    }
    // The overlay wins over a base entry of the same key. A pending entry
    // changes the namespace unless it is byte for byte the base entry it
    // replaces (a body holds the whole object: value or chunk locations,
    // and tags); a deletion changes it if the base had the key.
    const Pending& p = ov(j);
    bool in_base = i < nb && base_->keys[i] == p.key_view();
    if (p.deleted ? in_base : !in_base || base_->entries[i] != p.body()) changed = true;
    if (in_base) i++;
    if (!p.deleted) fn(p.body(), false);
    j++;
  }
  return changed;
}

void NamespaceState::ForEach(const std::function<void(std::string_view)>& fn) const {
  Merge([&fn](std::string_view body, bool) { fn(body); });
}

void NamespaceState::CollectEntries(Entries* e) const {
  e->bodies.clear();
  e->bodies.reserve(capacity_hint());
  e->changed = Merge([e](std::string_view body, bool from_base) {
    e->bodies.push_back(body);
    e->value_bytes += EntryValueSize(body);
    if (!e->chunked && EntryChunked(body)) e->chunked = true;
    if (from_base) e->from_base = true;
  });
}

std::shared_ptr<IndexTable> NamespaceState::ViewTable(uint32_t ns, uint64_t revision, Entries e,
                                                      uint64_t length) const {
  auto t = std::make_shared<IndexTable>();
  t->keep = std::make_shared<std::vector<std::shared_ptr<char[]>>>(arena_);
  t->ns = ns;
  t->revision = revision;
  t->names = dict_;
  t->length = length;
  t->chunked = e.chunked;
  t->keys.reserve(e.bodies.size());
  for (std::string_view b : e.bodies) t->keys.push_back(EntryKey(b));
  t->entries = std::move(e.bodies);
  return t;
}

uint64_t EntryValueSize(std::string_view body) {
  Decoder d(body);
  d.LengthPrefixed();
  d.U8();
  uint64_t size = d.Varint64();
  return d.failed() ? 0 : size;
}

}  // namespace cairn
