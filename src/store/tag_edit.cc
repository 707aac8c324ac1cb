#include "store/tag_edit.h"

#include <new>

#include "format/coding.h"
#include "format/index_format.h"
#include "format/tag_codec.h"
#include "store/key_text.h"

namespace cairn {

namespace {
// Entries with at least this many tags get a tag-id set when edited.
constexpr uint64_t kTagIdsFrom = 16;
}  // namespace

Status EditTag(NamespaceState* ns, std::string_view key, std::string_view name, const TagValue* value) {
  std::string_view old;
  if (!ns->Lookup(key, &old)) return Status::NotFound("key '" + KeyText(key) + "' not found");
  EntryView e;
  Status s = DecodeEntryBody(old, &e);
  if (s.ok()) s = ns->CheckRoom(key);  // so the Put below cannot fail once the tag-id set is moved out
  if (!s.ok()) return s;
  // The new tag, encoded alone (this validates it and interns its name).
  std::string one;
  if (value) {
    s = EncodeTags({Tag{std::string(name), *value}}, ns->dict(), &one);
    if (!s.ok()) return s;
    one.erase(0, 1);  // the count (1, one byte)
  }
  uint32_t id = 0;
  bool known = ns->dict()->Find(name, &id);
  // An entry edited tag by tag keeps the set of its tag ids: a tag not in
  // it is appended with no pass over the others.
  std::vector<uint64_t>* ids = ns->TagIds(key);
  auto has = [&](const std::vector<uint64_t>& v, uint32_t x) {
    return x / 64 < v.size() && (v[x / 64] >> (x % 64) & 1);
  };
  // Where the tag lies in the encoded list, if it is there: one pass that
  // skips each tag's payload without decoding it.
  const char* base = e.tags.data();
  const char* p = base;
  const char* lim = base + e.tags.size();
  auto varint = [&](uint64_t* v) {
    uint64_t r = 0;
    for (int shift = 0; p < lim && shift < 64; shift += 7) {
      uint8_t b = uint8_t(*p++);
      r |= uint64_t(b & 0x7f) << shift;
      if (!(b & 0x80)) {
        *v = r;
        return true;
      }
    }
    return false;
  };
  auto skip = [&](uint64_t n) {
    if (uint64_t(lim - p) < n) return false;
    p += n;
    return true;
  };
  uint64_t n = 0;
  bool ok = varint(&n);
  size_t first = size_t(p - base), at = 0, end = 0;
  bool found = false;
  bool absent = ids && known && !has(*ids, id);  // known not to be there
  if (absent && !value)
    return Status::NotFound("key '" + KeyText(key) + "' has no tag '" + std::string(name) + "'");
  std::vector<uint64_t> seen;  // the ids met by the pass, to start a set
  // A set costs dict()->size() bits: only where that is a few bytes a tag.
  bool collect = !ids && n >= kTagIdsFrom && ns->dict()->size() <= 64 * n;
  if (collect) seen.assign(ns->dict()->size() / 64 + 1, 0);
  if (absent) p = lim;  // no pass: append
  for (uint64_t i = 0; ok && !absent && i < n; i++) {
    size_t b = size_t(p - base);
    uint64_t nid = 0, len = 0;
    ok = varint(&nid) && p < lim;
    if (!ok) break;
    uint8_t code = uint8_t(*p++);
    if (code & kTagArrayFlag) {
      size_t w = TagTypeWidth(code & uint8_t(~kTagArrayFlag));
      ok = w != 0 && varint(&len) && len <= uint64_t(lim - p) / w && skip(len * w);
    } else if (code >= 1 && code <= 8) {
      ok = varint(&len);
    } else if (code == 9 || code == 10) {
      ok = skip(code == 9 ? 4 : 8);
    } else if (code == 11 || code == 12) {
      ok = varint(&len) && skip(len);
    } else {
      // A type this version does not know (or damage): say which, as reads do.
      Decoder d(std::string_view(p, size_t(lim - p)));
      TagValue v;
      Status ts = DecodeTagPayload(code, &d, &v);
      if (!ts.ok()) return ts.WithContext("tags of '" + KeyText(key) + "'");
      p = lim - d.remaining();
    }
    if (ok && known && nid == id) {
      found = true;
      at = b;
      end = size_t(p - base);
    }
    if (ok && collect && nid / 64 < seen.size()) seen[nid / 64] |= uint64_t(1) << (nid % 64);
  }
  if (!ok || p != lim) return Status::Corruption("key '" + KeyText(key) + "': damaged tag list");
  if (!value && !found)
    return Status::NotFound("key '" + KeyText(key) + "' has no tag '" + std::string(name) + "'");
  if (!found) at = end = e.tags.size();  // appended
  std::string tags;
  tags.reserve(e.tags.size() + one.size() + 10);
  PutVarint64(&tags, value ? (found ? n : n + 1) : n - 1);
  tags.append(e.tags.substr(first, at - first));
  tags += one;
  tags.append(e.tags.substr(end));
  std::string body;
  EncodeEntryBody(e.key, e.kind, e.size, e.inline_value, e.chunks, tags, &body);
  // Put drops the set (a new body): carry it over, updated.
  std::vector<uint64_t> keep;
  if (ids) keep = std::move(*ids);
  else if (collect) keep = std::move(seen);
  // A Put that fails (std::bad_alloc: it changes nothing) leaves the set
  // where it was: moved out and left empty, it said the entry had no tag,
  // and the next SetTag of one of them appended a second of that name.
  try {
    s = ns->Put(key, body);
  } catch (...) {
    if (ids) *ids = std::move(keep);
    throw;
  }
  if (!s.ok()) {
    if (ids) *ids = std::move(keep);
    return s;
  }
  // The change is made (Put dropped the old set): without memory for the
  // updated set, none is kept, which is correct too (the next edit makes
  // a pass over the tags).
  if (ids || collect) {
    try {
      if (!known) ns->dict()->Find(name, &id);  // interned by the encode above
      if (id / 64 >= keep.size()) keep.resize(id / 64 + 1, 0);
      if (value) keep[id / 64] |= uint64_t(1) << (id % 64);
      else keep[id / 64] &= ~(uint64_t(1) << (id % 64));
      if (keep.size() <= n + 2) ns->KeepTagIds(key, std::move(keep));  // else too sparse: dropped
    } catch (const std::bad_alloc&) {
    }
  }
  return Status::OK();
}

}  // namespace cairn
