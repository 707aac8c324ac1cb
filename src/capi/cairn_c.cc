// The C API: thin wrappers over cairn::Store that turn Status into a code
// and a thread-local message.
#include "cairn/cairn.h"

#include <cstring>
#include <memory>
#include <string>

#include "cairn/store.h"

struct cairn_store {
  std::unique_ptr<cairn::Store> store;
};

namespace {

thread_local std::string last_error;

int Code(const cairn::Status& s) {
  if (s.ok()) return CAIRN_OK;
  last_error = s.ToString();
  return -int(s.code());
}

int Invalid(const char* msg) {
  last_error = std::string("InvalidArgument: ") + msg;
  return CAIRN_INVALID_ARGUMENT;
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
  opt.keep_revisions = o->keep_revisions;
  return opt;
}

bool ToTags(const cairn_tag_t* tags, size_t n, cairn::TagList* out) {
  out->clear();
  out->reserve(n);
  for (size_t i = 0; i < n; i++) {
    const cairn_tag_t& t = tags[i];
    if (!t.name) return false;
    if (!t.data && t.len) return false;  // bytes promised, none given
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
      return false;
    }
    out->push_back(std::move(tag));
  }
  return true;
}

}  // namespace

extern "C" {

void cairn_options_init(cairn_options_t* o) {
  cairn::Options d;
  o->create_if_missing = d.create_if_missing;
  o->error_if_exists = d.error_if_exists;
  o->read_only = d.read_only;
  o->revision = d.revision;
  o->extent_size = d.extent_size;
  o->chunk_size = d.chunk_size;
  o->write_buffer_size = d.write_buffer_size;
  o->inline_value_limit = d.inline_value_limit;
  o->compact_index_limit = d.compact_index_limit;
  o->subfiles = d.subfiles;
  o->sync = d.sync;
  o->keep_revisions = d.keep_revisions;
}

const char* cairn_last_error(void) { return last_error.c_str(); }

int cairn_open(const char* path, MPI_Comm comm, const cairn_options_t* opts, cairn_store_t** store) {
  if (!path || !store) return Invalid("cairn_open: path and store must not be NULL");
  *store = nullptr;
  auto h = std::make_unique<cairn_store>();
  int rc = Code(cairn::Store::Open(ToOptions(opts), path, comm, &h->store));
  if (rc == CAIRN_OK) *store = h.release();
  return rc;
}

int cairn_open_f(const char* path, MPI_Fint comm, const cairn_options_t* opts, cairn_store_t** store) {
  return cairn_open(path, MPI_Comm_f2c(comm), opts, store);
}

int cairn_close(cairn_store_t* store) {
  if (!store) return CAIRN_OK;
  int rc = Code(store->store->Close());
  delete store;
  return rc;
}

int cairn_rank(const cairn_store_t* s) { return s ? s->store->rank() : -1; }
int cairn_size(const cairn_store_t* s) { return s ? s->store->size() : -1; }
uint64_t cairn_revision(const cairn_store_t* s) { return s ? s->store->revision() : 0; }

int cairn_put(cairn_store_t* s, const char* key, const void* value, size_t len,
              const cairn_tag_t* tags, size_t ntags) {
  if (!s || !key || (!value && len)) return Invalid("cairn_put: NULL argument");
  cairn::TagList tl;
  if (ntags && (!tags || !ToTags(tags, ntags, &tl))) return Invalid("cairn_put: bad tag (NULL name or unknown type)");
  return Code(s->store->Put(key, std::string_view(static_cast<const char*>(value), len), tl));
}

int cairn_delete(cairn_store_t* s, const char* key) {
  if (!s || !key) return Invalid("cairn_delete: NULL argument");
  return Code(s->store->Delete(key));
}

int cairn_get_size(cairn_store_t* s, const char* key, int rank, uint64_t* size) {
  if (!s || !key || !size) return Invalid("cairn_get_size: NULL argument");
  cairn::ReadOptions ro;
  ro.rank = rank;
  return Code(s->store->GetSize(key, size, ro));
}

int cairn_get_range(cairn_store_t* s, const char* key, int rank, uint64_t offset, void* buf,
                    uint64_t len) {
  if (!s || !key || (!buf && len)) return Invalid("cairn_get_range: NULL argument");
  cairn::ReadOptions ro;
  ro.rank = rank;
  return Code(s->store->GetRange(key, offset, buf, len, ro));
}

int cairn_get(cairn_store_t* s, const char* key, int rank, void* buf, size_t cap, uint64_t* size) {
  if (!s || !key || !size) return Invalid("cairn_get: NULL argument");
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
}

int cairn_put_shared(cairn_store_t* s, const char* key, const void* value, size_t len) {
  if (!s || !key || (!value && len)) return Invalid("cairn_put_shared: NULL argument");
  return Code(s->store->PutShared(key, std::string_view(static_cast<const char*>(value), len)));
}

int cairn_get_shared(cairn_store_t* s, const char* key, void* buf, size_t cap, uint64_t* size) {
  if (!s) return Invalid("cairn_get_shared: NULL store");
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
}

int cairn_commit(cairn_store_t* s, uint64_t* revision) {
  if (!s) return Invalid("cairn_commit: NULL store");
  return Code(s->store->Commit(revision));
}

int cairn_pin(cairn_store_t* s, uint64_t rev) {
  if (!s) return Invalid("cairn_pin: NULL store");
  return Code(s->store->Pin(rev));
}

int cairn_unpin(cairn_store_t* s, uint64_t rev) {
  if (!s) return Invalid("cairn_unpin: NULL store");
  return Code(s->store->Unpin(rev));
}

int cairn_drop(cairn_store_t* s, uint64_t rev) {
  if (!s) return Invalid("cairn_drop: NULL store");
  return Code(s->store->Drop(rev));
}

}  // extern "C"
