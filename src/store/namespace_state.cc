#include "store/namespace_state.h"

#include <algorithm>
#include <cstring>
#include <vector>

#include "format/coding.h"

namespace cairn {

void NamespaceState::Reset(std::shared_ptr<const IndexTable> base) {
  base_ = std::move(base);
  dict_ = NameDict();
  if (base_) dict_ = base_->names;
  overlay_.clear();
  order_.clear();
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
  std::vector<std::shared_ptr<char[]>> old = std::move(arena_);
  arena_.clear();
  arena_used_ = arena_cap_ = 0;
  arena_handed_ = garbage_ = 0;
  for (auto& kv : overlay_) {
    Pending& p = kv.second;
    if (!p.slot) continue;
    char* n = Allocate(p.body.size());
    std::memcpy(n, p.body.data(), p.body.size());
    p.slot = n;
    p.cap = p.body.size();
    p.body = std::string_view(n, p.body.size());
  }
}

bool NamespaceState::Lookup(std::string_view key, std::string_view* body) const {
  if (!overlay_.empty()) {
    auto it = overlay_.find(key);
    if (it != overlay_.end()) {
      if (it->second.deleted) return false;
      *body = it->second.body;
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

void NamespaceState::Put(std::string_view key, std::string_view body) {
  // No look-up in the base: re-saving restored objects costs what saving
  // fresh ones does.
  if (!tag_ids_.empty()) {
    auto t = tag_ids_.find(key);
    if (t != tag_ids_.end()) tag_ids_.erase(t);
  }
  auto it = overlay_.find(key);
  if (it == overlay_.end()) {
    it = overlay_.emplace(std::string(key), Pending()).first;
    order_.push_back(&*it);
  }
  Pending& p = it->second;
  if (p.slot && body.size() <= p.cap) {
    std::memmove(p.slot, body.data(), body.size());  // may be a view of this very slot
  } else {
    // A replaced entry that grows (SetTag after SetTag) gets room to grow
    // again; a first put takes just its size.
    size_t cap = p.slot ? body.size() + body.size() / 2 : body.size();
    char* n = Allocate(cap);
    std::memcpy(n, body.data(), body.size());
    garbage_ += p.cap;
    p.slot = n;
    p.cap = cap;
  }
  p.body = std::string_view(p.slot, body.size());
  p.deleted = false;
  MaybeCompact();
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

bool NamespaceState::Delete(std::string_view key) {
  std::string_view body;
  if (!Lookup(key, &body)) return false;
  if (!tag_ids_.empty()) tag_ids_.erase(std::string(key));
  auto it = overlay_.find(key);
  if (it == overlay_.end()) {
    it = overlay_.emplace(std::string(key), Pending()).first;
    order_.push_back(&*it);
  }
  Pending& p = it->second;
  garbage_ += p.cap;
  p = Pending();
  p.deleted = true;
  MaybeCompact();
  return true;
}

uint64_t NamespaceState::pending_bytes() const {
  uint64_t n = arena_handed_;
  for (const auto& kv : tag_ids_) n += kv.second.capacity() * sizeof(uint64_t);
  return n;
}

uint64_t NamespaceState::pending_live_bytes() const {
  uint64_t n = 0;
  for (const auto& kv : overlay_) n += kv.second.deleted ? 0 : kv.second.body.size();
  return n;
}

uint64_t NamespaceState::capacity_hint() const {
  return (base_ ? base_->entries.size() : 0) + overlay_.size();
}

template <class Fn>
bool NamespaceState::Merge(Fn&& fn) const {
  std::vector<const std::pair<const std::string, Pending>*> ov(order_);
  auto less = [](auto* a, auto* b) { return a->first < b->first; };
  if (!std::is_sorted(ov.begin(), ov.end(), less)) std::sort(ov.begin(), ov.end(), less);
  size_t nb = base_ ? base_->entries.size() : 0;
  size_t i = 0, j = 0;
  bool changed = false;
  while (i < nb || j < ov.size()) {
    if (j == ov.size() || (i < nb && base_->keys[i] < ov[j]->first)) {
      fn(base_->entries[i++], true);
      continue;
    }
    // The overlay wins over a base entry of the same key. A pending entry
    // changes the namespace unless it is byte for byte the base entry it
    // replaces (a body holds the whole object: value or chunk locations,
    // and tags); a deletion changes it if the base had the key.
    const Pending& p = ov[j]->second;
    bool in_base = i < nb && base_->keys[i] == ov[j]->first;
    if (p.deleted ? in_base : !in_base || base_->entries[i] != p.body) changed = true;
    if (in_base) i++;
    if (!p.deleted) fn(p.body, false);
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
