// Queries by tag: a scan of a namespace's entries that matches conditions
// against the encoded tags in place (no tag is decoded into objects).
#include <fnmatch.h>

#include <algorithm>
#include <cstring>

#include "array/array_meta.h"
#include "format/coding.h"
#include "store/query_agree.h"
#include "store/store_rep.h"
#include "store/out_of_memory.h"

namespace cairn {

TagQuery TagQuery::Exists(std::string name) {
  TagQuery q;
  q.name = std::move(name);
  q.op = Op::kExists;
  return q;
}
TagQuery TagQuery::Equal(std::string name, TagValue v) {
  TagQuery q = Exists(std::move(name));
  q.op = Op::kEqual;
  q.value = std::move(v);
  return q;
}
TagQuery TagQuery::Range(std::string name, TagValue lo, TagValue hi) {
  TagQuery q = Exists(std::move(name));
  q.op = Op::kRange;
  q.value = std::move(lo);
  q.upper = std::move(hi);
  return q;
}
TagQuery TagQuery::Prefix(std::string name, std::string_view prefix) {
  TagQuery q = Exists(std::move(name));
  q.op = Op::kPrefix;
  q.value = TagValue::String(prefix);
  return q;
}
TagQuery TagQuery::Wildcard(std::string name, std::string_view pattern) {
  TagQuery q = Exists(std::move(name));
  q.op = Op::kWildcard;
  q.value = TagValue::String(pattern);
  return q;
}

namespace {

enum class Kind { kSigned, kUnsigned, kFloat, kBytes, kArray };

Kind KindOf(uint8_t code) {
  if (code & kTagArrayFlag) return Kind::kArray;
  auto t = static_cast<TagType>(code);
  if (t >= TagType::kInt8 && t <= TagType::kInt64) return Kind::kSigned;
  if (t >= TagType::kUInt8 && t <= TagType::kUInt64) return Kind::kUnsigned;
  if (t == TagType::kFloat32 || t == TagType::kFloat64) return Kind::kFloat;
  return Kind::kBytes;
}

double AsDouble(Kind k, uint64_t bits) {
  if (k == Kind::kSigned) return double(int64_t(bits));
  if (k == Kind::kUnsigned) return double(bits);
  double d;
  std::memcpy(&d, &bits, 8);
  return d;
}

// -1, 0, 1 comparing two numbers exactly across signed/unsigned/float;
// 2 when they cannot be compared (a NaN).
int CompareNumbers(Kind ka, uint64_t a, Kind kb, uint64_t b) {
  if (ka != Kind::kFloat && kb != Kind::kFloat) {
    __int128 x = ka == Kind::kSigned ? __int128(int64_t(a)) : __int128(a);
    __int128 y = kb == Kind::kSigned ? __int128(int64_t(b)) : __int128(b);
    return x < y ? -1 : x > y ? 1 : 0;
  }
  double x = AsDouble(ka, a), y = AsDouble(kb, b);
  if (x != x || y != y) return 2;
  return x < y ? -1 : x > y ? 1 : 0;
}

// A condition with its tag name resolved to an id of one namespace.
struct Term {
  const TagQuery* q;
  uint32_t id;
};

bool Meets(const TagQuery& q, const TagRef& t) {
  Kind kt = KindOf(t.code);
  const TagValue& v = q.value;
  Kind kv = KindOf(v.type_code());
  bool num_t = kt == Kind::kSigned || kt == Kind::kUnsigned || kt == Kind::kFloat;
  bool num_v = kv == Kind::kSigned || kv == Kind::kUnsigned || kv == Kind::kFloat;
  switch (q.op) {
    case TagQuery::Op::kExists:
      return true;
    case TagQuery::Op::kEqual:
      if (num_t && num_v) return CompareNumbers(kt, t.bits, kv, v.raw_bits()) == 0;
      if (kt == Kind::kArray) return t.code == v.type_code() && t.bytes == v.bytes();
      return kt == Kind::kBytes && kv == Kind::kBytes && t.bytes == v.bytes();
    case TagQuery::Op::kRange: {
      Kind ku = KindOf(q.upper.type_code());
      bool num_u = ku == Kind::kSigned || ku == Kind::kUnsigned || ku == Kind::kFloat;
      if (num_t && num_v && num_u) {
        int lo = CompareNumbers(kt, t.bits, kv, v.raw_bits());
        int hi = CompareNumbers(kt, t.bits, ku, q.upper.raw_bits());
        return (lo == 0 || lo == 1) && (hi == 0 || hi == -1);
      }
      if (kt == Kind::kBytes && kv == Kind::kBytes && ku == Kind::kBytes)
        return t.bytes >= std::string_view(v.bytes()) && t.bytes <= std::string_view(q.upper.bytes());
      return false;
    }
    case TagQuery::Op::kPrefix:
      return kt == Kind::kBytes && t.bytes.substr(0, v.bytes().size()) == v.bytes();
    case TagQuery::Op::kWildcard: {
      if (kt != Kind::kBytes) return false;
      if (t.bytes.find('\0') != std::string_view::npos) return false;  // fnmatch needs C strings
      std::string s(t.bytes);
      return fnmatch(v.bytes().c_str(), s.c_str(), 0) == 0;
    }
  }
  return false;
}

}  // namespace

Status ValidateQuery(const std::vector<TagQuery>& all_of) {
  for (const TagQuery& q : all_of) {
    if (q.name.empty()) return Status::InvalidArgument("query on an empty tag name");
    if (q.op == TagQuery::Op::kWildcard && q.value.bytes().find('\0') != std::string::npos)
      return Status::InvalidArgument("wildcard pattern contains a NUL byte");
    // A condition no tag can meet is refused rather than matching nothing:
    // a range's bounds are both numbers or both strings/bytes; a prefix or
    // wildcard pattern is a string or bytes.
    auto text = [](const TagValue& v) {
      return !v.is_array() && (v.type() == TagType::kString || v.type() == TagType::kBytes);
    };
    if (q.op == TagQuery::Op::kRange && !((q.value.is_number() && q.upper.is_number()) ||
                                          (text(q.value) && text(q.upper))))
      return Status::InvalidArgument("range on tag '" + q.name + "' from " + q.value.ToString() + " to " +
                                     q.upper.ToString() +
                                     ": the bounds must be both numbers or both strings/bytes");
    if ((q.op == TagQuery::Op::kPrefix || q.op == TagQuery::Op::kWildcard) && !text(q.value))
      return Status::InvalidArgument(std::string(q.op == TagQuery::Op::kPrefix ? "prefix" : "wildcard") +
                                     " on tag '" + q.name + "' given " + q.value.ToString() +
                                     ": the pattern must be a string or bytes");
  }
  return Status::OK();
}

namespace {

// Does the encoded entry `body` meet every term? An entry that cannot be
// decoded sets *bad (its first such status is kept): Corruption, or
// NotSupported for a newer writer's entry (a chunk codec or value kind
// this version does not know), which is not damage.
bool EntryMeets(std::string_view body, const std::vector<Term>& terms, Status* bad) {
  EntryView e;
  // Only the tags are needed: skip to them without decoding chunks fully.
  Status d = DecodeEntryBody(body, &e);
  if (!d.ok()) {
    if (bad->ok()) *bad = d;
    return false;
  }
  size_t met = 0;
  uint64_t seen = 0;  // bit i: term i met (queries have few terms)
  TagCursor cur(e.tags);
  TagRef t;
  while (cur.Next(&t)) {
    for (size_t i = 0; i < terms.size() && i < 64; i++) {
      if (t.name_id == terms[i].id && !(seen >> i & 1) && Meets(*terms[i].q, t)) {
        seen |= uint64_t(1) << i;
        met++;
      }
    }
  }
  if (!cur.ok() && bad->ok()) *bad = Status::Corruption("a damaged index entry");
  return met == terms.size();
}

}  // namespace

Status Store::Query(const std::vector<TagQuery>& all_of, std::vector<std::string>* keys,
                    const ReadOptions& ro) {
  return UnlessOutOfMemoryThen("Query of", rep_->path, kNothingChanged, [&]() -> Status {
    keys->clear();
    Rep* r = rep_.get();
    if (r->closed) return Status::InvalidArgument("store is closed");
    if (all_of.size() > 64) return Status::InvalidArgument("a query has at most 64 conditions");
    Status s = ValidateQuery(all_of);
    if (!s.ok()) return s;
    int me = rank();
    const NameDict* dict = nullptr;
    std::shared_ptr<const IndexTable> table;
    bool own = ro.rank == -1 || (ro.rank == me && !r->opt.read_only);
    // The shared namespace: rank 0 of a writable store sees its pending
    // shared puts too (as Get does); every other rank the committed table.
    bool shared = ro.rank == ReadOptions::kShared;
    bool shared_pending = shared && me == 0 && !r->opt.read_only;
    if (own) {
      dict = &static_cast<const NamespaceState&>(r->own).dict();
    } else if (shared_pending) {
      dict = &static_cast<const NamespaceState&>(r->shared).dict();
    } else if (shared) {
      if (r->current.revision == 0) return Status::OK();  // nothing committed yet
      s = r->Table(kSharedNamespace, &table);
      if (!s.ok() || !table) return s;
      dict = &table->names;
    } else {
      if (r->current.revision == 0 || ro.rank < 0 || uint32_t(ro.rank) >= r->current.nranks)
        return Status::InvalidArgument("rank " + std::to_string(ro.rank) + " has no namespace in revision " +
                                       std::to_string(r->current.revision));
      s = r->Table(uint32_t(ro.rank), &table);
      if (!s.ok() || !table) return s;
      dict = &table->names;
    }
    std::vector<Term> terms;
    for (const TagQuery& q : all_of) {
      uint32_t id;
      if (!dict->Find(q.name, &id)) return Status::OK();  // no object has that tag
      terms.push_back(Term{&q, id});
    }
    Status bad;
    auto visit = [&](std::string_view body) {
      if (IsReservedKey(EntryKey(body))) return;  // the store's array objects
      if (EntryMeets(body, terms, &bad)) keys->emplace_back(EntryKey(body));
    };
    if (own) {
      static_cast<const NamespaceState&>(r->own).ForEach(visit);
    } else if (shared_pending) {
      static_cast<const NamespaceState&>(r->shared).ForEach(visit);
    } else {
      for (std::string_view b : table->entries) visit(b);
    }
    if (!bad.ok()) {
      keys->clear();
      uint32_t ns = shared ? kSharedNamespace : uint32_t(own ? me : ro.rank);
      return bad.IsNotSupported() ? bad.WithContext(r->Where(ns) + ": an entry a query met")
                                  : Status::Corruption(r->Where(ns) + ": a damaged index entry was met by a query");
    }
    return Status::OK();
  });
}

Status QueryTableKeys(const IndexTable& t, const std::vector<TagQuery>& all_of, std::string_view prefix,
                      std::vector<std::string>* keys) {
  keys->clear();
  if (all_of.size() > 64) return Status::InvalidArgument("a query has at most 64 conditions");
  Status s = ValidateQuery(all_of);
  if (!s.ok()) return s;
  std::vector<Term> terms;
  for (const TagQuery& q : all_of) {
    uint32_t id;
    if (!t.names.Find(q.name, &id)) return Status::OK();  // no entry has that tag
    terms.push_back(Term{&q, id});
  }
  Status bad;
  auto it = std::lower_bound(t.keys.begin(), t.keys.end(), prefix);
  for (; it != t.keys.end() && it->substr(0, prefix.size()) == prefix; ++it)
    if (EntryMeets(t.entries[size_t(it - t.keys.begin())], terms, &bad)) keys->emplace_back(*it);
  if (!bad.ok()) {
    keys->clear();
    return bad.IsNotSupported() ? bad.WithContext("an entry a query met")
                                : Status::Corruption("a damaged index entry was met by a query");
  }
  return Status::OK();
}

Status Store::QueryAll(const std::vector<TagQuery>& all_of, std::vector<QueryHit>* hits) {
  // (This rank's part is guarded inside; left are the gathered result's
  // copies, after every collective step.)
  return UnlessOutOfMemoryThen("QueryAll of", rep_->path, kNothingChanged,
                               [&] { return QueryAllAgreed(all_of, hits, Status::OK()); });
}

Status Store::QueryAllAgreed(const std::vector<TagQuery>& all_of, std::vector<QueryHit>* hits,
                             const Status& refused) {
  rep_->FinishInflight();  // one collective at a time, in the same order everywhere
  hits->clear();
  Rep* rp = rep_.get();
  Comm* c = rp->comm.get();
  // Which namespaces this rank queries. The store may be open on more or
  // fewer ranks than wrote its revision: rank r takes namespaces r,
  // r + size, r + 2 size, ... of it, so every namespace is queried exactly
  // once whatever the rank count. On a writable store rank r's first one is
  // its own (namespace r, with the changes not yet committed, even when the
  // revision has no namespace r); the others are namespaces of a revision
  // written by more ranks (a restart on fewer), which no rank owns.
  std::string mine;
  // Rank 0's conditions everywhere: a rank that passed others would answer
  // its own, and the union would come back as OK.
  Status same = CheckConditionsMatchRank0(c, all_of, rp->path);
  Status s = !refused.ok() ? refused : same;
  // This rank's part; out of memory, its error (agreed below: every rank
  // fails with it rather than wait for its part).
  if (s.ok()) s = UnlessOutOfMemoryThen("QueryAll of", rp->path, kNothingChanged, [&]() -> Status {
    std::vector<int> mine_ns;
    uint64_t first = uint64_t(c->rank());
    if (!rp->opt.read_only) {
      mine_ns.push_back(-1);
      first += uint64_t(c->size());
    }
    for (uint64_t ns = first; ns < rp->current.nranks; ns += uint64_t(c->size()))
      mine_ns.push_back(int(ns));
    for (int ns : mine_ns) {
      std::vector<std::string> keys;
      ReadOptions ro;
      ro.rank = ns;
      Status qs = Query(all_of, &keys, ro);
      if (!qs.ok()) return qs;
      PutVarint32(&mine, uint32_t(ns < 0 ? c->rank() : ns));
      std::string part;
      for (const auto& k : keys) PutLengthPrefixed(&part, k);
      PutLengthPrefixed(&mine, part);
    }
    return Status::OK();
  });
  s = AgreeStatus(c, s);
  if (!s.ok()) return s;
  // Out of memory from here on (rank 0's room for the parts, or for the
  // union; a rank's room for the union, which it then takes in pieces and
  // discards, or for the hits) is that rank's error: every rank still
  // takes every step, and one more agreement (a reduction) makes every
  // rank return it.
  auto guarded = [&](auto&& f) { return UnlessOutOfMemoryThen("QueryAll of", rp->path, kNothingChanged, f); };
  std::vector<std::string> all;
  std::string flat;
  s = guarded([&] {
    c->Gather(mine, &all, 0);  // (rank 0 without room: every rank skips the data, rank 0 throws)
    if (c->rank() == 0)
      for (const std::string& part : all) flat += part;
    return Status::OK();
  });
  if (!s.ok()) flat = std::string();
  all = std::vector<std::string>();
  Status received = guarded([&] {
    c->Bcast(&flat, 0, "query_union");
    return Status::OK();
  });
  if (s.ok()) s = received;
  if (s.ok()) s = guarded([&] {
    Decoder d(flat);
    while (d.remaining() > 0 && !d.failed()) {
      int r = int(d.Varint32());
      Decoder inner(d.LengthPrefixed());
      while (inner.remaining() > 0 && !inner.failed())
        hits->push_back(QueryHit{r, std::string(inner.LengthPrefixed())});
    }
    return d.failed() ? Status::Corruption("QueryAll: malformed gathered result (internal error)") : Status::OK();
  });
  s = AgreeStatus(c, s);
  if (!s.ok()) {
    std::vector<QueryHit>().swap(*hits);
    return s;
  }
  // By namespace, then key (each namespace's keys arrive in key order).
  std::stable_sort(hits->begin(), hits->end(), [](const QueryHit& a, const QueryHit& b) { return a.rank < b.rank; });
  return Status::OK();
}

}  // namespace cairn
