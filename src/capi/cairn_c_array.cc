// The C API of global arrays (cairn/array.h): cairn_put_array(_opts),
// cairn_get_array, cairn_delete_array, cairn_array_info, cairn_array_blocks,
// cairn_list_arrays,
// cairn_query_arrays, and the dtype helpers. Descriptions are packed into
// one malloc'ed block (capi_internal.h's Block), freed with cairn_free.
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "cairn/array.h"
#include "cairn/cairn.h"
#include "capi/capi_internal.h"

using namespace cairn_capi;

namespace {

static_assert(CAIRN_MAX_ARRAY_DIMS == cairn::kMaxArrayDims, "cairn.h and array.h disagree");
static_assert(CAIRN_FLOAT64 == int(cairn::DType::kFloat64) && CAIRN_INT8 == int(cairn::DType::kInt8),
              "dtype codes");

bool ValidDims(int ndims) { return ndims >= 1 && ndims <= CAIRN_MAX_ARRAY_DIMS; }

std::vector<uint64_t> Vec(const uint64_t* p, int n) { return std::vector<uint64_t>(p, p + n); }

// Checks the flags of a call; false (and the error recorded) if unknown.
bool OrderOf(int flags, int allowed, const char* fn, cairn::ArrayOrder* order, int* rc) {
  if (flags & ~allowed) {
    *rc = Invalid((std::string(fn) + ": unknown flags " + std::to_string(flags)).c_str());
    return false;
  }
  *order = (flags & CAIRN_COLUMN_MAJOR) ? cairn::ArrayOrder::kColumnMajor
                                        : cairn::ArrayOrder::kRowMajor;
  return true;
}

// Bytes the ArrayInfo adds to a block after the fixed records.
void ReserveInfo(Block* b, const cairn::ArrayInfo& a) {
  b->Reserve(a.name.size());
  b->Reserve(a.shape.size() * sizeof(uint64_t));
  for (const auto& t : a.tags) ReserveTag(b, t);
  for (const auto& blk : a.blocks) {
    b->Reserve(blk.start.size() * sizeof(uint64_t));
    b->Reserve(blk.count.size() * sizeof(uint64_t));
  }
}

// Fills *out; its tags go to *tagp (advanced) and its blocks to *blockp.
void FillInfo(Block* b, const cairn::ArrayInfo& a, cairn_array_info_t* out, cairn_tag_t** tagp,
              cairn_array_block_t** blockp) {
  out->name = b->Add(a.name.data(), a.name.size());
  out->name_len = a.name.size();
  out->dtype = int(a.dtype);
  out->ndims = int(a.shape.size());
  out->shape = reinterpret_cast<const uint64_t*>(b->Add(a.shape.data(), a.shape.size() * sizeof(uint64_t)));
  out->elements = a.elements();
  out->block_count = a.block_count;
  out->regular = a.regular ? 1 : 0;
  out->tags = a.tags.empty() ? nullptr : *tagp;
  out->ntags = a.tags.size();
  for (const auto& t : a.tags) FillTag(b, t, (*tagp)++);
  out->blocks = a.blocks.empty() ? nullptr : *blockp;
  for (const auto& blk : a.blocks) {
    cairn_array_block_t* o = (*blockp)++;
    o->rank = blk.rank;
    o->start = reinterpret_cast<const uint64_t*>(b->Add(blk.start.data(), blk.start.size() * sizeof(uint64_t)));
    o->count = reinterpret_cast<const uint64_t*>(b->Add(blk.count.data(), blk.count.size() * sizeof(uint64_t)));
  }
}

// Packs infos into one block: the records, then all tags, then all blocks,
// then the bytes.
int PackInfos(const std::vector<cairn::ArrayInfo>& infos, const char* what,
              cairn_array_info_t** out) {
  size_t ntags = 0, nblocks = 0;
  for (const auto& a : infos) {
    ntags += a.tags.size();
    nblocks += a.blocks.size();
  }
  Block b(infos.size() * sizeof(cairn_array_info_t) + ntags * sizeof(cairn_tag_t) +
          nblocks * sizeof(cairn_array_block_t));
  for (const auto& a : infos) ReserveInfo(&b, a);
  if (!b.Allocate()) return OutOfMemory(what);
  auto* arr = reinterpret_cast<cairn_array_info_t*>(b.base());
  auto* tagp = reinterpret_cast<cairn_tag_t*>(arr + infos.size());
  auto* blockp = reinterpret_cast<cairn_array_block_t*>(tagp + ntags);
  for (size_t i = 0; i < infos.size(); i++) FillInfo(&b, infos[i], &arr[i], &tagp, &blockp);
  *out = arr;
  return CAIRN_OK;
}

}  // namespace

extern "C" {

size_t cairn_dtype_size(int dtype) {
  return dtype >= CAIRN_INT8 && dtype <= CAIRN_FLOAT64 ? cairn::DTypeSize(cairn::DType(dtype)) : 0;
}

const char* cairn_dtype_name(int dtype) {
  return dtype >= CAIRN_INT8 && dtype <= CAIRN_FLOAT64 ? cairn::DTypeName(cairn::DType(dtype)) : "?";
}

int cairn_writer_ranks(const cairn_store_t* s) { return s ? s->store->writer_ranks() : -1; }

void cairn_array_put_options_init(cairn_array_put_options_t* o) {
  if (!o) return;
  cairn::ArrayPutOptions d;
  o->struct_size = sizeof(cairn_array_put_options_t);
  o->flags = CAIRN_ROW_MAJOR;
  o->checksum_grain = d.checksum_grain;
}

int cairn_put_array(cairn_store_t* s, const char* name, int dtype, int ndims,
                    const uint64_t* global_shape, const uint64_t* start, const uint64_t* count,
                    const void* data, int flags, const cairn_tag_t* tags, size_t ntags) {
  return GuardedStore("cairn_put_array", s, [&]() -> int {
    cairn_array_put_options_t o;
    cairn_array_put_options_init(&o);
    o.flags = flags;
    return cairn_put_array_opts(s, name, dtype, ndims, global_shape, start, count, data, &o, tags, ntags);
  });
}

int cairn_put_array_opts(cairn_store_t* s, const char* name, int dtype, int ndims,
                         const uint64_t* global_shape, const uint64_t* start, const uint64_t* count,
                         const void* data, const cairn_array_put_options_t* opts, const cairn_tag_t* tags,
                         size_t ntags) {
  return GuardedStore("cairn_put_array_opts", s, [&]() -> int {
    cairn_array_put_options_t known;
    if (opts) {
      int rc = KnownPart(opts, &known, cairn_array_put_options_init, "cairn_put_array_opts",
                         "cairn_array_put_options_init");
      if (rc != CAIRN_OK) return rc;
    } else {
      cairn_array_put_options_init(&known);
    }
    opts = &known;
    const int flags = opts->flags;
    if (!name) return Invalid("cairn_put_array: NULL argument");
    if (!ValidDims(ndims))
      return Invalid(("cairn_put_array('" + std::string(name) + "'): ndims " + std::to_string(ndims) +
                      " is not 1.." + std::to_string(CAIRN_MAX_ARRAY_DIMS)).c_str());
    if (!global_shape || !start || !count)
      return Invalid(("cairn_put_array('" + std::string(name) + "'): NULL shape, start or count").c_str());
    if (cairn_dtype_size(dtype) == 0)
      return Invalid(("cairn_put_array('" + std::string(name) + "'): unknown dtype " +
                      std::to_string(dtype)).c_str());
    cairn::ArrayPutOptions opt;
    int rc = CAIRN_OK;
    if (!OrderOf(flags, CAIRN_COLUMN_MAJOR | CAIRN_ARRAY_STATISTICS, "cairn_put_array", &opt.order, &rc))
      return rc;
    opt.statistics = (flags & CAIRN_ARRAY_STATISTICS) != 0;
    opt.checksum_grain = opts->checksum_grain;  // checked by PutArray
    if (ntags && !tags) return Invalid("cairn_put_array: NULL tags with ntags > 0");
    std::string why;
    if (ntags && !ToTags(tags, ntags, &opt.tags, &why))
      return Invalid((std::string("cairn_put_array: bad tag: ") + why).c_str());
    return Code(s->store->PutArray(name, cairn::DType(dtype), Vec(global_shape, ndims), Vec(start, ndims),
                                   Vec(count, ndims), data, opt));
  });
}

void cairn_array_read_options_init(cairn_array_read_options_t* o) {
  if (!o) return;
  cairn::ArrayReadOptions d;
  o->struct_size = sizeof(cairn_array_read_options_t);
  o->flags = CAIRN_ROW_MAJOR;
  o->gap_limit = d.gap_limit;
}

int cairn_get_array(cairn_store_t* s, const char* name, int ndims, const uint64_t* start,
                    const uint64_t* count, void* out, size_t cap, int flags) {
  return GuardedStore("cairn_get_array", s, [&]() -> int {
    cairn_array_read_options_t o;
    cairn_array_read_options_init(&o);
    o.flags = flags;
    return cairn_get_array_opts(s, name, ndims, start, count, out, cap, &o);
  });
}

int cairn_array_read_stats(const cairn_store_t* s, cairn_array_read_stats_t* stats, size_t stats_size) {
  return GuardedStore("cairn_array_read_stats", s, [&]() -> int {
    if (!stats) return Invalid("cairn_array_read_stats: NULL argument");
    cairn::ArrayReadStats st = s->store->array_read_stats();
    cairn_array_read_stats_t o;
    o.calls = st.calls;
    o.blocks_examined = st.blocks_examined;
    o.blocks_read = st.blocks_read;
    o.runs = st.runs;
    o.requests = st.requests;
    o.bytes_wanted = st.bytes_wanted;
    o.bytes_read = st.bytes_read;
    o.index_nodes = st.index_nodes;
    o.blocks_decoded = st.blocks_decoded;
    return CopyOut(o, stats, stats_size, "cairn_array_read_stats", "cairn_array_read_stats_t");
  });
}

int cairn_get_array_opts(cairn_store_t* s, const char* name, int ndims, const uint64_t* start,
                         const uint64_t* count, void* out, size_t cap, const cairn_array_read_options_t* opts) {
  return GuardedStore("cairn_get_array_opts", s, [&]() -> int {
    cairn_array_read_options_t known;
    if (opts) {
      int rc = KnownPart(opts, &known, cairn_array_read_options_init, "cairn_get_array_opts",
                         "cairn_array_read_options_init");
      if (rc != CAIRN_OK) return rc;
    } else {
      cairn_array_read_options_init(&known);
    }
    const int flags = known.flags;
    if (!name) return Invalid("cairn_get_array: NULL argument");
    if (!ValidDims(ndims))
      return Invalid(("cairn_get_array('" + std::string(name) + "'): ndims " + std::to_string(ndims) +
                      " is not 1.." + std::to_string(CAIRN_MAX_ARRAY_DIMS)).c_str());
    if (!start || !count)
      return Invalid(("cairn_get_array('" + std::string(name) + "'): NULL start or count").c_str());
    cairn::ArrayReadOptions ro;
    ro.gap_limit = known.gap_limit;
    int rc = CAIRN_OK;
    if (!OrderOf(flags, CAIRN_COLUMN_MAJOR, "cairn_get_array", &ro.order, &rc)) return rc;
    cairn::ArrayInfo info;
    rc = Code(s->store->GetArrayInfo(name, &info));
    if (rc != CAIRN_OK) return rc;
    // The bytes the box needs, refusing a product that overflows.
    uint64_t need = cairn::DTypeSize(info.dtype);
    for (int d = 0; d < ndims; d++) {
      if (count[d] && need > UINT64_MAX / count[d]) {
        need = UINT64_MAX;
        break;
      }
      need *= count[d];
    }
    if (need > cap) {
      return Invalid(("cairn_get_array('" + std::string(name) + "'): buffer of " + std::to_string(cap) +
                      " bytes is too small for the box (" +
                      (need == UINT64_MAX ? std::string("over 2^64") : std::to_string(need)) + " bytes of " +
                      cairn::DTypeName(info.dtype) + ")").c_str());
    }
    if (!out && need) return Invalid("cairn_get_array: NULL buffer");
    return Code(s->store->GetArray(name, Vec(start, ndims), Vec(count, ndims), out, ro));
  });
}

int cairn_delete_array(cairn_store_t* s, const char* name) {
  return GuardedStore("cairn_delete_array", s, [&]() -> int {
    if (!name) return Invalid("cairn_delete_array: NULL argument");
    return Code(s->store->DeleteArray(name));
  });
}

int cairn_array_info(cairn_store_t* s, const char* name, int with_blocks, cairn_array_info_t** info) {
  return GuardedStore("cairn_array_info", s, [&]() -> int {
    if (!name || !info) return Invalid("cairn_array_info: NULL argument");
    *info = nullptr;
    std::vector<cairn::ArrayInfo> one(1);
    int rc = Code(s->store->GetArrayInfo(name, &one[0], with_blocks != 0));
    if (rc != CAIRN_OK) return rc;
    return PackInfos(one, "cairn_array_info", info);
  });
}

int cairn_array_blocks(cairn_store_t* s, const char* name, cairn_array_block_info_t** blocks, size_t* nblocks) {
  return GuardedStore("cairn_array_blocks", s, [&]() -> int {
    if (!name || !blocks || !nblocks) return Invalid("cairn_array_blocks: NULL argument");
    *blocks = nullptr;
    *nblocks = 0;
    cairn::ArrayInfo a;
    int rc = Code(s->store->GetArrayInfo(name, &a, true));
    if (rc != CAIRN_OK || a.blocks.empty()) return rc;
    Block b(a.blocks.size() * sizeof(cairn_array_block_info_t));
    for (const auto& blk : a.blocks) {
      b.Reserve(blk.start.size() * sizeof(uint64_t));
      b.Reserve(blk.count.size() * sizeof(uint64_t));
    }
    if (!b.Allocate()) return OutOfMemory("cairn_array_blocks");
    auto* arr = reinterpret_cast<cairn_array_block_info_t*>(b.base());
    for (size_t i = 0; i < a.blocks.size(); i++) {
      const cairn::ArrayBlock& blk = a.blocks[i];
      cairn_array_block_info_t& o = arr[i];
      o.rank = blk.rank;
      o.ndims = int(blk.start.size());
      o.start = reinterpret_cast<const uint64_t*>(b.Add(blk.start.data(), blk.start.size() * sizeof(uint64_t)));
      o.count = reinterpret_cast<const uint64_t*>(b.Add(blk.count.data(), blk.count.size() * sizeof(uint64_t)));
      o.has_statistics = blk.has_statistics ? 1 : 0;
      o.min = blk.has_statistics ? blk.min : 0;
      o.max = blk.has_statistics ? blk.max : 0;
    }
    *blocks = arr;
    *nblocks = a.blocks.size();
    return CAIRN_OK;
  });
}

int cairn_list_arrays(cairn_store_t* s, cairn_array_info_t** arrays, size_t* narrays) {
  return GuardedStore("cairn_list_arrays", s, [&]() -> int {
    if (!arrays || !narrays) return Invalid("cairn_list_arrays: NULL argument");
    *arrays = nullptr;
    *narrays = 0;
    std::vector<cairn::ArrayInfo> infos;
    int rc = Code(s->store->ListArrays(&infos));
    if (rc != CAIRN_OK || infos.empty()) return rc;
    for (auto& a : infos) a.blocks.clear();  // as documented: no blocks here
    rc = PackInfos(infos, "cairn_list_arrays", arrays);
    if (rc == CAIRN_OK) *narrays = infos.size();
    return rc;
  });
}

int cairn_query_arrays(cairn_store_t* s, const cairn_query_t* conds, size_t nconds,
                       cairn_name_t** names, size_t* nnames) {
  return GuardedStore("cairn_query_arrays", s, [&]() -> int {
    if ((!conds && nconds) || !names || !nnames) return Invalid("cairn_query_arrays: NULL argument");
    *names = nullptr;
    *nnames = 0;
    std::vector<cairn::TagQuery> q;
    std::string why;
    if (!ToQueries(conds, nconds, &q, &why)) return Invalid(("cairn_query_arrays: " + why).c_str());
    std::vector<std::string> found;
    int rc = Code(s->store->QueryArrays(q, &found));
    if (rc != CAIRN_OK || found.empty()) return rc;
    Block b(found.size() * sizeof(cairn_name_t));
    for (const auto& n : found) b.Reserve(n.size());
    if (!b.Allocate()) return OutOfMemory("cairn_query_arrays");
    auto* arr = reinterpret_cast<cairn_name_t*>(b.base());
    for (size_t i = 0; i < found.size(); i++) {
      arr[i].name = b.Add(found[i].data(), found[i].size());
      arr[i].name_len = found[i].size();
    }
    *names = arr;
    *nnames = found.size();
    return CAIRN_OK;
  });
}

}  // extern "C"
