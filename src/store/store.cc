// Store: put/get, tags, lists, the shared namespace, pins, close (the open
// is open.cc). The collective protocol of each call is described in
// doc/design.md; the bytes it writes in doc/format.md.
#include "cairn/store.h"

#include <sys/stat.h>

#include <algorithm>
#include <chrono>
#include <cstring>

#include "array/array_meta.h"
#include "format/checksum.h"
#include "format/coding.h"
#include "format/subfile_header.h"
#include "io/fs_layout.h"
#include "io/coalescing_reader.h"
#include "store/crash_point.h"
#include "store/finalize_hook.h"
#include "store/options_check.h"
#include "store/out_of_memory.h"
#include "store/retention.h"
#include "store/store_dir.h"
#include "store/store_rep.h"
#include "store/tag_edit.h"
#include "store/stream_hub.h"
#include "store/key_text.h"

namespace cairn {

namespace {


Status CheckKey(std::string_view key) {
  if (key.empty()) return Status::InvalidArgument("empty key");
  if (key.size() > kMaxKeyLength) return Status::InvalidArgument("key longer than 65535 bytes");
  return Status::OK();
}

}  // namespace

RevisionInfo InfoOf(const RevisionRecord& r) {
  RevisionInfo i;
  i.revision = r.revision;
  i.parent = r.parent;
  i.time_ns = r.time_ns;
  i.ranks = r.nranks;
  for (const NamespaceDesc& d : r.namespaces) {
    i.objects += d.objects;
    i.value_bytes += d.value_bytes;
    i.index_bytes += d.length;
  }
  return i;
}

std::string DataFileName(uint32_t subfile) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "data.%05u", subfile);
  return buf;
}

std::string Store::Rep::Where(uint32_t ns) const {
  std::string who = ns == kSharedNamespace ? "shared namespace" : "rank " + std::to_string(ns);
  return path + " revision " + std::to_string(current.revision) + " " + who;
}

Status Store::Rep::CheckWritable() const {
  if (closed) return Status::InvalidArgument("store is closed");
  if (opt.read_only) return Status::InvalidArgument("store " + path + " is open read-only");
  if (!poisoned.ok()) {
    // Out of memory where the handle's state could not be kept or taken
    // back, or a failed fsync (whose unwritten pages the system may drop).
    const bool memory = poisoned.message().find("out of memory") != std::string::npos;
    return Status(poisoned.code(), std::string(memory ? "an earlier call ran out of memory where this handle's "
                                                        "state could not be kept whole ("
                                                      : "an earlier commit failed to make its data durable (") +
                                       poisoned.message() +
                                       (memory ? ")" : "); the operating system may have dropped the unwritten pages") +
                                       ", so this handle takes no more commits: close and reopen the store (the "
                                       "last committed revision is intact)");
  }
  return Status::OK();
}

Status Store::Rep::DataFile(uint32_t subfile, File** file) {
  if (my_file && subfile == my_subfile) {
    // Pending puts may still be in the write buffer (or staged): write them
    // out first so the caller reads its own uncommitted values (no fsync).
    // A failed write does not stop the read (store_rep.h).
    pending_write_error = writer ? DrainWrites() : Status::OK();
    *file = my_file.get();
    return Status::OK();
  }
  auto it = read_files.find(subfile);
  if (it == read_files.end()) {
    std::unique_ptr<File> f;
    Status s = File::Open(path + "/" + DataFileName(subfile), File::kReadOnly, &stats, &f);
    if (!s.ok()) return s;
    it = read_files.emplace(subfile, std::move(f)).first;
  }
  *file = it->second.get();
  return Status::OK();
}

Status Store::Rep::ReadTable(uint32_t ns, const NamespaceDesc& d,
                             std::shared_ptr<const IndexTable>* out) {
  if (d.length == 0) {
    out->reset();
    return Status::OK();
  }
  File* f;
  Status s = DataFile(d.subfile, &f);
  if (!s.ok()) return s;
  // Read straight into memory that is not zero-filled first (a 4 MiB
  // table of inline values spent a fifth of its open in memset), hashed
  // once: the manifest's checksum covers the table's own.
  std::unique_ptr<char[]> bytes(new char[d.length]);
  // A large table (a piece of PReadOnce or more) leaves the page cache as
  // it is read: the copy made here is the one kept, and a cached second
  // copy of hundreds of MiB only takes memory the copy could reuse. A
  // smaller one stays cached for the next open (a reader opening often).
  constexpr uint64_t kReadOnceBytes = 8ull << 20;
  s = ReadWhole(f, d.offset, bytes.get(), d.length, d.length >= kReadOnceBytes);
  if (!s.ok()) return s.WithContext(Where(ns) + " index");
  if (Checksum(bytes.get(), d.length) != d.checksum)
    return Status::Corruption(Where(ns) + ": index table checksum does not match the manifest");
  std::shared_ptr<IndexTable> t;
  s = ParseIndexTable(std::move(bytes), d.length, Where(ns) + " index", &t, true);
  if (!s.ok()) return s;
  if (t->ns != ns) return Status::Corruption(Where(ns) + ": index table belongs to namespace " + std::to_string(t->ns));
  *out = std::move(t);
  return Status::OK();
}

Status Store::Rep::Table(uint32_t ns, std::shared_ptr<const IndexTable>* table) {
  if (current.revision == 0) {
    table->reset();
    return Status::OK();
  }
  auto it = tables.find(ns);
  if (it != tables.end()) {
    *table = it->second;
    return Status::OK();
  }
  const NamespaceDesc& d = ns == kSharedNamespace ? current.shared() : current.namespaces.at(ns);
  Status s = ReadTable(ns, d, table);
  if (s.ok()) tables[ns] = *table;
  return s;
}

Status Store::Rep::Resolve(std::string_view key, const ReadOptions& ro, std::string_view* body,
                           const NameDict** dict) {
  if (closed) return Status::InvalidArgument("store is closed");
  Status s = CheckKey(key);
  if (!s.ok()) return s;
  int me = comm->rank();
  if (ro.rank == ReadOptions::kShared) {
    const NamespaceState& sh = shared;
    if (me == 0 && sh.Lookup(key, body)) {  // rank 0 sees its pending shared puts too
      *dict = &sh.dict();
      return Status::OK();
    }
    std::shared_ptr<const IndexTable> t;
    s = Table(kSharedNamespace, &t);
    if (!s.ok()) return s;
    ptrdiff_t i = t ? t->Find(key) : -1;
    if (i < 0) return Status::NotFound("key '" + KeyText(key) + "' not in " + Where(kSharedNamespace));
    *body = t->entries[size_t(i)];
    *dict = &t->names;
    return Status::OK();
  }
  if (ro.rank < -1) return Status::InvalidArgument("ReadOptions::rank must be -1, kShared or a rank");
  if (ro.rank == -1 || (ro.rank == me && !opt.read_only)) {
    if (!own.Lookup(key, body))
      return Status::NotFound("key '" + KeyText(key) + "' not in " + Where(uint32_t(me)));
    *dict = &static_cast<const NamespaceState&>(own).dict();
    return Status::OK();
  }
  if (current.revision == 0 || uint32_t(ro.rank) >= current.nranks)
    return Status::InvalidArgument("rank " + std::to_string(ro.rank) + " has no namespace in " +
                                   path + " revision " + std::to_string(current.revision));
  std::shared_ptr<const IndexTable> t;
  s = Table(uint32_t(ro.rank), &t);
  if (!s.ok()) return s;
  ptrdiff_t i = t ? t->Find(key) : -1;
  if (i < 0) return Status::NotFound("key '" + KeyText(key) + "' not in " + Where(uint32_t(ro.rank)));
  *body = t->entries[size_t(i)];
  *dict = &t->names;
  return Status::OK();
}

Status Store::Rep::PutInto(NamespaceState* ns, std::string_view key, std::string_view value,
                           const TagList& tags, bool zero_copy, uint64_t grain) {
  Status s = CheckKey(key);
  if (!s.ok()) return s;
  if (value.size() <= opt.inline_value_limit) {
    // An inline value (a catalogue's objects): the tags are encoded
    // straight after the entry's head, one copy fewer than below.
    std::string& body = scratch;
    body.clear();
    EncodeEntryBody(key, ValueKind::kInline, value.size(), value, {}, {}, &body);
    s = EncodeTags(tags, ns->dict(), &body);
    if (!s.ok()) return s;
    return ns->Put(key, body);
  }
  // Tags and room first: a bad tag, or a namespace with no room for
  // another pending change, fails the put before any data is written.
  s = ns->CheckRoom(key);
  if (!s.ok()) return s;
  std::string& tag_bytes = scratch_tags;
  tag_bytes.clear();
  s = EncodeTags(tags, ns->dict(), &tag_bytes);
  if (!s.ok()) return s;
  std::vector<ChunkRef> chunks;
  ValueKind kind = ValueKind::kInline;
  if (value.size() > opt.inline_value_limit) {
    kind = ValueKind::kChunked;
    s = zero_copy ? writer->AppendZeroCopy(value, &chunks, grain) : writer->Append(value, &chunks, grain);
    if (!s.ok()) return s.WithContext("put '" + KeyText(key) + "'");
  }
  // Encoded in a reused scratch buffer, then kept in the namespace's arena.
  std::string& body = scratch;
  body.clear();
  EncodeEntryBody(key, kind, value.size(), value, chunks, tag_bytes, &body);
  return ns->Put(key, body);  // (room checked above)
}

Status Store::Rep::RetagInto(NamespaceState* ns, std::string_view key, const TagList& tags) {
  std::string_view old;
  if (!ns->Lookup(key, &old)) return Status::NotFound("key '" + KeyText(key) + "' not found");
  EntryView e;
  Status s = DecodeEntryBody(old, &e);
  if (!s.ok()) return s;
  std::string tag_bytes;
  s = EncodeTags(tags, ns->dict(), &tag_bytes);
  if (!s.ok()) return s;
  std::string body;
  EncodeEntryBody(e.key, e.kind, e.size, e.inline_value, e.chunks, tag_bytes, &body);
  return ns->Put(key, body);
}

// ---------------------------------------------------------------- Construction (Store::Open is open.cc)

Store::Store(std::unique_ptr<Rep> rep) : rep_(std::move(rep)) {}
Store::~Store() { Close(); }

// ---------------------------------------------------------------- Accessors

int Store::rank() const { return rep_->comm->rank(); }
int Store::size() const { return rep_->comm->size(); }
uint64_t Store::revision() const { return rep_->current.revision; }
int Store::writer_ranks() const { return rep_->current.revision == 0 ? size() : int(rep_->current.nranks); }
IoStats Store::stats() const { return SnapshotStats(rep_->stats); }

Status Store::ListRevisions(std::vector<RevisionInfo>* revisions) {
  return UnlessOutOfMemoryThen("ListRevisions of", rep_->path, kNothingChanged, [&]() -> Status {
    *revisions = rep_->revisions;
    return Status::OK();
  });
}

// ---------------------------------------------------------------- Writes

Status Store::Put(std::string_view key, std::string_view value, const TagList& tags) {
  Status s = rep_->CheckWritable();
  if (s.ok()) s = CheckNotReserved(key, "Put");
  if (!s.ok()) return s;
  if (rep_->inflight) rep_->Progress(false);
  return UnlessOutOfMemory("Put", key, [&] { return rep_->PutInto(&rep_->own, key, value, tags); },
                           {&rep_->scratch, &rep_->scratch_tags});
}

Status Store::PutZeroCopy(std::string_view key, std::string_view value, const TagList& tags) {
  Status s = rep_->CheckWritable();
  if (s.ok()) s = CheckNotReserved(key, "PutZeroCopy");
  if (!s.ok()) return s;
  if (rep_->inflight) rep_->Progress(false);
  s = UnlessOutOfMemory("PutZeroCopy", key, [&] { return rep_->PutInto(&rep_->own, key, value, tags, true); },
                        {&rep_->scratch, &rep_->scratch_tags});
  // A put that failed after its value was queued (staging: written from
  // the caller's memory) is not in any commit, so nothing else would wait
  // for those writes: the caller may free the value once this returns.
  // (A write's error stays with the queue, for the next commit.)
  if (!s.ok() && rep_->writer->queue()) (void)rep_->writer->queue()->Wait();
  return s;
}

Status Store::PutShared(std::string_view key, std::string_view value, const TagList& tags) {
  Status s = rep_->CheckWritable();
  if (s.ok()) s = CheckNotReserved(key, "PutShared");
  if (!s.ok()) return s;
  if (rank() != 0) return Status::InvalidArgument("PutShared is for rank 0 only (shared objects are written once)");
  return UnlessOutOfMemory("PutShared", key, [&] { return rep_->PutInto(&rep_->shared, key, value, tags); },
                           {&rep_->scratch, &rep_->scratch_tags});
}

Status Store::Delete(std::string_view key) {
  Status s = rep_->CheckWritable();
  if (s.ok()) s = CheckKey(key);
  if (s.ok()) s = CheckNotReserved(key, "Delete");
  if (!s.ok()) return s;
  return UnlessOutOfMemory("Delete", key, [&] { return rep_->own.Delete(key); });
}

Status Store::SetTags(std::string_view key, const TagList& tags) {
  Status s = rep_->CheckWritable();
  if (s.ok()) s = CheckKey(key);
  if (s.ok()) s = CheckNotReserved(key, "SetTags");
  if (!s.ok()) return s;
  return UnlessOutOfMemory("SetTags", key, [&] { return rep_->RetagInto(&rep_->own, key, tags); });
}

Status Store::SetTag(std::string_view key, const Tag& tag) {
  Status s = rep_->CheckWritable();
  if (s.ok()) s = CheckKey(key);
  if (s.ok()) s = CheckNotReserved(key, "SetTag");
  if (!s.ok()) return s;
  return UnlessOutOfMemory("SetTag", key, [&] { return EditTag(&rep_->own, key, tag.name, &tag.value); });
}

Status Store::DeleteTag(std::string_view key, std::string_view name) {
  Status s = rep_->CheckWritable();
  if (s.ok()) s = CheckKey(key);
  if (s.ok()) s = CheckNotReserved(key, "DeleteTag");
  if (!s.ok()) return s;
  return UnlessOutOfMemory("DeleteTag", key, [&] { return EditTag(&rep_->own, key, name, nullptr); });
}

// ---------------------------------------------------------------- Reads

Status Store::Rep::CheckHugeValue(const EntryView& e) {
  // An index table from a buggy writer (its checksums hold) could claim any
  // size, and a read would try to allocate it; values this large are
  // checked against the size of their files first (found by bad_input_test).
  if (e.kind != ValueKind::kChunked || e.size <= (1ull << 30)) return Status::OK();
  std::map<uint32_t, uint64_t> sizes;
  for (const ChunkRef& c : e.chunks) {
    auto it = sizes.find(c.subfile);
    if (it == sizes.end()) {
      File* f;
      uint64_t size = 0;
      Status s = DataFile(c.subfile, &f);
      if (s.ok()) s = f->Size(&size);
      if (!s.ok()) return s;
      it = sizes.emplace(c.subfile, size).first;
    }
    if (c.offset > it->second || c.length > it->second - c.offset)
      return Status::Corruption("'" + KeyText(e.key) + "': chunk at " + DataFileName(c.subfile) + " offset " +
                                std::to_string(c.offset) + " (" + std::to_string(c.length) +
                                " bytes) passes the end of the file (" + std::to_string(it->second) + " bytes)");
  }
  return Status::OK();
}

Status Store::Rep::Find(std::string_view key, const ReadOptions& ro, EntryView* e,
                        const NameDict** dict) {
  std::string_view body;
  Status s = Resolve(key, ro, &body, dict);
  if (s.ok()) {
    s = DecodeEntryBody(body, e);
    if (!s.ok()) s = s.WithContext("key '" + KeyText(key) + "'");  // (built only on failure)
  }
  if (s.ok()) s = CheckHugeValue(*e);
  return s;
}

Status Store::GetSize(std::string_view key, uint64_t* size, const ReadOptions& ro) {
  return UnlessOutOfMemoryThen("GetSize of", key, kNothingChanged, [&]() -> Status {
    EntryView e;
    const NameDict* dict;
    Status s = rep_->Find(key, ro, &e, &dict);
    if (s.ok()) *size = e.size;
    return s;
  });
}

Status Store::GetTags(std::string_view key, TagList* tags, const ReadOptions& ro) {
  return UnlessOutOfMemoryThen("GetTags of", key, kNothingChanged, [&]() -> Status {
    EntryView e;
    const NameDict* dict;
    Status s = rep_->Find(key, ro, &e, &dict);
    if (s.ok()) {
      s = DecodeTags(e.tags, *dict, tags);
      if (!s.ok()) s = s.WithContext("tags of '" + KeyText(key) + "'");  // the message built on failure only
    }
    return s;
  });
}

Status Store::List(std::vector<ObjectInfo>* objects, const ReadOptions& ro) {
  return UnlessOutOfMemoryThen("List of", rep_->path, kNothingChanged, [&]() -> Status {
    objects->clear();
    if (rep_->closed) return Status::InvalidArgument("store is closed");
    int me = rank();
    Status s;
    auto add = [&](std::string_view body, const NameDict& dict) {
      if (!s.ok()) return;
      EntryView e;
      s = DecodeEntryBody(body, &e);
      if (s.ok() && IsReservedKey(e.key)) return;  // the store's array objects
      ObjectInfo o;
      if (s.ok()) s = DecodeTags(e.tags, dict, &o.tags);
      if (!s.ok()) return;
      o.key = std::string(e.key);
      o.size = e.size;
      o.inlined = e.kind == ValueKind::kInline;
      objects->push_back(std::move(o));
    };
    if (ro.rank == -1 || (ro.rank == me && !rep_->opt.read_only)) {
      objects->reserve(rep_->own.capacity_hint());
      const NamespaceState& own = rep_->own;
      own.ForEach([&](std::string_view b) { add(b, own.dict()); });
      return s.WithContext(rep_->Where(uint32_t(me)));
    }
    bool sh = ro.rank == ReadOptions::kShared;
    if (sh && me == 0 && !rep_->opt.read_only) {
      const NamespaceState& shared = rep_->shared;
      shared.ForEach([&](std::string_view b) { add(b, shared.dict()); });
      return s.WithContext(rep_->Where(kSharedNamespace));
    }
    if (!sh && (rep_->current.revision == 0 || ro.rank < 0 || uint32_t(ro.rank) >= rep_->current.nranks))
      return Status::InvalidArgument("rank " + std::to_string(ro.rank) + " has no namespace in revision " +
                                     std::to_string(rep_->current.revision));
    uint32_t ns = sh ? kSharedNamespace : uint32_t(ro.rank);
    std::shared_ptr<const IndexTable> t;
    s = rep_->Table(ns, &t);
    if (!s.ok() || !t) return s;
    objects->reserve(t->entries.size());
    for (std::string_view b : t->entries) add(b, t->names);
    return s.WithContext(rep_->Where(ns));
  });
}

// Rank 0's part of GetShared: the value of shared `key` into *value.
static Status ReadSharedOnRoot(Store::Rep* r, std::string_view key, std::string* value, uint64_t* size) {
  std::string_view body;
  std::shared_ptr<const IndexTable> t;  // a read-only open loads the shared table here
  Status s;
  if (r->closed) {
    s = Status::InvalidArgument("store is closed");
  } else if (r->opt.read_only) {
    s = r->Table(kSharedNamespace, &t);
    ptrdiff_t i = s.ok() && t ? t->Find(key) : -1;
    if (i >= 0) body = t->entries[size_t(i)];
    else if (s.ok()) s = Status::NotFound("shared key '" + KeyText(key) + "' not in " + r->path);
  } else if (!r->shared.Lookup(key, &body)) {
    s = Status::NotFound("shared key '" + KeyText(key) + "' not in " + r->path);
  }
  EntryView e;
  if (s.ok()) s = DecodeEntryBody(body, &e);
  if (s.ok()) s = r->CheckHugeValue(e);
  if (s.ok()) s = SizeValue(value, e.size, key);
  if (s.ok()) s = r->ReadValue(e, 0, e.size, value->data(), ReadOptions());
  if (s.ok()) *size = e.size;
  return s;
}

Status Store::GetShared(std::string_view key, std::string* value) {
  Rep* r = rep_.get();
  r->FinishInflight();  // one collective at a time, in the same order everywhere
  // Rank 0, the root of the broadcasts below, would return at once if it
  // alone called GetShared, and its value would then answer another rank's
  // next GetShared. Where the user asked for detection of collectives made
  // by only some ranks, every rank first meets the others (one barrier).
  if (r->opt.collective_timeout_s > 0) r->comm->Barrier();
  // Out of memory on a rank (rank 0's read, its table; another's copy of
  // the value) is its error, agreed before the value travels: no rank
  // leaves a broadcast the others are in.
  auto guarded = [&](auto&& f) { return UnlessOutOfMemoryThen("GetShared of", key, kNothingChanged, f); };
  // Rank 0's key travels with its status and the value's size: a rank that
  // asked for another key is told so, and never gets rank 0's object as
  // its own. Empty: rank 0 could not even make it (out of memory).
  std::string st;
  if (rank() == 0) {
    uint64_t size = 0;
    Status s = guarded([&] { return ReadSharedOnRoot(r, key, value, &size); });
    if (!s.ok()) value->clear();
    try {
      PutLengthPrefixed(&st, key);
      PutLengthPrefixed(&st, EncodeStatus(s));
      PutFixed64(&st, size);
    } catch (const std::bad_alloc&) {
      st.clear();
    }
  }
  r->comm->Bcast(&st, 0);
  Status root = Status(Status::Code::kIOError, "out of memory");  // until rank 0's is read
  Status mine;
  Status ready = guarded([&]() -> Status {
    if (st.empty()) return Status::OK();  // (root says it)
    Decoder d(st);
    const std::string root_key(d.LengthPrefixed());
    root = DecodeStatus(std::string(d.LengthPrefixed()));
    uint64_t size = d.U64();
    if (root_key != key)
      mine = Status::InvalidArgument("GetShared of '" + KeyText(key) + "' on rank " + std::to_string(rank()) +
                                     ", of '" + KeyText(root_key) +
                                     "' on rank 0: a collective call names the same key on every rank");
    return root.ok() && rank() != 0 ? SizeValue(value, size, key) : Status::OK();
  });
  // Every rank that read rank 0's failure returns it; the agreement covers
  // the others (a rank that could not read it, or hold the value).
  Status agreed = AgreeStatus(r->comm.get(), root.ok() ? ready : Status::OK());
  if (!root.ok() || !agreed.ok()) {
    value->clear();
    return !mine.ok() ? mine : !root.ok() ? root : agreed;
  }
  r->comm->Bcast(value, 0, "shared_value", /*reserved=*/true);  // (room taken before the agreement)
  if (!mine.ok()) value->clear();
  return mine;
}

// ---------------------------------------------------------------- Retention

// One collective at a time, in the same order everywhere: a commit in
// flight finishes first.
// (MarkRevision takes part in every collective step whatever memory is
// left; what could throw after them is this rank's reply.)
static Status Mark(Store::Rep* r, RecordType type, uint64_t rev) {
  r->FinishInflight();
  return UnlessOutOfMemoryThen("mark of revision", std::to_string(rev), "", [&] { return MarkRevision(r, type, rev); });
}
Status Store::Pin(uint64_t rev) { return Mark(rep_.get(), RecordType::kPin, rev); }
Status Store::Unpin(uint64_t rev) { return Mark(rep_.get(), RecordType::kUnpin, rev); }
Status Store::Drop(uint64_t rev) { return Mark(rep_.get(), RecordType::kDrop, rev); }

Status Store::Close() {
  if (!rep_ || rep_->closed) return Status::OK();
  Rep* r = rep_.get();
  int finalized = 0;
  if (r->comm->mpi() != MPI_COMM_NULL) MPI_Finalized(&finalized);
  Status pending = finalized ? Status::OK() : r->FinishInflight();  // (never throws)
  UnregisterOpenStore(this);
  r->closed = true;
  DetachStreams(r);  // streams still open fail from now on; a writer's data is not committed
  if (r->writer) r->comm->FreeCounters();
  r->writer.reset();
  r->io.reset();  // waits for its last jobs
  r->my_file.reset();
  r->read_files.clear();
  r->manifest.reset();
  r->writer_lock.reset();  // after the last record
  if (r->comm->mpi() != MPI_COMM_NULL) {
    if (finalized) return Status::InvalidArgument("store closed after MPI_Finalize");
    // A writable handle's ranks leave together, once the writer lock is
    // released. A read-only handle changed nothing another rank could see:
    // its ranks leave as each is done (a barrier here made every rank wait
    // for the slowest one to be scheduled, and spin meanwhile on a shared
    // core; small_read_test).
    if (!r->opt.read_only) r->comm->Barrier();
  }
  return pending;
}

}  // namespace cairn
