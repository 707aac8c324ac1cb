// The read path: Get, GetRange, MultiGet (into strings or into the caller's
// buffers) and the per-value verified read Rep::ReadValue. Chunks are read
// by io/coalescing_reader straight into their destination (or through its
// bounce buffer) and each chunk's checksum is checked right after the
// request that brought it, on the bytes where they are still in the CPU
// cache (`done`'s `bytes`). See doc/design.md "The read path".
#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <new>

#include "cairn/store.h"
#include "format/checksum.h"
#include "io/coalescing_reader.h"
#include "store/store_dir.h"
#include "store/store_rep.h"
#include "store/key_text.h"
#include "store/out_of_memory.h"

namespace cairn {

namespace {

ReadPlanLimits Limits(const ReadOptions& ro, uint64_t direct_read_bytes) {
  ReadPlanLimits l;
  l.direct_bytes = direct_read_bytes;
  l.gap_limit = ro.gap_limit;
  l.max_block = ro.max_block;
  l.max_amplification = ro.max_read_amplification;
  l.request_bytes = kValueRequestBytes;
  return l;
}

}  // namespace

Status DirectReadBytesFromEnv(uint64_t* bytes) {
  *bytes = 0;
  const char* v = std::getenv("CAIRN_DIRECT_READ_BYTES");
  if (v == nullptr || *v == '\0') return Status::OK();
  // Decimal digits only: strtoull alone would also take leading blanks, a
  // sign, and a negative number wrapped around (" -18446744073709551615"
  // is 1).
  bool digits = std::all_of(v, v + std::strlen(v), [](char c) { return c >= '0' && c <= '9'; });
  char* end = nullptr;
  errno = 0;
  unsigned long long n = std::strtoull(v, &end, 10);
  if (!digits || errno != 0 || *end != '\0' || n >> 63)
    return Status::InvalidArgument(std::string("CAIRN_DIRECT_READ_BYTES is '") + v +
                                   "': give a byte count below 2^63 (0: no direct reads)");
  *bytes = n;
  return Status::OK();
}

Status SizeValue(std::string* value, uint64_t size, std::string_view key) {
  // The allocation whose size is the stored value's: its failure is caught
  // here, where it means something the caller can act on.
  if (size <= value->max_size()) {
    try {
      value->resize(size_t(size));
      return Status::OK();
    } catch (const std::bad_alloc&) {
    }
  }
  std::string().swap(*value);
  return Status::IOError("key '" + KeyText(key) + "': its value of " + std::to_string(size) +
                         " bytes does not fit in this process's memory; read it in parts (GetRange, a stream)");
}

std::string Store::Rep::PendingWriteNote() const {
  if (pending_write_error.ok()) return "";
  return " (a write since the last commit failed: " + pending_write_error.message() +
         "; a value put since then may not have reached the file)";
}

Status Store::Rep::ReadError(std::string_view key, const Status& read) const {
  Status s = read.WithContext("reading '" + KeyText(key) + "'");
  return pending_write_error.ok() ? s : Status(s.code(), s.message() + PendingWriteNote());
}

Status Store::Rep::ChunkError(std::string_view key, const ChunkRef& c) const {
  return Status::Corruption("'" + KeyText(key) + "': checksum mismatch in chunk at " + DataFileName(c.subfile) +
                            " offset " + std::to_string(c.offset) + PendingWriteNote());
}

Status Store::Rep::ReadValue(const EntryView& e, uint64_t offset, uint64_t len, char* dest,
                             const ReadOptions& ro) {
  if (offset > e.size || len > e.size - offset)
    return Status::InvalidArgument("range [" + std::to_string(offset) + ", +" + std::to_string(len) +
                                   ") passes the end of '" + KeyText(e.key) + "' (" +
                                   std::to_string(e.size) + " bytes)");
  if (e.kind == ValueKind::kInline) {
    std::memcpy(dest, e.inline_value.data() + offset, len);
    return Status::OK();
  }
  // Chunks touched by the range are read whole (to verify their checksum):
  // straight into dest when inside the range, else into a side buffer.
  std::vector<ReadRange> ranges;
  struct Piece { const ChunkRef* c; uint64_t value_off; char* buf; };
  std::vector<Piece> pieces;
  std::vector<std::string> side;
  side.reserve(2);
  uint64_t pos = 0;
  for (const ChunkRef& c : e.chunks) {
    uint64_t cbeg = pos, cend = pos + c.raw_length;
    pos = cend;
    if (cend <= offset || cbeg >= offset + len) continue;
    char* buf;
    if (cbeg >= offset && cend <= offset + len) {
      buf = dest + (cbeg - offset);
    } else {
      side.emplace_back(c.length, '\0');
      buf = side.back().data();
    }
    ranges.push_back(ReadRange{c.subfile, c.offset, c.length, buf, pieces.size()});
    pieces.push_back(Piece{&c, cbeg, buf});
  }
  Status bad;
  auto verify = [&](const ReadRange& r, const char* bytes) {
    const Piece& p = pieces[r.tag];
    if (!bad.ok()) return;
    if (Checksum(bytes, p.c->length) != p.c->checksum) {
      bad = ChunkError(e.key, *p.c);
      return;
    }
    uint64_t cend = p.value_off + p.c->raw_length;
    if (p.value_off < offset || cend > offset + len) {  // a side buffer: copy its part
      uint64_t from = std::max(offset, p.value_off), to = std::min(offset + len, cend);
      std::memcpy(dest + (from - offset), bytes + (from - p.value_off), to - from);
    }
  };
  Status s = ReadCoalesced(std::move(ranges), Limits(ro, direct_read_bytes),
                           [this](uint32_t id, File** f) { return DataFile(id, f); }, verify);
  if (!s.ok()) return ReadError(e.key, s);
  return bad;
}

Status Store::GetRange(std::string_view key, uint64_t offset, void* buf, uint64_t length,
                       const ReadOptions& ro) {
  return UnlessOutOfMemoryThen("GetRange of", key, kNothingChanged, [&]() -> Status {
    EntryView e;
    const NameDict* dict;
    Status s = rep_->Find(key, ro, &e, &dict);
    if (!s.ok()) return s;
    return rep_->ReadValue(e, offset, length, static_cast<char*>(buf), ro);
  });
}

Status Store::Get(std::string_view key, std::string* value, const ReadOptions& ro) {
  return UnlessOutOfMemoryThen("Get of", key, kNothingChanged, [&]() -> Status {
    EntryView e;
    const NameDict* dict;
    Status s = rep_->Find(key, ro, &e, &dict);
    if (!s.ok()) return s;
    s = SizeValue(value, e.size, key);
    if (!s.ok()) return s;
    s = rep_->ReadValue(e, 0, e.size, value->data(), ro);
    if (!s.ok()) value->clear();
    return s;
  });
}

// Both MultiGets: `place(i, size, &dest)` says where value i goes (or why it
// cannot); every chunk is read in one coalesced pass and verified as it
// arrives. Returns the first non-ok status. The bookkeeping lives in
// multi_read, so a small MultiGet allocates nothing (store_rep.h).
Status Store::Rep::MultiRead(const std::vector<std::string>& keys, std::vector<Status>* statuses,
                             const ReadOptions& ro,
                             const std::function<Status(size_t, uint64_t, char**)>& place) {
  // Above this many keys the scratch is given back after the call.
  constexpr size_t kKeepKeys = 4096;
  statuses->assign(keys.size(), Status::OK());
  MultiReadScratch& m = multi_read;
  if (m.views.size() < keys.size()) m.views.resize(keys.size());
  m.ranges.clear();
  m.wants.clear();
  for (size_t i = 0; i < keys.size(); i++) {
    const NameDict* dict;
    EntryView& e = m.views[i];
    Status s = Find(keys[i], ro, &e, &dict);
    char* dest = nullptr;
    if (s.ok()) s = place(i, e.size, &dest);
    if (!s.ok()) {
      (*statuses)[i] = s;
      continue;
    }
    if (e.kind == ValueKind::kInline) {
      std::memcpy(dest, e.inline_value.data(), e.size);
      continue;
    }
    uint64_t pos = 0;
    for (const ChunkRef& c : e.chunks) {
      m.ranges.push_back(ReadRange{c.subfile, c.offset, c.length, dest + pos, m.wants.size()});
      m.wants.emplace_back(i, &c);
      pos += c.raw_length;
    }
  }
  // One pointer of context: the std::function keeps it without allocating.
  struct Ctx { const std::vector<std::string>* keys; std::vector<Status>* statuses; MultiReadScratch* m; const Rep* rep; };
  Ctx ctx{&keys, statuses, &m, this};
  auto verify = [c = &ctx](const ReadRange& r, const char* bytes) {
    const auto& [key, chunk] = c->m->wants[r.tag];
    Status& st = (*c->statuses)[key];
    if (st.ok() && Checksum(bytes, chunk->length) != chunk->checksum) st = c->rep->ChunkError((*c->keys)[key], *chunk);
  };
  Status io = ReadCoalesced(&m.ranges, Limits(ro, direct_read_bytes), [this](uint32_t id, File** f) { return DataFile(id, f); },
                            verify, nullptr, &m.io);
  if (!io.ok())  // which chunks arrived is unknown: every chunked value fails
    for (const auto& w : m.wants) (*statuses)[w.first] = ReadError(keys[w.first], io);
  if (keys.size() > kKeepKeys) {  // (placed is MultiGet's: it trims it)
    m.views = {};
    m.ranges = {};
    m.wants = {};
    m.io = ReadWorkspace();
  }
  for (const Status& st : *statuses)
    if (!st.ok()) return st;
  return Status::OK();
}

Status Store::MultiGet(const std::vector<std::string>& keys, std::vector<std::string>* values,
                       std::vector<Status>* statuses, const ReadOptions& ro) {
  return UnlessOutOfMemoryThen("MultiGet of", rep_->path, kNothingChanged, [&]() -> Status {
    values->resize(keys.size());  // strings the caller passes again keep their memory
    Status first = rep_->MultiRead(keys, statuses, ro, [&](size_t i, uint64_t size, char** dest) {
      Status s = SizeValue(&(*values)[i], size, keys[i]);
      *dest = (*values)[i].data();
      return s;
    });
    for (size_t i = 0; i < keys.size(); i++)
      if (!(*statuses)[i].ok()) (*values)[i].clear();
    return first;
  });
}

Status Store::MultiGet(const std::vector<std::string>& keys, std::vector<ValueBuffer>* buffers,
                       std::vector<Status>* statuses, const ReadOptions& ro) {
  return UnlessOutOfMemoryThen("MultiGet of", rep_->path, kNothingChanged, [&]() -> Status {
    if (buffers->size() != keys.size()) {
      Status bad = Status::InvalidArgument("MultiGet: " + std::to_string(keys.size()) + " keys but " +
                                           std::to_string(buffers->size()) + " buffers");
      statuses->assign(keys.size(), bad);
      return bad;
    }
    // Values are read and verified in place (or in the bounce, then copied):
    // two buffers sharing bytes would overwrite each other between the read
    // and the check, and a good value would be reported corrupt (or a
    // reported-good one hold the other's bytes). Refused before anything is
    // read.
    if (keys.size() > 1) {
      std::vector<size_t>& order = rep_->multi_read.order;
      order.clear();
      for (size_t i = 0; i < keys.size(); i++)
        if ((*buffers)[i].capacity > 0) order.push_back(i);
      auto begin_of = [&](size_t i) { return reinterpret_cast<uintptr_t>((*buffers)[i].data); };
      std::sort(order.begin(), order.end(), [&](size_t a, size_t b) { return begin_of(a) < begin_of(b); });
      for (size_t k = 1; k < order.size(); k++) {
        size_t a = order[k - 1], b = order[k];
        if (begin_of(a) + (*buffers)[a].capacity > begin_of(b)) {
          Status bad = Status::InvalidArgument("MultiGet: the buffers of '" + keys[a] + "' and '" + keys[b] +
                                               "' overlap (each value needs capacity bytes of its own)");
          statuses->assign(keys.size(), bad);
          return bad;
        }
      }
    }
    std::vector<char>& written = rep_->multi_read.placed;
    written.assign(keys.size(), 0);
    struct Ctx { const std::vector<std::string>* keys; std::vector<ValueBuffer>* buffers; std::vector<char>* written; };
    Ctx ctx{&keys, buffers, &written};
    Status first = rep_->MultiRead(keys, statuses, ro, [c = &ctx](size_t i, uint64_t size, char** dest) {
      ValueBuffer& b = (*c->buffers)[i];
      b.size = size;
      if (size > b.capacity)
        return Status::InvalidArgument("MultiGet: value of '" + (*c->keys)[i] + "' is " + std::to_string(size) +
                                       " bytes, its buffer holds " + std::to_string(b.capacity));
      if (size > 0 && b.data == nullptr)
        return Status::InvalidArgument("MultiGet: buffer of '" + (*c->keys)[i] + "' is null");
      *dest = static_cast<char*>(b.data);
      (*c->written)[i] = 1;
      return Status::OK();
    });
    for (size_t i = 0; i < keys.size(); i++)
      if (!(*statuses)[i].ok() && written[i]) std::memset((*buffers)[i].data, 0, (*buffers)[i].size);
    if (written.size() > 4096) written = {};
    if (rep_->multi_read.order.capacity() > 4096) rep_->multi_read.order = {};
    return first;
  });
}

}  // namespace cairn
