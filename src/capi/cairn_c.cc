// The C API: thin wrappers over cairn::Store that turn Status into a code
// and a thread-local message.
#include "cairn/cairn.h"

#include <cstddef>
#include <cstdio>
#include <cstring>
#include <exception>
#include <new>
#include <stdexcept>
#include <algorithm>
#include <memory>
#include <string>

#include "cairn/store.h"
#include "cairn/stream.h"
#include "capi/capi_internal.h"

struct cairn_async {
  cairn::AsyncCommit handle;
};
struct cairn_stream {
  std::unique_ptr<cairn::StreamWriter> w;
  std::unique_ptr<cairn::StreamReader> r;
};

namespace cairn_capi {

thread_local std::string last_error;

int Code(const cairn::Status& s) {
  if (s.ok()) return CAIRN_OK;
  last_error = s.ToString();
  return -int(s.code());
}

int Escaped(const char* fn) noexcept {
  // The message is made in a fixed buffer: under std::bad_alloc a string
  // may not be had. If last_error cannot take it either, it is left empty
  // (the code still says what kind of failure it was).
  char msg[512];
  int code = CAIRN_IO_ERROR;
  try {
    throw;
  } catch (const std::bad_alloc&) {
    std::snprintf(msg, sizeof msg, "IOError: %s: out of memory (a size too large for this process?)", fn);
  } catch (const std::length_error& e) {
    code = CAIRN_INVALID_ARGUMENT;
    std::snprintf(msg, sizeof msg, "InvalidArgument: %s: a size larger than any buffer can hold (%s)", fn, e.what());
  } catch (const std::exception& e) {
    std::snprintf(msg, sizeof msg, "IOError: %s: internal error: %s", fn, e.what());
  } catch (...) {
    std::snprintf(msg, sizeof msg, "IOError: %s: internal error: an unknown exception", fn);
  }
  try {
    last_error = msg;
  } catch (...) {
    last_error.clear();
  }
  return code;
}

int Invalid(const char* msg) {
  last_error = std::string("InvalidArgument: ") + msg;
  return CAIRN_INVALID_ARGUMENT;
}

int NullStore(const char* fn) {
  return Guarded(fn, [&]() -> int {
    return Invalid((std::string(fn) + ": NULL store handle (not opened, or the store was closed)").c_str());
  });
}

int CheckRank(const cairn_store_t* s, int rank, const char* fn) {
  const cairn::Store& st = *s->store;
  uint64_t rev = st.revision();
  int writers = rev ? st.writer_ranks() : 0;
  bool own = rank == st.rank() && !s->read_only;
  if (rank == CAIRN_RANK_OWN || rank == CAIRN_RANK_SHARED || own || (rank >= 0 && rank < writers))
    return CAIRN_OK;
  std::string m = std::string(fn) + ": argument rank = " + std::to_string(rank) + " names no namespace";
  if (rev == 0)
    m += ": the store has no revision yet; give CAIRN_RANK_OWN (-1)";
  else
    m += " of revision " + std::to_string(rev) + ", which " + std::to_string(writers) +
         (writers == 1 ? " rank" : " ranks") + " wrote; give CAIRN_RANK_OWN (-1), a rank 0.." +
         std::to_string(writers - 1) + " (cairn_writer_ranks() - 1)";
  m += " or CAIRN_RANK_SHARED (-2)";
  return Invalid(m.c_str());
}

cairn::Options ToOptions(const cairn_options_t* o) {
  cairn::Options opt;
  if (!o) return opt;
  opt.create_if_missing = o->create_if_missing != 0;
  opt.error_if_exists = o->error_if_exists != 0;
  opt.read_only = o->read_only != 0;
  opt.revision = o->revision;
  opt.extent_size = o->extent_size;
  opt.chunk_size = o->chunk_size;
  opt.write_buffer_size = o->write_buffer_size;
  opt.inline_value_limit = o->inline_value_limit;
  opt.compact_index_limit = o->compact_index_limit;
  opt.subfiles = o->subfiles;
  opt.sync = o->sync != 0;
  opt.staging_bytes = o->staging_bytes;
  opt.keep_revisions = o->keep_revisions;
  opt.collective_timeout_s = o->collective_timeout_s;
  opt.writeback_bytes = o->writeback_bytes;
  opt.require_writer_lock = o->require_writer_lock != 0;
  return opt;
}

bool ToTags(const cairn_tag_t* tags, size_t n, cairn::TagList* out, std::string* why) {
  out->clear();
  out->reserve(n);
  auto refuse = [&](std::string w) {
    if (why) *why = std::move(w);
    return false;
  };
  for (size_t i = 0; i < n; i++) {
    const cairn_tag_t& t = tags[i];
    if (!t.name) return refuse("tag " + std::to_string(i) + " has a NULL name");
    const std::string name = "tag '" + std::string(t.name) + "'";
    if (!t.data && t.len) return refuse(name + ": data is NULL with len " + std::to_string(t.len));
    // A number is read from the member its type names (i, u or d); one
    // given only in another member was stored as 0 without a word. The
    // members a read gives back (cairn_get_tag: i and u the same bits, d
    // the value) are accepted as they are.
    int base = t.type & ~CAIRN_TAG_ARRAY;
    if (!(t.type & CAIRN_TAG_ARRAY)) {
      auto member = [&](const char* reads, const char* holds, const std::string& v) {
        return refuse(name + " is " + cairn_dtype_name(base) + ", read from member " + reads +
                      " (0), but member " + holds + " holds " + v + ": set " + reads);
      };
      if (base >= CAIRN_TAG_INT8 && base <= CAIRN_TAG_INT64 && t.i == 0 && t.u != 0)
        return member("i", "u", std::to_string(t.u));
      if (base >= CAIRN_TAG_UINT8 && base <= CAIRN_TAG_UINT64 && t.u == 0 && t.i != 0)
        return member("u", "i", std::to_string(t.i));
      if ((base == CAIRN_TAG_FLOAT32 || base == CAIRN_TAG_FLOAT64) && t.d == 0 && (t.i != 0 || t.u != 0))
        return member("d", t.i != 0 ? "i" : "u", t.i != 0 ? std::to_string(t.i) : std::to_string(t.u));
    }
    cairn::Tag tag;
    tag.name = t.name;
    int type = t.type;
    auto bytes = [&]() {
      return std::string_view(static_cast<const char*>(t.data), t.data ? t.len : 0);
    };
    if (type & CAIRN_TAG_ARRAY) {
      tag.value = cairn::TagValue(uint8_t(type), 0, std::string(bytes()));
    } else if (type >= CAIRN_TAG_INT8 && type <= CAIRN_TAG_INT64) {
      tag.value = cairn::TagValue::Int(t.i, cairn::TagType(type));
    } else if (type >= CAIRN_TAG_UINT8 && type <= CAIRN_TAG_UINT64) {
      tag.value = cairn::TagValue::UInt(t.u, cairn::TagType(type));
    } else if (type == CAIRN_TAG_FLOAT32) {
      tag.value = cairn::TagValue::Float32(float(t.d));
    } else if (type == CAIRN_TAG_FLOAT64) {
      tag.value = cairn::TagValue::Float64(t.d);
    } else if (type == CAIRN_TAG_STRING) {
      tag.value = cairn::TagValue::String(t.data ? bytes() : std::string_view());
    } else if (type == CAIRN_TAG_BYTES) {
      tag.value = cairn::TagValue::Bytes(bytes());
    } else {
      return refuse(name + " has unknown type " + std::to_string(t.type));
    }
    out->push_back(std::move(tag));
  }
  return true;
}

}  // namespace cairn_capi

using namespace cairn_capi;

namespace {
// Every member's default (the library's own struct).
void InitAllOptions(cairn_options_t* o) { cairn_options_init_sized(o, sizeof *o); }
}  // namespace

extern "C" {

void cairn_options_init_sized(cairn_options_t* o, size_t size) {
  // Nothing written for a size no cairn.h has (kMaxStructSize): the struct
  // is then refused by cairn_open (struct_size as the caller left it).
  if (!o || size < sizeof(o->struct_size) || size > kMaxStructSize) return;
  cairn::Options d;
  cairn_options_t full;
  std::memset(static_cast<void*>(&full), 0, sizeof full);
  full.create_if_missing = d.create_if_missing;
  full.error_if_exists = d.error_if_exists;
  full.read_only = d.read_only;
  full.revision = d.revision;
  full.extent_size = d.extent_size;
  full.chunk_size = d.chunk_size;
  full.write_buffer_size = d.write_buffer_size;
  full.inline_value_limit = d.inline_value_limit;
  full.compact_index_limit = d.compact_index_limit;
  full.subfiles = d.subfiles;
  full.sync = d.sync;
  full.staging_bytes = d.staging_bytes;
  full.keep_revisions = d.keep_revisions;
  full.collective_timeout_s = d.collective_timeout_s;
  full.writeback_bytes = d.writeback_bytes;
  full.require_writer_lock = d.require_writer_lock;
  // A struct from a newer cairn.h (size larger than ours): its unknown
  // members zeroed, and struct_size says so, which cairn_open refuses.
  std::memset(static_cast<void*>(o), 0, size);
  std::memcpy(static_cast<void*>(o), &full, std::min(size, sizeof full));
  o->struct_size = size;
}

// The old entry point (a struct without require_writer_lock: see cairn.h).
// The parentheses keep the header's macro of the same name out.
void(cairn_options_init)(cairn_options_t* o) {
  cairn_options_init_sized(o, offsetof(cairn_options_t, require_writer_lock));
}

const char* cairn_last_error(void) { return last_error.c_str(); }

int cairn_open(const char* path, MPI_Comm comm, const cairn_options_t* opts, cairn_store_t** store) {
  return Guarded("cairn_open", [&]() -> int {
    if (store) *store = nullptr;
    int rc = !path || !store ? Invalid("cairn_open: path and store must not be NULL") : CAIRN_OK;
    cairn_options_t known;
    if (rc == CAIRN_OK && opts) {
      // The size of the cairn.h versions before require_writer_lock was appended.
      rc = KnownPart(opts, &known, InitAllOptions, "cairn_open", "cairn_options_init",
                     {offsetof(cairn_options_t, require_writer_lock)});
      opts = &known;
    }
    if (rc != CAIRN_OK) {
      // The open is collective, and the other ranks' arguments may be fine:
      // this rank still takes part, carrying its refusal, so every rank fails
      // with this rank's cause ("rank R: ...") and none is left waiting.
      const std::string why = last_error;
      std::string cause = why;  // the code is the status's, not repeated in its message
      if (cause.starts_with("InvalidArgument: ")) cause.erase(0, std::strlen("InvalidArgument: "));
      cairn_open_refused(path, comm, cause.c_str(), 0);  // (the options are what was refused)
      last_error = why;
      return rc;
    }
    auto h = std::make_unique<cairn_store>();
    h->read_only = opts && opts->read_only;
    rc = Code(cairn::Store::Open(ToOptions(opts), path, comm, &h->store));
    if (rc == CAIRN_OK) *store = h.release();
    return rc;
  });
}

int cairn_open_f(const char* path, MPI_Fint comm, const cairn_options_t* opts, cairn_store_t** store) {
  return Guarded("cairn_open_f", [&]() -> int {
    return cairn_open(path, MPI_Comm_f2c(comm), opts, store);
  });
}

int cairn_open_refused(const char* path, MPI_Comm comm, const char* why, double collective_timeout_s) {
  return Guarded("cairn_open_refused", [&]() -> int {
    const std::string cause = why && *why ? why : "an open refused without a cause";
    cairn::Store::RefuseOpen(path ? path : "", comm, cairn::Status::InvalidArgument(cause), collective_timeout_s);
    return Invalid(cause.c_str());
  });
}

int cairn_open_refused_f(const char* path, MPI_Fint comm, const char* why, double collective_timeout_s) {
  return Guarded("cairn_open_refused_f", [&]() -> int {
    return cairn_open_refused(path, MPI_Comm_f2c(comm), why, collective_timeout_s);
  });
}

int cairn_open_local(const char* path, const cairn_options_t* opts, cairn_store_t** store) {
  return Guarded("cairn_open_local", [&]() -> int {
    if (!path || !store) return Invalid("cairn_open_local: path and store must not be NULL");
    *store = nullptr;
    cairn_options_t known;
    if (opts) {
      int rc = KnownPart(opts, &known, InitAllOptions, "cairn_open_local", "cairn_options_init",
                         {offsetof(cairn_options_t, require_writer_lock)});
      if (rc != CAIRN_OK) return rc;
      opts = &known;
    }
    auto h = std::make_unique<cairn_store>();
    h->read_only = opts && opts->read_only;
    int rc = Code(cairn::Store::Open(ToOptions(opts), path, &h->store));
    if (rc == CAIRN_OK) *store = h.release();
    return rc;
  });
}

int cairn_close(cairn_store_t* store) {
  return Guarded("cairn_close", [&]() -> int {
    if (!store) return CAIRN_OK;
    int rc = Code(store->store->Close());
    delete store;
    return rc;
  });
}

int cairn_rank(const cairn_store_t* s) { return s ? s->store->rank() : -1; }
int cairn_size(const cairn_store_t* s) { return s ? s->store->size() : -1; }
uint64_t cairn_revision(const cairn_store_t* s) { return s ? s->store->revision() : 0; }

int cairn_put(cairn_store_t* s, const char* key, const void* value, size_t len,
              const cairn_tag_t* tags, size_t ntags) {
  return GuardedStore("cairn_put", s, [&]() -> int {
    if (!key || (!value && len)) return Invalid("cairn_put: NULL argument");
    cairn::TagList tl;
    if (ntags && !tags) return Invalid("cairn_put: NULL tags with ntags > 0");
    std::string why;
    if (ntags && !ToTags(tags, ntags, &tl, &why))
      return Invalid((std::string("cairn_put: bad tag: ") + why).c_str());
    return Code(s->store->Put(key, std::string_view(static_cast<const char*>(value), len), tl));
  });
}

int cairn_put_zero_copy(cairn_store_t* s, const char* key, const void* value, size_t len,
                        const cairn_tag_t* tags, size_t ntags) {
  return GuardedStore("cairn_put_zero_copy", s, [&]() -> int {
    if (!key || (!value && len)) return Invalid("cairn_put_zero_copy: NULL argument");
    cairn::TagList tl;
    if (ntags && !tags) return Invalid("cairn_put_zero_copy: NULL tags with ntags > 0");
    std::string why;
    if (ntags && !ToTags(tags, ntags, &tl, &why))
      return Invalid((std::string("cairn_put_zero_copy: bad tag: ") + why).c_str());
    return Code(s->store->PutZeroCopy(key, std::string_view(static_cast<const char*>(value), len), tl));
  });
}

int cairn_delete(cairn_store_t* s, const char* key) {
  return GuardedStore("cairn_delete", s, [&]() -> int {
    if (!key) return Invalid("cairn_delete: NULL argument");
    return Code(s->store->Delete(key));
  });
}

int cairn_get_size(cairn_store_t* s, const char* key, int rank, uint64_t* size) {
  return GuardedStore("cairn_get_size", s, [&]() -> int {
    if (!key || !size) return Invalid("cairn_get_size: NULL argument");
    if (int rc = CheckRank(s, rank, "cairn_get_size"); rc != CAIRN_OK) return rc;
    cairn::ReadOptions ro;
    ro.rank = rank;
    return Code(s->store->GetSize(key, size, ro));
  });
}

int cairn_get_range(cairn_store_t* s, const char* key, int rank, uint64_t offset, void* buf,
                    uint64_t len) {
  return GuardedStore("cairn_get_range", s, [&]() -> int {
    if (!key || (!buf && len)) return Invalid("cairn_get_range: NULL argument");
    if (int rc = CheckRank(s, rank, "cairn_get_range"); rc != CAIRN_OK) return rc;
    cairn::ReadOptions ro;
    ro.rank = rank;
    return Code(s->store->GetRange(key, offset, buf, len, ro));
  });
}

int cairn_get(cairn_store_t* s, const char* key, int rank, void* buf, size_t cap, uint64_t* size) {
  return GuardedStore("cairn_get", s, [&]() -> int {
    if (!key || !size) return Invalid("cairn_get: NULL argument");
    if (int rc = CheckRank(s, rank, "cairn_get"); rc != CAIRN_OK) return rc;
    cairn::ReadOptions ro;
    ro.rank = rank;
    int rc = Code(s->store->GetSize(key, size, ro));
    if (rc != CAIRN_OK) return rc;
    if (*size > cap) {
      last_error = "InvalidArgument: buffer of " + std::to_string(cap) + " bytes is too small for '" +
                   key + "' (" + std::to_string(*size) + " bytes)";
      return CAIRN_INVALID_ARGUMENT;
    }
    if (!buf && *size) return Invalid("cairn_get: NULL buffer");
    return Code(s->store->GetRange(key, 0, buf, *size, ro));
  });
}

void cairn_read_options_init(cairn_read_options_t* o) {
  if (!o) return;
  cairn::ReadOptions d;
  o->struct_size = sizeof(cairn_read_options_t);
  o->gap_limit = d.gap_limit;
  o->max_block = d.max_block;
  o->max_read_amplification = d.max_read_amplification;
}

int cairn_multi_get(cairn_store_t* s, int rank, cairn_read_t* reads, size_t n) {
  return GuardedStore("cairn_multi_get", s, [&]() -> int {
    return cairn_multi_get_opts(s, rank, reads, n, nullptr);
  });
}

int cairn_multi_get_opts(cairn_store_t* s, int rank, cairn_read_t* reads, size_t n,
                         const cairn_read_options_t* opts) {
  return GuardedStore("cairn_multi_get_opts", s, [&]() -> int {
    if ((!reads && n)) return Invalid("cairn_multi_get: NULL argument");
    cairn_read_options_t known;
    cairn_read_options_init(&known);
    int refused = CAIRN_OK;  // then every read is marked refused
    if (opts)
      refused = KnownPart(opts, &known, cairn_read_options_init, "cairn_multi_get_opts", "cairn_read_options_init");
    for (size_t i = 0; i < n && refused == CAIRN_OK; i++)
      if (!reads[i].key || (!reads[i].data && reads[i].capacity))
        refused = Invalid(("cairn_multi_get: read " + std::to_string(i) + " has a NULL key or buffer").c_str());
    if (refused == CAIRN_OK) refused = CheckRank(s, rank, "cairn_multi_get");
    if (refused != CAIRN_OK) {
      for (size_t j = 0; j < n; j++) {
        reads[j].size = 0;
        reads[j].code = CAIRN_INVALID_ARGUMENT;
      }
      return refused;
    }
    std::vector<std::string> keys(n);
    std::vector<cairn::Store::ValueBuffer> bufs(n);
    for (size_t i = 0; i < n; i++) {
      keys[i] = reads[i].key;
      bufs[i].data = reads[i].data;
      bufs[i].capacity = reads[i].capacity;
    }
    std::vector<cairn::Status> sts;
    cairn::ReadOptions ro;
    ro.rank = rank;
    ro.gap_limit = known.gap_limit;
    ro.max_block = known.max_block;
    ro.max_read_amplification = known.max_read_amplification;
    cairn::Status first = s->store->MultiGet(keys, &bufs, &sts, ro);
    for (size_t i = 0; i < n; i++) {
      reads[i].size = bufs[i].size;
      // A status per key; a call that failed before reading (none given)
      // reports its own code for every key.
      reads[i].code = -int(i < sts.size() ? sts[i].code() : first.code());
    }
    return Code(first);
  });
}

int cairn_put_shared(cairn_store_t* s, const char* key, const void* value, size_t len) {
  return GuardedStore("cairn_put_shared", s, [&]() -> int {
    if (!key || (!value && len)) return Invalid("cairn_put_shared: NULL argument");
    return Code(s->store->PutShared(key, std::string_view(static_cast<const char*>(value), len)));
  });
}

int cairn_put_shared_tags(cairn_store_t* s, const char* key, const void* value, size_t len,
                          const cairn_tag_t* tags, size_t ntags) {
  return GuardedStore("cairn_put_shared_tags", s, [&]() -> int {
    if (!key || (!value && len)) return Invalid("cairn_put_shared_tags: NULL argument");
    cairn::TagList tl;
    if (ntags && !tags) return Invalid("cairn_put_shared_tags: NULL tags with ntags > 0");
    std::string why;
    if (ntags && !ToTags(tags, ntags, &tl, &why))
      return Invalid((std::string("cairn_put_shared_tags: bad tag: ") + why).c_str());
    return Code(s->store->PutShared(key, std::string_view(static_cast<const char*>(value), len), tl));
  });
}

int cairn_get_shared(cairn_store_t* s, const char* key, void* buf, size_t cap, uint64_t* size) {
  return GuardedStore("cairn_get_shared", s, [&]() -> int {
    // Collective: take part even with bad arguments, so no rank is left
    // waiting; then report them.
    std::string v;
    int rc = Code(s->store->GetShared(key ? key : "", &v));
    if (!key || !size) return Invalid("cairn_get_shared: NULL argument");
    if (rc != CAIRN_OK) return rc;
    *size = v.size();
    if (!buf && !v.empty()) return Invalid("cairn_get_shared: NULL buffer");
    if (v.size() > cap) {
      last_error = "InvalidArgument: buffer too small for shared '" + std::string(key) + "'";
      return CAIRN_INVALID_ARGUMENT;
    }
    if (!v.empty()) std::memcpy(buf, v.data(), v.size());
    return CAIRN_OK;
  });
}

int cairn_commit(cairn_store_t* s, uint64_t* revision) {
  return GuardedStore("cairn_commit", s, [&]() -> int {
    return Code(s->store->Commit(revision));
  });
}

int cairn_commit_async(cairn_store_t* s, cairn_async_t** handle) {
  return GuardedStore("cairn_commit_async", s, [&]() -> int {
    if (!handle) {
      // Collective: the other ranks are committing; this rank takes part (its
      // changes are in the revision), waits for the commit to end, since no
      // handle can report it, and then reports the NULL handle.
      cairn::AsyncCommit h;
      cairn::Status st = s->store->CommitAsync(&h);
      if (st.ok()) st = h.Wait();
      if (!st.ok()) return Code(st);
      return Invalid(("cairn_commit_async: NULL handle (this rank took part in the commit of revision " +
                      std::to_string(h.revision()) + " and waited for it)").c_str());
    }
    *handle = nullptr;
    auto h = std::make_unique<cairn_async>();
    int rc = Code(s->store->CommitAsync(&h->handle));
    if (rc == CAIRN_OK) *handle = h.release();
    return rc;
  });
}

int cairn_async_test(cairn_async_t* h, int* done) {
  return Guarded("cairn_async_test", [&]() -> int {
    if (!h || !done) return Invalid("cairn_async_test: NULL argument");
    *done = h->handle.Test() ? 1 : 0;
    return *done ? Code(h->handle.Wait()) : CAIRN_OK;  // Wait returns at once when done
  });
}

int cairn_async_wait(cairn_async_t* h, uint64_t* revision) {
  return Guarded("cairn_async_wait", [&]() -> int {
    if (!h) return Invalid("cairn_async_wait: NULL handle");
    return Code(h->handle.Wait(revision));
  });
}

void cairn_async_free(cairn_async_t* h) { delete h; }

uint64_t cairn_async_revision(const cairn_async_t* h) { return h ? h->handle.revision() : 0; }

int cairn_async_committed(const cairn_async_t* h) { return h && h->handle.committed() ? 1 : 0; }

int cairn_stats(const cairn_store_t* s, cairn_io_stats_t* stats, size_t stats_size) {
  return GuardedStore("cairn_stats", s, [&]() -> int {
    if (!stats) return Invalid("cairn_stats: NULL argument");
    cairn::IoStats st = s->store->stats();
    cairn_io_stats_t o;
    o.read_requests = st.read_requests;
    o.read_bytes = st.read_bytes;
    o.write_requests = st.write_requests;
    o.write_bytes = st.write_bytes;
    o.opens = st.opens;
    o.creates = st.creates;
    o.mkdirs = st.mkdirs;
    o.stats = st.stats;
    o.fsyncs = st.fsyncs;
    o.renames = st.renames;
    o.unlinks = st.unlinks;
    o.truncates = st.truncates;
    o.staging_stalls = st.staging_stalls;
    o.staging_stall_ns = st.staging_stall_ns;
    o.index_bytes_gathered = st.index_bytes_gathered;
    o.index_tables_reused = st.index_tables_reused;
    o.index_tables_streamed = st.index_tables_streamed;
    o.writeback_requests = st.writeback_requests;
    o.direct_read_bytes = st.direct_read_bytes;
    return CopyOut(o, stats, stats_size, "cairn_stats", "cairn_io_stats_t");
  });
}

int cairn_flush(cairn_store_t* s) {
  return GuardedStore("cairn_flush", s, [&]() -> int {
    return Code(s->store->Flush());
  });
}

int cairn_stream_open_write(cairn_store_t* s, const char* key, const cairn_tag_t* tags, size_t ntags,
                            cairn_stream_t** stream) {
  return GuardedStore("cairn_stream_open_write", s, [&]() -> int {
    if (!key || !stream) return Invalid("cairn_stream_open_write: NULL argument");
    *stream = nullptr;
    cairn::TagList tl;
    if (ntags && !tags) return Invalid("cairn_stream_open_write: NULL tags with ntags > 0");
    std::string why;
    if (ntags && !ToTags(tags, ntags, &tl, &why))
      return Invalid((std::string("cairn_stream_open_write: bad tag: ") + why).c_str());
    auto st = std::make_unique<cairn_stream>();
    int rc = Code(s->store->OpenWriteStream(key, tl, &st->w));
    if (rc == CAIRN_OK) *stream = st.release();
    return rc;
  });
}

int cairn_stream_open_read(cairn_store_t* s, const char* key, int rank, cairn_stream_t** stream) {
  return GuardedStore("cairn_stream_open_read", s, [&]() -> int {
    if (!key || !stream) return Invalid("cairn_stream_open_read: NULL argument");
    *stream = nullptr;
    if (int rc = CheckRank(s, rank, "cairn_stream_open_read"); rc != CAIRN_OK) return rc;
    cairn::ReadOptions ro;
    ro.rank = rank;
    auto st = std::make_unique<cairn_stream>();
    int rc = Code(s->store->OpenReadStream(key, &st->r, ro));
    if (rc == CAIRN_OK) *stream = st.release();
    return rc;
  });
}

int cairn_stream_write(cairn_stream_t* st, const void* data, size_t len) {
  return Guarded("cairn_stream_write", [&]() -> int {
    if (!st || (!data && len)) return Invalid("cairn_stream_write: NULL argument");
    if (!st->w) return Invalid("cairn_stream_write: stream is open for reading");
    return Code(st->w->Write(data, len));
  });
}

int cairn_stream_read(cairn_stream_t* st, void* buf, size_t len, size_t* got) {
  return Guarded("cairn_stream_read", [&]() -> int {
    if (!st || (!buf && len) || !got) return Invalid("cairn_stream_read: NULL argument");
    if (!st->r) return Invalid("cairn_stream_read: stream is open for writing");
    return Code(st->r->Read(buf, len, got));
  });
}

int cairn_stream_read_at(cairn_stream_t* st, uint64_t offset, void* buf, size_t len) {
  return Guarded("cairn_stream_read_at", [&]() -> int {
    if (!st || (!buf && len)) return Invalid("cairn_stream_read_at: NULL argument");
    if (!st->r) return Invalid("cairn_stream_read_at: stream is open for writing");
    return Code(st->r->ReadAt(offset, buf, len));
  });
}

int cairn_stream_seek(cairn_stream_t* st, int64_t offset, int whence) {
  return Guarded("cairn_stream_seek", [&]() -> int {
    if (!st) return Invalid("cairn_stream_seek: NULL stream");
    if (whence != CAIRN_SEEK_SET && whence != CAIRN_SEEK_CUR && whence != CAIRN_SEEK_END)
      return Invalid("cairn_stream_seek: whence must be CAIRN_SEEK_SET, _CUR or _END");
    uint64_t base = whence == CAIRN_SEEK_SET ? 0 : whence == CAIRN_SEEK_CUR ? (st->w ? st->w->Tell() : st->r->Tell())
                                                                             : (st->w ? st->w->Size() : st->r->Size());
    // Unsigned arithmetic: base may pass INT64_MAX, and base + offset must
    // not wrap either way.
    uint64_t target;
    if (offset < 0) {
      uint64_t back = uint64_t(-(offset + 1)) + 1;
      if (back > base)
        return Invalid(("cairn_stream_seek: position " + std::to_string(base) + " - " + std::to_string(back) +
                        " is before the start of the stream").c_str());
      target = base - back;
    } else {
      if (uint64_t(offset) > UINT64_MAX - base)
        return Invalid(("cairn_stream_seek: position " + std::to_string(base) + " + " + std::to_string(offset) +
                        " is past 2^64 - 1").c_str());
      target = base + uint64_t(offset);
    }
    return Code(st->w ? st->w->Seek(target) : st->r->Seek(target));
  });
}

int cairn_stream_tell(const cairn_stream_t* st, uint64_t* pos) {
  return Guarded("cairn_stream_tell", [&]() -> int {
    if (!st || !pos) return Invalid("cairn_stream_tell: NULL argument");
    *pos = st->w ? st->w->Tell() : st->r->Tell();
    return CAIRN_OK;
  });
}

int cairn_stream_size(const cairn_stream_t* st, uint64_t* size) {
  return Guarded("cairn_stream_size", [&]() -> int {
    if (!st || !size) return Invalid("cairn_stream_size: NULL argument");
    *size = st->w ? st->w->Size() : st->r->Size();
    return CAIRN_OK;
  });
}

int cairn_stream_flush(cairn_stream_t* st) {
  return Guarded("cairn_stream_flush", [&]() -> int {
    if (!st) return Invalid("cairn_stream_flush: NULL stream");
    return st->w ? Code(st->w->Flush()) : CAIRN_OK;
  });
}

int cairn_stream_close(cairn_stream_t* st) {
  return Guarded("cairn_stream_close", [&]() -> int {
    if (!st) return Invalid("cairn_stream_close: NULL stream");
    int rc = st->w ? Code(st->w->Close()) : CAIRN_OK;
    delete st;
    return rc;
  });
}

int cairn_pin(cairn_store_t* s, uint64_t rev) {
  return GuardedStore("cairn_pin", s, [&]() -> int {
    return Code(s->store->Pin(rev));
  });
}

int cairn_unpin(cairn_store_t* s, uint64_t rev) {
  return GuardedStore("cairn_unpin", s, [&]() -> int {
    return Code(s->store->Unpin(rev));
  });
}

int cairn_drop(cairn_store_t* s, uint64_t rev) {
  return GuardedStore("cairn_drop", s, [&]() -> int {
    return Code(s->store->Drop(rev));
  });
}

}  // extern "C"
