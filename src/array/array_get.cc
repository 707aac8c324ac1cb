// Reading global arrays: Store::GetArray, GetArrayInfo, ListArrays and
// QueryArrays. A read finds the blocks overlapping the box through the
// array's index (array_index.h), turns each block ∩ box into byte runs of
// the block object (array_plan.h), maps them onto the objects' checksum
// grains (array_grains.h) and reads all blocks' grains in one coalesced,
// verified pass per window, straight into the caller's buffer where a
// grain's bytes land there whole.
#include <algorithm>
#include <cstring>

#include "array/array_grains.h"
#include "array/array_plan.h"
#include "array/array_state.h"
#include "store/inspect.h"
#include "store/key_text.h"
#include "store/out_of_memory.h"

namespace cairn {

namespace {

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
  uint64_t cost = c->MemoryBytes();
  uint64_t held = 0;
  for (const auto& [n, v] : a->cache) held += v->MemoryBytes();
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
    if (m.stats && BlockHasStatistics(m.dtype, m.minmax[2 * i], m.minmax[2 * i + 1])) {
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
  return UnlessOutOfMemoryThen("GetArray of", name, kNothingChanged, [&]() -> Status {
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
    uint64_t nodes = 0;
    st.blocks_examined +=
        c->index->ForEachOverlap(qs.data(), qc.data(), [&](uint64_t b) { hits.push_back(b); }, &nodes);
    st.index_nodes += nodes;
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

    // Chunked block objects: one planned pass over the grains the box needs,
    // read and verified window by window (array_grains.h). Other objects
    // (inline values) are copied run by run.
    std::unique_ptr<char[]> side;  // the pooled side buffer, not zero-filled
    uint64_t side_size = 0;
    ReadCounts counts;
    FileResolver files = [r](uint32_t id, File** f) { return r->DataFile(id, f); };
    auto mismatch = [&](const PlannedGrain& g) {
      std::string key = ArrayBlockKey(name, m.BlockSeq(g.block));
      return Status::Corruption("block " + std::to_string(g.block) + " (rank " +
                                std::to_string(m.BlockNs(g.block)) + ", '" + KeyText(key) +
                                "'): checksum mismatch in chunk at " + DataFileName(g.subfile) + " offset " +
                                std::to_string(g.offset));
    };
    // Short streams (a slab, sub-boxes, the pieces of several blocks) are
    // advised ahead of the reads, window after window; long ones are left
    // to the kernel's readahead (coalescing_reader.h, ShortStreams).
    ShortStreams streams;
    GrainPlanner plan(ro.gap_limit, [&](const GrainWindow& w) {
      return ReadGrainWindow(w, dst, files, &side, &side_size, mismatch, &counts, &streams,
                             r->direct_read_bytes);
    });
    auto read_blocks = [&]() -> Status {
      for (uint64_t b : hits) {
        m.Block(b, bs.data(), bc.data());
        uint32_t ns = m.BlockNs(b);
        std::string where = "block " + std::to_string(b) + " (rank " + std::to_string(ns) + ")";
        if (ns >= r->current.nranks)
          return Status::Corruption(where + ": the revision has no namespace " + std::to_string(ns));
        uint64_t belems;
        Product(bc, &belems);
        // A chunked block decoded by an earlier call is not decoded again.
        std::shared_ptr<const CachedBlock> cb;
        auto cached = c->blocks.find(b);
        if (cached != c->blocks.end()) {
          cb = cached->second;
        } else {
          std::shared_ptr<const IndexTable> t;
          Status s = r->Table(ns, &t);
          if (!s.ok()) return s;
          ptrdiff_t i = t ? t->Find(ArrayBlockKey(name, m.BlockSeq(b))) : -1;
          if (i < 0) return Status::Corruption(where + ": its object is missing from " + r->Where(ns));
          EntryView e;
          s = DecodeEntryBody(t->entries[size_t(i)], &e);
          if (s.ok()) s = r->CheckHugeValue(e);
          if (!s.ok()) return s.WithContext(where);
          if (e.size != belems * esize)
            return Status::Corruption(where + ": its object holds " + std::to_string(e.size) + " bytes, not " +
                                      std::to_string(belems * esize));
          if (e.kind != ValueKind::kChunked) {
            s = ForEachRun(nd, bs.data(), bc.data(), qs.data(), qc.data(), esize, [&](const ByteRun& run) {
              st.runs++;
              st.requests++;
              st.bytes_read += run.len;
              return r->ReadValue(e, run.src, run.len, dst + run.dst, ReadOptions());
            });
            if (!s.ok()) return s.WithContext(where);
            continue;
          }
          st.blocks_decoded++;
          auto fresh = std::make_shared<CachedBlock>();
          fresh->chunks = std::move(e.chunks);
          s = GrainEnds(fresh->chunks, &fresh->ends);
          if (!s.ok()) return s.WithContext(where);
          uint64_t bytes = fresh->MemoryBytes();
          if (c->block_bytes + bytes > kBlockCacheBytes) {
            c->blocks.clear();
            c->block_bytes = 0;
          }
          if (bytes <= kBlockCacheBytes) {
            c->block_bytes += bytes;
            c->blocks.emplace(b, fresh);
          }
          cb = std::move(fresh);
        }
        Status s = plan.BeginBlock(&cb->chunks, &cb->ends, b);
        if (!s.ok()) return s.WithContext(where);
        // Errors from here on may come from a window's read, of any block: a
        // checksum mismatch names its block, an I/O error its file.
        s = ForEachRun(nd, bs.data(), bc.data(), qs.data(), qc.data(), esize, [&](const ByteRun& run) {
            st.runs++;
            return plan.AddRun(run);
          });
        if (s.ok()) s = plan.EndBlock();
        if (!s.ok()) return s;
      }
      return plan.Finish();
    };
    s = read_blocks();
    st.requests += counts.requests;
    st.bytes_read += counts.bytes;
    if (!s.ok()) return s.WithContext(who.substr(0, who.size() - 2));
    return Status::OK();
  });
}

Status Inspector::ArrayFootprint(Store* store, std::string_view name, uint64_t* descriptor_bytes,
                                 uint64_t* memory_bytes) {
  Store::Rep* r = store->rep_.get();
  std::shared_ptr<const CachedArray> c;
  Status s = LoadArray(r, name, &c);
  if (!s.ok()) return s;
  *descriptor_bytes = EncodeArrayMeta(c->meta).size();
  *memory_bytes = c->meta.MemoryBytes() + c->index->MemoryBytes();
  return Status::OK();
}

ArrayReadStats Store::array_read_stats() const {
  return rep_->arrays ? rep_->arrays->read_stats : ArrayReadStats();
}

Status Store::GetArrayInfo(std::string_view name, ArrayInfo* info, bool with_blocks) {
  return UnlessOutOfMemoryThen("GetArrayInfo of", name, kNothingChanged, [&]() -> Status {
    std::shared_ptr<const CachedArray> c;
    Status s = LoadArray(rep_.get(), name, &c);
    if (!s.ok()) return s;
    FillInfo(name, *c, with_blocks, info);
    return Status::OK();
  });
}

Status Store::ListArrays(std::vector<ArrayInfo>* arrays) {
  return UnlessOutOfMemoryThen("ListArrays of", rep_->path, kNothingChanged, [&]() -> Status {
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
  });
}

Status Store::QueryArrays(const std::vector<TagQuery>& all_of, std::vector<std::string>* names) {
  return UnlessOutOfMemoryThen("QueryArrays of", rep_->path, kNothingChanged, [&]() -> Status {
    names->clear();
    Rep* r = rep_.get();
    if (r->closed) return Status::InvalidArgument("store is closed");
    std::shared_ptr<const IndexTable> t;
    Status s = r->Table(kSharedNamespace, &t);
    if (!s.ok()) return s;
    if (!t) return ValidateQuery(all_of);  // no array: bad conditions are still refused
    std::vector<std::string> keys;
    s = QueryTableKeys(*t, all_of, kArrayDescPrefix, &keys);
    if (!s.ok()) return s.WithContext(r->Where(kSharedNamespace));
    for (const std::string& k : keys) names->push_back(k.substr(2));
    return Status::OK();
  });
}

}  // namespace cairn
