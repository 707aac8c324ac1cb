// Reading global arrays: Store::GetArray, GetArrayInfo, ListArrays and
// QueryArrays. A read finds the blocks overlapping the box through the
// array's index (array_index.h), turns each block ∩ box into byte runs of
// the block object (array_plan.h) and reads them with the store's per-chunk
// verified read, straight into the caller's buffer where a request carries
// one run.
#include <algorithm>
#include <cstring>

#include "array/array_plan.h"
#include "array/array_state.h"

namespace cairn {

namespace {

// No request grows past this by joining runs. A request of several runs
// goes through a bounce buffer and is copied out: 1 MiB keeps that buffer
// in the CPU cache between the read, the checksums and the copy (and the
// run list short); a single run of any length is one request straight into
// the caller's buffer. (64 MiB before: a full read of 8 blocks into one
// box bounced each 32 MiB block through a zero-filled 32 MiB buffer.)
constexpr uint64_t kMaxRequest = 1ull << 20;
constexpr uint64_t kCacheBytes = 256ull << 20;     // decoded descriptors kept per handle

// The descriptor of `name` in the revision in view (decoded once per revision).
Status LoadArray(Store::Rep* r, std::string_view name, std::shared_ptr<const CachedArray>* out) {
  if (r->closed) return Status::InvalidArgument("store is closed");
  Status s = CheckArrayName(name);
  if (!s.ok()) return s;
  ArrayState* a = ArraysOf(r);
  if (a->cache_revision != r->current.revision) {
    a->cache.clear();
    a->cache_revision = r->current.revision;
  }
  auto it = a->cache.find(name);
  if (it != a->cache.end()) {
    *out = it->second;
    return Status::OK();
  }
  std::string where = r->Where(kSharedNamespace) + " array '" + std::string(name) + "'";
  std::shared_ptr<const IndexTable> t;
  s = r->Table(kSharedNamespace, &t);
  if (!s.ok()) return s;
  std::string key = ArrayDescKey(name);
  ptrdiff_t i = t ? t->Find(key) : -1;
  if (i < 0) return Status::NotFound("array '" + std::string(name) + "' not in " + r->path + " revision " +
                                     std::to_string(r->current.revision));
  EntryView e;
  s = DecodeEntryBody(t->entries[size_t(i)], &e);
  if (s.ok()) s = r->CheckHugeValue(e);
  std::string bytes(s.ok() ? e.size : 0, '\0');
  if (s.ok()) s = r->ReadValue(e, 0, e.size, bytes.data(), ReadOptions());
  auto c = std::make_shared<CachedArray>();
  if (s.ok()) s = DecodeArrayMeta(bytes, where, &c->meta);
  if (s.ok()) s = DecodeTags(e.tags, t->names, &c->tags);
  if (!s.ok()) return s.WithContext(where);
  c->index = std::make_unique<ArrayIndex>(&c->meta);
  uint64_t cost = c->meta.MemoryBytes() + c->index->MemoryBytes();
  uint64_t held = 0;
  for (const auto& [n, v] : a->cache) held += v->meta.MemoryBytes() + v->index->MemoryBytes();
  if (held + cost > kCacheBytes) a->cache.clear();
  a->cache.emplace(std::string(name), c);
  *out = std::move(c);
  return Status::OK();
}

void FillInfo(std::string_view name, const CachedArray& c, bool with_blocks, ArrayInfo* info) {
  const ArrayMeta& m = c.meta;
  info->name = std::string(name);
  info->dtype = m.dtype;
  info->shape = m.shape;
  info->tags = c.tags;
  info->block_count = m.nblocks;
  info->regular = m.regular;
  info->blocks.clear();
  if (!with_blocks) return;
  info->blocks.resize(m.nblocks);
  size_t nd = m.ndims();
  for (uint64_t i = 0; i < m.nblocks; i++) {
    ArrayBlock& b = info->blocks[i];
    b.rank = int(m.BlockNs(i));
    b.start.resize(nd);
    b.count.resize(nd);
    m.Block(i, b.start.data(), b.count.data());
    if (m.stats) {
      b.has_statistics = true;
      uint64_t lo = m.minmax[2 * i], hi = m.minmax[2 * i + 1];
      auto conv = [&](uint64_t v) {
        DType t = m.dtype;
        if (t == DType::kFloat32 || t == DType::kFloat64) {
          double x;
          std::memcpy(&x, &v, 8);
          return x;
        }
        if (t == DType::kUInt8 || t == DType::kUInt16 || t == DType::kUInt32 || t == DType::kUInt64)
          return double(v);
        return double(int64_t(v));
      };
      b.min = conv(lo);
      b.max = conv(hi);
    }
  }
}

}  // namespace

Status Store::GetArray(std::string_view name, const std::vector<uint64_t>& start,
                       const std::vector<uint64_t>& count, void* out, const ArrayReadOptions& ro) {
  Rep* r = rep_.get();
  std::shared_ptr<const CachedArray> c;
  Status s = LoadArray(r, name, &c);
  if (!s.ok()) return s;
  const ArrayMeta& m = c->meta;
  size_t nd = m.ndims();
  std::string who = "array '" + std::string(name) + "': ";
  if (ro.order != ArrayOrder::kRowMajor && ro.order != ArrayOrder::kColumnMajor)
    return Status::InvalidArgument(who + "unknown ArrayOrder");
  std::vector<uint64_t> qs = RowMajor(start, ro.order), qc = RowMajor(count, ro.order);
  s = CheckBox(m.shape, qs, qc, name);
  if (!s.ok()) return s;
  uint64_t esize = DTypeSize(m.dtype), elements;
  Product(qc, &elements);
  if (elements == 0) return Status::OK();
  if (out == nullptr) return Status::InvalidArgument(who + "null output buffer for a non-empty box");
  char* dst = static_cast<char*>(out);

  ArrayReadStats& st = ArraysOf(r)->read_stats;
  st.calls++;
  std::vector<uint64_t> hits;
  st.blocks_examined += c->index->ForEachOverlap(qs.data(), qc.data(), [&](uint64_t b) { hits.push_back(b); });
  st.blocks_read += hits.size();
  // Elements no block covers read as zero (blocks never overlap, so the
  // covered volumes add up).
  uint64_t covered = 0;
  std::vector<uint64_t> bs(nd), bc(nd);
  for (uint64_t b : hits) {
    m.Block(b, bs.data(), bc.data());
    uint64_t v = 1;
    for (size_t d = 0; d < nd; d++) v *= std::min(bs[d] + bc[d], qs[d] + qc[d]) - std::max(bs[d], qs[d]);
    covered += v;
  }
  st.bytes_wanted += covered * esize;
  if (covered < elements) std::memset(dst, 0, size_t(elements * esize));

  ReadOptions rro;
  rro.gap_limit = ro.gap_limit;
  std::unique_ptr<char[]> tmp;  // the bounce buffer, not zero-filled
  uint64_t tmp_size = 0;
  std::vector<uint64_t> ends;
  EntryView sub;
  for (uint64_t b : hits) {
    m.Block(b, bs.data(), bc.data());
    uint32_t ns = m.BlockNs(b);
    std::string key = ArrayBlockKey(name, m.BlockSeq(b));
    std::string where = who + "block " + std::to_string(b) + " (rank " + std::to_string(ns) + ")";
    if (ns >= r->current.nranks)
      return Status::Corruption(where + ": the revision has no namespace " + std::to_string(ns));
    std::shared_ptr<const IndexTable> t;
    s = r->Table(ns, &t);
    if (!s.ok()) return s;
    ptrdiff_t i = t ? t->Find(key) : -1;
    if (i < 0) return Status::Corruption(where + ": its object is missing from " + r->Where(ns));
    EntryView e;
    s = DecodeEntryBody(t->entries[size_t(i)], &e);
    if (s.ok()) s = r->CheckHugeValue(e);
    if (!s.ok()) return s.WithContext(where);
    uint64_t belems;
    Product(bc, &belems);
    if (e.size != belems * esize)
      return Status::Corruption(where + ": its object holds " + std::to_string(e.size) + " bytes, not " +
                                std::to_string(belems * esize));
    bool chunked = e.kind == ValueKind::kChunked;
    ends.clear();
    if (chunked) {
      uint64_t pos = 0;
      for (const ChunkRef& ch : e.chunks) ends.push_back(pos += ch.raw_length);
    }
    // Reads [lo, hi) of the block object: through the checksum chunks that
    // hold it only (found by binary search), so a request costs O(log
    // chunks + its chunks), not a pass over a finely cut block's list.
    auto read = [&](uint64_t lo, uint64_t hi, char* to) {
      st.requests++;
      if (!chunked) {
        st.bytes_read += hi - lo;
        return r->ReadValue(e, lo, hi - lo, to, rro);
      }
      size_t a = size_t(std::upper_bound(ends.begin(), ends.end(), lo) - ends.begin());
      size_t z = size_t(std::lower_bound(ends.begin(), ends.end(), hi) - ends.begin());
      uint64_t base = a ? ends[a - 1] : 0;
      sub.key = e.key;
      sub.kind = ValueKind::kChunked;
      sub.size = ends[z] - base;
      sub.chunks.assign(e.chunks.begin() + ptrdiff_t(a), e.chunks.begin() + ptrdiff_t(z) + 1);
      st.bytes_read += sub.size;
      return r->ReadValue(sub, lo - base, hi - lo, to, rro);
    };
    RunGrouper g(&ends, chunked ? ro.gap_limit : 0, kMaxRequest,
                 [&](uint64_t lo, uint64_t hi, const std::vector<ByteRun>& runs) {
                   if (runs.size() == 1)  // contiguous: straight into the caller's buffer
                     return read(lo, hi, dst + runs[0].dst);
                   if (tmp_size < hi - lo) {
                     tmp_size = hi - lo;
                     tmp.reset(new char[size_t(tmp_size)]);
                   }
                   Status rs = read(lo, hi, tmp.get());
                   if (!rs.ok()) return rs;
                   for (const ByteRun& run : runs) std::memcpy(dst + run.dst, tmp.get() + (run.src - lo), run.len);
                   return Status::OK();
                 });
    s = ForEachRun(nd, bs.data(), bc.data(), qs.data(), qc.data(), esize, [&](const ByteRun& run) {
      st.runs++;
      return g.Add(run);
    });
    if (s.ok()) s = g.Finish();
    if (!s.ok()) return s.WithContext(who.substr(0, who.size() - 2));
  }
  return Status::OK();
}

ArrayReadStats Store::array_read_stats() const {
  return rep_->arrays ? rep_->arrays->read_stats : ArrayReadStats();
}

Status Store::GetArrayInfo(std::string_view name, ArrayInfo* info, bool with_blocks) {
  std::shared_ptr<const CachedArray> c;
  Status s = LoadArray(rep_.get(), name, &c);
  if (!s.ok()) return s;
  FillInfo(name, *c, with_blocks, info);
  return Status::OK();
}

Status Store::ListArrays(std::vector<ArrayInfo>* arrays) {
  arrays->clear();
  Rep* r = rep_.get();
  if (r->closed) return Status::InvalidArgument("store is closed");
  std::shared_ptr<const IndexTable> t;
  Status s = r->Table(kSharedNamespace, &t);
  if (!s.ok() || !t) return s;
  auto it = std::lower_bound(t->keys.begin(), t->keys.end(), kArrayDescPrefix);
  for (; it != t->keys.end() && it->substr(0, 2) == kArrayDescPrefix; ++it) {
    std::string_view name = it->substr(2);
    std::shared_ptr<const CachedArray> c;
    s = LoadArray(r, name, &c);
    if (!s.ok()) return s;
    ArrayInfo info;
    FillInfo(name, *c, false, &info);
    arrays->push_back(std::move(info));
  }
  return Status::OK();
}

Status Store::QueryArrays(const std::vector<TagQuery>& all_of, std::vector<std::string>* names) {
  names->clear();
  Rep* r = rep_.get();
  if (r->closed) return Status::InvalidArgument("store is closed");
  std::shared_ptr<const IndexTable> t;
  Status s = r->Table(kSharedNamespace, &t);
  if (!s.ok() || !t) return s;
  std::vector<std::string> keys;
  s = QueryTableKeys(*t, all_of, kArrayDescPrefix, &keys);
  if (!s.ok()) return s.WithContext(r->Where(kSharedNamespace));
  for (const std::string& k : keys) names->push_back(k.substr(2));
  return Status::OK();
}

}  // namespace cairn
