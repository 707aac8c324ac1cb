// The C API's reads of metadata: tags, key listings, queries, revisions,
// the version and the code names. Results are packed into one malloc'ed
// block (the array first, then the strings and payloads it points to), so
// that the caller frees them with one cairn_free.
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "cairn/cairn.h"
#include "cairn/version.h"
#include "capi/capi_internal.h"
#include "store/inspect.h"

using namespace cairn_capi;

namespace cairn_capi {

int OutOfMemory(const char* what) {
  return Code(cairn::Status::IOError(std::string(what) + ": out of memory"));
}

void ReserveTag(Block* b, const cairn::Tag& t) {
  b->Reserve(t.name.size());
  b->Reserve(t.value.bytes().size());
}

void FillTag(Block* b, const cairn::Tag& t, cairn_tag_t* out) {
  const cairn::TagValue& v = t.value;
  out->name = b->Add(t.name.data(), t.name.size());
  out->type = v.type_code();
  out->i = 0;
  out->u = 0;
  out->d = 0;
  if (!v.is_array() && (v.is_signed() || v.is_unsigned())) {
    out->i = v.is_signed() ? v.as_int() : int64_t(v.as_uint());
    out->u = v.is_signed() ? uint64_t(v.as_int()) : v.as_uint();
    out->d = v.as_double();
  } else if (!v.is_array() && v.is_float()) {
    out->d = v.as_double();
  }
  const std::string& bytes = v.bytes();
  out->data = b->Add(bytes.data(), bytes.size());
  out->len = bytes.size();
}

}  // namespace cairn_capi

namespace {

cairn::ReadOptions AtRank(int rank) {
  cairn::ReadOptions ro;
  ro.rank = rank;
  return ro;
}

// A C tag (name ignored) as a TagValue, for the query conditions.
bool ToValue(const cairn_tag_t& t, const char* member, cairn::TagValue* v, std::string* why) {
  cairn_tag_t named = t;
  named.name = member;  // for the message
  cairn::TagList one;
  if (!ToTags(&named, 1, &one, why)) return false;
  *v = one[0].value;
  return true;
}

}  // namespace

namespace cairn_capi {

namespace {
bool IsText(const cairn::TagValue& v) {
  return !v.is_array() && (v.type() == cairn::TagType::kString || v.type() == cairn::TagType::kBytes);
}
}  // namespace

bool ToQueries(const cairn_query_t* conds, size_t n, std::vector<cairn::TagQuery>* out,
               std::string* why) {
  out->clear();
  for (size_t i = 0; i < n; i++) {
    const cairn_query_t& c = conds[i];
    if (!c.name) {
      *why = "condition " + std::to_string(i) + " has a NULL name";
      return false;
    }
    cairn::TagValue lo, hi;
    std::string bad;  // what ToValue refused
    auto pattern = [&]() {
      return std::string_view(static_cast<const char*>(c.value.data), c.value.data ? c.value.len : 0);
    };
    switch (c.op) {
      case CAIRN_QUERY_EXISTS:
        out->push_back(cairn::TagQuery::Exists(c.name));
        break;
      case CAIRN_QUERY_EQUAL:
        if (!ToValue(c.value, "value", &lo, &bad)) break;
        out->push_back(cairn::TagQuery::Equal(c.name, lo));
        break;
      case CAIRN_QUERY_RANGE:
        if (!ToValue(c.value, "value", &lo, &bad) || !ToValue(c.upper, "upper", &hi, &bad)) break;
        if (!(lo.is_number() && hi.is_number()) && !(IsText(lo) && IsText(hi))) {
          bad = "a range's value and upper must be both numbers or both strings/bytes (value " + lo.ToString() +
                ", upper " + hi.ToString() + ")";
          break;
        }
        out->push_back(cairn::TagQuery::Range(c.name, lo, hi));
        break;
      case CAIRN_QUERY_PREFIX:
        if (!c.value.data && c.value.len) break;
        if (c.value.type != 0 && c.value.type != CAIRN_TAG_STRING && c.value.type != CAIRN_TAG_BYTES) {
          bad = "a prefix takes a string or bytes value (type CAIRN_TAG_STRING or CAIRN_TAG_BYTES), not type " +
                std::to_string(c.value.type);
          break;
        }
        out->push_back(cairn::TagQuery::Prefix(c.name, pattern()));
        break;
      case CAIRN_QUERY_WILDCARD:
        if (!c.value.data && c.value.len) break;
        if (c.value.type != 0 && c.value.type != CAIRN_TAG_STRING && c.value.type != CAIRN_TAG_BYTES) {
          bad = "a wildcard takes a string or bytes value (type CAIRN_TAG_STRING or CAIRN_TAG_BYTES), not type " +
                std::to_string(c.value.type);
          break;
        }
        out->push_back(cairn::TagQuery::Wildcard(c.name, pattern()));
        break;
      default:
        *why = "condition " + std::to_string(i) + " on '" + c.name + "' has unknown op " +
               std::to_string(c.op);
        return false;
    }
    if (out->size() != i + 1) {
      *why = "condition " + std::to_string(i) + " on '" + c.name + "' has a bad value" +
             (bad.empty() ? std::string(" (unknown tag type, or data NULL with len > 0)") : ": " + bad);
      return false;
    }
  }
  return true;
}

}  // namespace cairn_capi

namespace {

int PackHits(const std::vector<cairn::QueryHit>& hits, cairn_hit_t** out, size_t* n) {
  Block b(hits.size() * sizeof(cairn_hit_t));
  for (const auto& h : hits) b.Reserve(h.key.size());
  if (!b.Allocate()) return OutOfMemory("query");
  auto* arr = reinterpret_cast<cairn_hit_t*>(b.base());
  for (size_t i = 0; i < hits.size(); i++) {
    arr[i].rank = hits[i].rank;
    arr[i].key = b.Add(hits[i].key.data(), hits[i].key.size());
    arr[i].key_len = hits[i].key.size();
  }
  if (hits.empty()) {
    std::free(b.base());
    arr = nullptr;
  }
  *out = arr;
  *n = hits.size();
  return CAIRN_OK;
}

int PackTags(const cairn::TagList& tags, cairn_tag_t** out, size_t* n) {
  Block b(tags.size() * sizeof(cairn_tag_t));
  for (const auto& t : tags) ReserveTag(&b, t);
  if (!b.Allocate()) return OutOfMemory("tags");
  auto* arr = reinterpret_cast<cairn_tag_t*>(b.base());
  for (size_t i = 0; i < tags.size(); i++) FillTag(&b, tags[i], &arr[i]);
  if (tags.empty()) {
    std::free(b.base());
    arr = nullptr;
  }
  *out = arr;
  *n = tags.size();
  return CAIRN_OK;
}

}  // namespace

extern "C" {

const char* cairn_version(int* major, int* minor, int* patch) {
  if (major) *major = CAIRN_VERSION_MAJOR;
  if (minor) *minor = CAIRN_VERSION_MINOR;
  if (patch) *patch = CAIRN_VERSION_PATCH;
  return CAIRN_VERSION_STRING;
}

const char* cairn_code_name(int code) {
  switch (code) {
    case CAIRN_OK: return "OK";
    case CAIRN_NOT_FOUND: return "NotFound";
    case CAIRN_CORRUPTION: return "Corruption";
    case CAIRN_INVALID_ARGUMENT: return "InvalidArgument";
    case CAIRN_IO_ERROR: return "IOError";
    case CAIRN_NOT_SUPPORTED: return "NotSupported";
    case CAIRN_ABORTED: return "Aborted";
    default: return "Unknown";
  }
}

void cairn_free(void* block) { std::free(block); }

int cairn_set_tag(cairn_store_t* s, const char* key, const cairn_tag_t* tag) {
  return GuardedStore("cairn_set_tag", s, [&]() -> int {
    if (!key || !tag) return Invalid("cairn_set_tag: NULL argument");
    cairn::TagList tl;
    std::string why;
    if (!ToTags(tag, 1, &tl, &why)) return Invalid((std::string("cairn_set_tag: bad tag: ") + why).c_str());
    return Code(s->store->SetTag(key, tl[0]));
  });
}

int cairn_set_tags(cairn_store_t* s, const char* key, const cairn_tag_t* tags, size_t ntags) {
  return GuardedStore("cairn_set_tags", s, [&]() -> int {
    if (!key || (!tags && ntags)) return Invalid("cairn_set_tags: NULL argument");
    cairn::TagList tl;
    std::string why;
    if (ntags && !ToTags(tags, ntags, &tl, &why)) return Invalid((std::string("cairn_set_tags: bad tag: ") + why).c_str());
    return Code(s->store->SetTags(key, tl));
  });
}

int cairn_delete_tag(cairn_store_t* s, const char* key, const char* name) {
  return GuardedStore("cairn_delete_tag", s, [&]() -> int {
    if (!key || !name) return Invalid("cairn_delete_tag: NULL argument");
    return Code(s->store->DeleteTag(key, name));
  });
}

int cairn_get_tags(cairn_store_t* s, const char* key, int rank, cairn_tag_t** tags, size_t* ntags) {
  return GuardedStore("cairn_get_tags", s, [&]() -> int {
    if (!key || !tags || !ntags) return Invalid("cairn_get_tags: NULL argument");
    *tags = nullptr;
    *ntags = 0;
    if (int rc = CheckRank(s, rank, "cairn_get_tags"); rc != CAIRN_OK) return rc;
    cairn::TagList tl;
    int rc = Code(s->store->GetTags(key, &tl, AtRank(rank)));
    if (rc != CAIRN_OK) return rc;
    return PackTags(tl, tags, ntags);
  });
}

int cairn_get_tag(cairn_store_t* s, const char* key, int rank, const char* name, cairn_tag_t** tag) {
  return GuardedStore("cairn_get_tag", s, [&]() -> int {
    if (!key || !name || !tag) return Invalid("cairn_get_tag: NULL argument");
    *tag = nullptr;
    if (int rc = CheckRank(s, rank, "cairn_get_tag"); rc != CAIRN_OK) return rc;
    cairn::TagList tl;
    int rc = Code(s->store->GetTags(key, &tl, AtRank(rank)));
    if (rc != CAIRN_OK) return rc;
    for (const auto& t : tl) {
      if (t.name != name) continue;
      size_t n = 0;
      return PackTags(cairn::TagList{t}, tag, &n);
    }
    return Code(cairn::Status::NotFound("object '" + std::string(key) + "' has no tag '" + name + "'"));
  });
}

int cairn_list(cairn_store_t* s, int rank, cairn_object_t** objects, size_t* nobjects) {
  return GuardedStore("cairn_list", s, [&]() -> int {
    if (!objects || !nobjects) return Invalid("cairn_list: NULL argument");
    *objects = nullptr;
    *nobjects = 0;
    if (int rc = CheckRank(s, rank, "cairn_list"); rc != CAIRN_OK) return rc;
    std::vector<cairn::ObjectInfo> objs;
    int rc = Code(s->store->List(&objs, AtRank(rank)));
    if (rc != CAIRN_OK || objs.empty()) return rc;
    size_t ntags = 0;
    for (const auto& o : objs) ntags += o.tags.size();
    // The objects, then all their tags, then the bytes.
    Block b(objs.size() * sizeof(cairn_object_t) + ntags * sizeof(cairn_tag_t));
    for (const auto& o : objs) {
      b.Reserve(o.key.size());
      for (const auto& t : o.tags) ReserveTag(&b, t);
    }
    if (!b.Allocate()) return OutOfMemory("cairn_list");
    auto* arr = reinterpret_cast<cairn_object_t*>(b.base());
    auto* tagp = reinterpret_cast<cairn_tag_t*>(arr + objs.size());
    for (size_t i = 0; i < objs.size(); i++) {
      const auto& o = objs[i];
      arr[i].key = b.Add(o.key.data(), o.key.size());
      arr[i].key_len = o.key.size();
      arr[i].size = o.size;
      arr[i].inlined = o.inlined ? 1 : 0;
      arr[i].tags = o.tags.empty() ? nullptr : tagp;
      arr[i].ntags = o.tags.size();
      for (const auto& t : o.tags) FillTag(&b, t, tagp++);
    }
    *objects = arr;
    *nobjects = objs.size();
    return CAIRN_OK;
  });
}

int cairn_query(cairn_store_t* s, const cairn_query_t* conds, size_t nconds, int rank,
                cairn_hit_t** hits, size_t* nhits) {
  return GuardedStore("cairn_query", s, [&]() -> int {
    if ((!conds && nconds) || !hits || !nhits) return Invalid("cairn_query: NULL argument");
    *hits = nullptr;
    *nhits = 0;
    if (int rc = CheckRank(s, rank, "cairn_query"); rc != CAIRN_OK) return rc;
    std::vector<cairn::TagQuery> q;
    std::string why;
    if (!ToQueries(conds, nconds, &q, &why)) return Invalid(("cairn_query: " + why).c_str());
    std::vector<std::string> keys;
    int rc = Code(s->store->Query(q, &keys, AtRank(rank)));
    if (rc != CAIRN_OK) return rc;
    int who = rank == CAIRN_RANK_OWN ? s->store->rank() : rank;
    std::vector<cairn::QueryHit> hv;
    hv.reserve(keys.size());
    for (auto& k : keys) hv.push_back({who, std::move(k)});
    return PackHits(hv, hits, nhits);
  });
}

int cairn_query_all(cairn_store_t* s, const cairn_query_t* conds, size_t nconds,
                    cairn_hit_t** hits, size_t* nhits) {
  return GuardedStore("cairn_query_all", s, [&]() -> int {
    // Collective: a rank with bad arguments still takes part, so that no
    // rank is left waiting, but queries nothing and makes every rank fail
    // with its refusal (it once took part with no conditions, which match
    // every key: the other ranks got its whole namespace as OK hits).
    std::vector<cairn::TagQuery> q;
    std::string why;
    bool args_ok = (conds || !nconds) && hits && nhits;
    if (args_ok && !ToQueries(conds, nconds, &q, &why)) args_ok = false;
    else if (!args_ok) why = "NULL argument";
    std::vector<cairn::QueryHit> hv;
    if (!args_ok) {
      std::string msg = "cairn_query_all: " + why;
      cairn::Inspector::QueryAllRefused(s->store.get(), cairn::Status::InvalidArgument(msg), &hv);
      return Invalid(msg.c_str());
    }
    int rc = Code(s->store->QueryAll(q, &hv));
    *hits = nullptr;
    *nhits = 0;
    if (rc != CAIRN_OK) return rc;
    return PackHits(hv, hits, nhits);
  });
}

int cairn_list_revisions(cairn_store_t* s, cairn_revision_info_t** revisions, size_t* n) {
  return GuardedStore("cairn_list_revisions", s, [&]() -> int {
    if (!revisions || !n) return Invalid("cairn_list_revisions: NULL argument");
    *revisions = nullptr;
    *n = 0;
    std::vector<cairn::RevisionInfo> revs;
    int rc = Code(s->store->ListRevisions(&revs));
    if (rc != CAIRN_OK || revs.empty()) return rc;
    auto* arr = static_cast<cairn_revision_info_t*>(std::calloc(revs.size(), sizeof(cairn_revision_info_t)));
    if (!arr) return OutOfMemory("cairn_list_revisions");
    for (size_t i = 0; i < revs.size(); i++) {
      const auto& r = revs[i];
      arr[i].revision = r.revision;
      arr[i].parent = r.parent;
      arr[i].time_ns = r.time_ns;
      arr[i].ranks = r.ranks;
      arr[i].objects = r.objects;
      arr[i].value_bytes = r.value_bytes;
      arr[i].index_bytes = r.index_bytes;
      arr[i].pinned = r.pinned ? 1 : 0;
    }
    *revisions = arr;
    *n = revs.size();
    return CAIRN_OK;
  });
}

int cairn_revision_ranks(cairn_store_t* s, uint64_t rev, uint32_t* ranks) {
  return GuardedStore("cairn_revision_ranks", s, [&]() -> int {
    if (!ranks) return Invalid("cairn_revision_ranks: NULL argument");
    *ranks = 0;
    if (rev == 0) rev = s->store->revision();
    if (rev == 0) return CAIRN_OK;
    std::vector<cairn::RevisionInfo> revs;
    int rc = Code(s->store->ListRevisions(&revs));
    if (rc != CAIRN_OK) return rc;
    for (const auto& r : revs) {
      if (r.revision != rev) continue;
      *ranks = r.ranks;
      return CAIRN_OK;
    }
    return Code(cairn::Status::NotFound("revision " + std::to_string(rev) +
                                        " is not a retained revision of the store"));
  });
}

}  // extern "C"
