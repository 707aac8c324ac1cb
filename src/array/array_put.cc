// Store::PutArray and Store::DeleteArray: a block is an ordinary object of
// the caller's namespace under a reserved key (array_meta.h), so it gets
// chunk checksums, staging, asynchronous commits and retention as every
// object does; the array's descriptor is made at commit (array_commit.cc).
#include <cmath>
#include <cstring>
#include <limits>
#include <map>
#include <new>

#include "array/array_state.h"
#include "store/out_of_memory.h"

namespace cairn {

ArrayState* ArraysOf(Store::Rep* r) {
  if (!r->arrays) r->arrays = std::make_shared<ArrayState>();
  return r->arrays.get();
}

Status CheckArrayName(std::string_view name) {
  if (name.empty()) return Status::InvalidArgument("empty array name");
  if (name.size() > kMaxArrayNameLength)
    return Status::InvalidArgument("array name longer than " + std::to_string(kMaxArrayNameLength) + " bytes");
  return Status::OK();
}

namespace {

template <typename T>
void MinMax(const void* data, uint64_t n, uint64_t* lo, uint64_t* hi) {
  // Eight independent lanes without branches, so the compiler vectorizes
  // the pass; `x < mn ? x : mn` is false for a NaN, which is thus skipped.
  const T* p = static_cast<const T*>(data);
  constexpr int kLanes = 8;
  T mn[kLanes], mx[kLanes];
  for (int l = 0; l < kLanes; l++) mn[l] = std::numeric_limits<T>::max(), mx[l] = std::numeric_limits<T>::lowest();
  uint64_t i = 0;
  for (; i + kLanes <= n; i += kLanes)
    for (int l = 0; l < kLanes; l++) {
      T x = p[i + l];
      mn[l] = x < mn[l] ? x : mn[l];
      mx[l] = x > mx[l] ? x : mx[l];
    }
  for (; i < n; i++) {
    T x = p[i];
    mn[0] = x < mn[0] ? x : mn[0];
    mx[0] = x > mx[0] ? x : mx[0];
  }
  for (int l = 1; l < kLanes; l++) {
    mn[0] = mn[l] < mn[0] ? mn[l] : mn[0];
    mx[0] = mx[l] > mx[0] ? mx[l] : mx[0];
  }
  if constexpr (std::is_floating_point_v<T>) {
    bool any = mn[0] <= mx[0];  // false when every element was a NaN
    double a = any ? double(mn[0]) : std::nan(""), b = any ? double(mx[0]) : std::nan("");
    std::memcpy(lo, &a, 8);
    std::memcpy(hi, &b, 8);
  } else if constexpr (std::is_signed_v<T>) {
    *lo = uint64_t(int64_t(mn[0]));
    *hi = uint64_t(int64_t(mx[0]));
  } else {
    *lo = uint64_t(mn[0]);
    *hi = uint64_t(mx[0]);
  }
}

void Statistics(DType t, const void* data, uint64_t n, uint64_t* lo, uint64_t* hi) {
  switch (t) {
    case DType::kInt8: return MinMax<int8_t>(data, n, lo, hi);
    case DType::kInt16: return MinMax<int16_t>(data, n, lo, hi);
    case DType::kInt32: return MinMax<int32_t>(data, n, lo, hi);
    case DType::kInt64: return MinMax<int64_t>(data, n, lo, hi);
    case DType::kUInt8: return MinMax<uint8_t>(data, n, lo, hi);
    case DType::kUInt16: return MinMax<uint16_t>(data, n, lo, hi);
    case DType::kUInt32: return MinMax<uint32_t>(data, n, lo, hi);
    case DType::kUInt64: return MinMax<uint64_t>(data, n, lo, hi);
    case DType::kFloat32: return MinMax<float>(data, n, lo, hi);
    case DType::kFloat64: return MinMax<double>(data, n, lo, hi);
  }
}

std::string ShapeString(const std::vector<uint64_t>& v) {
  std::string s = "[";
  for (size_t i = 0; i < v.size(); i++) s += (i ? ", " : "") + std::to_string(v[i]);
  return s + "]";
}

}  // namespace

static constexpr char kArrayUnchanged[] =
    " (the array's tags do not fit in this process's memory); the array is unchanged";

Status Store::PutArray(std::string_view name, DType dtype, const std::vector<uint64_t>& global_shape,
                       const std::vector<uint64_t>& start, const std::vector<uint64_t>& count,
                       const void* data, const ArrayPutOptions& opt) try {
  Rep* r = rep_.get();
  Status s = r->CheckWritable();
  if (s.ok()) s = CheckArrayName(name);
  if (!s.ok()) return s;
  if (r->inflight) r->Progress(false);
  std::string who = "array '" + std::string(name) + "': ";
  uint64_t esize = DTypeSize(dtype);
  if (esize == 0) return Status::InvalidArgument(who + "dtype code " + std::to_string(int(dtype)) + " is not a DType");
  if (global_shape.empty() || global_shape.size() > size_t(kMaxArrayDims))
    return Status::InvalidArgument(who + std::to_string(global_shape.size()) + " dimensions (1 to " +
                                   std::to_string(kMaxArrayDims) + " allowed)");
  if (opt.order != ArrayOrder::kRowMajor && opt.order != ArrayOrder::kColumnMajor)
    return Status::InvalidArgument(who + "unknown ArrayOrder");
  std::vector<uint64_t> shape = RowMajor(global_shape, opt.order);
  std::vector<uint64_t> st = RowMajor(start, opt.order), ct = RowMajor(count, opt.order);
  s = CheckBox(shape, st, ct, name);
  if (!s.ok()) return s;
  uint64_t elements, total;
  if (!Product(shape, &total) || total > UINT64_MAX / esize)
    return Status::InvalidArgument(who + "shape " + ShapeString(shape) + " holds 2^64 bytes or more");
  Product(ct, &elements);  // inside the shape: cannot overflow
  if (elements > 0 && data == nullptr) return Status::InvalidArgument(who + "null data for a non-empty box");
  if (opt.checksum_grain % 4096 != 0)
    return Status::InvalidArgument(who + "checksum_grain " + std::to_string(opt.checksum_grain) +
                                   " is not a multiple of 4096 (0 means Options::chunk_size)");
  ArrayState* a = ArraysOf(r);
  auto it = a->puts.find(std::string(name));
  if (it != a->puts.end() && (it->second.dtype != dtype || it->second.shape != shape))
    return Status::InvalidArgument(who + "put as " + DTypeName(dtype) + " " + ShapeString(shape) +
                                   " but earlier on this rank as " + DTypeName(it->second.dtype) + " " +
                                   ShapeString(it->second.shape));
  // Tags are checked here, not first at commit.
  {
    NameDict scratch;
    std::string bytes;
    s = EncodeTags(opt.tags, &scratch, &bytes);
    if (!s.ok()) return s.WithContext(who + "tags");
  }
  uint32_t seq = it == a->puts.end() ? 0 : it->second.next_seq;
  // Everything the put records is made before its block is put, so that
  // running out of memory (std::bad_alloc, an IOError below) leaves the
  // array's pending state as it was, and a block put is always recorded:
  // the tags merged in a copy, the array's first node (moved in below
  // without an allocation), room for one more block, a high-water node.
  const std::string key_name(name);
  TagList tags;
  if (it != a->puts.end()) tags = it->second.tags;
  for (const Tag& t : opt.tags) {  // a later put's tag replaces this rank's earlier one
    bool found = false;
    for (Tag& o : tags)
      if (o.name == t.name) {
        o.value = t.value;
        found = true;
      }
    if (!found) tags.push_back(t);
  }
  std::map<std::string, PendingArray> first;
  if (it == a->puts.end()) {
    PendingArray& f = first.emplace(key_name, PendingArray()).first->second;
    f.dtype = dtype;
    f.shape = shape;
  }
  std::map<std::string, uint32_t> high_water;
  if (elements > 0) {
    std::vector<PendingBlock>& blocks = (it == a->puts.end() ? first.begin()->second : it->second).blocks;
    if (blocks.size() == blocks.capacity()) blocks.reserve(std::max<size_t>(4, 2 * blocks.size()));
    if (a->overlay_seqs.find(key_name) == a->overlay_seqs.end()) high_water.emplace(key_name, 0);
  }
  PendingBlock b;
  if (elements > 0) {
    if (opt.statistics) {
      b.stats = true;
      Statistics(dtype, data, elements, &b.min, &b.max);
    }
    s = r->PutInto(&r->own, ArrayBlockKey(name, seq),
                   std::string_view(static_cast<const char*>(data), size_t(elements * esize)), {},
                   /*zero_copy=*/false, opt.checksum_grain);
    if (!s.ok()) return s.WithContext(who + "block");
  }
  // Nothing below allocates.
  if (it == a->puts.end()) it = a->puts.insert(first.extract(first.begin())).position;
  PendingArray& p = it->second;
  p.tags.swap(tags);
  if (elements > 0) {
    b.seq = seq;
    b.start = std::move(st);
    b.count = std::move(ct);
    p.blocks.push_back(std::move(b));
    p.next_seq = seq + 1;
    auto hw = a->overlay_seqs.find(key_name);
    if (hw == a->overlay_seqs.end()) hw = a->overlay_seqs.insert(high_water.extract(high_water.begin())).position;
    hw->second = std::max(hw->second, seq + 1);
  }
  return Status::OK();
} catch (const std::bad_alloc&) {
  // Its tags, chiefly, do not fit in this process's memory (doc/design.md
  // "Errors"), or a size no buffer can hold (std::length_error): nothing
  // of the array changed (a block's bytes may be in the file, unreferenced,
  // as after any failed put).
  return OutOfMemoryError("PutArray", name, kArrayUnchanged);
} catch (const std::length_error&) {
  return OutOfMemoryError("PutArray", name, kArrayUnchanged);
}

Status Store::DeleteArray(std::string_view name) {
  Rep* r = rep_.get();
  Status s = r->CheckWritable();
  if (s.ok()) s = CheckArrayName(name);
  if (!s.ok()) return s;
  if (r->inflight) r->Progress(false);
  // Nothing changes until the name joins the deletes (std::set::insert:
  // all or nothing), so running out of memory on the way (loading the
  // shared table, the messages) leaves the array as it was.
  return UnlessOutOfMemoryThen("DeleteArray", name, "; the array is unchanged", [&]() -> Status {
    ArrayState* a = ArraysOf(r);
    std::string n(name);
    bool exists = a->puts.count(n) != 0 || a->deletes.count(n) != 0;
    // A commit in flight: its revision, which the next commit builds on,
    // holds the arrays its array step put and not those it deleted.
    if (!exists && r->inflight) {
      if (a->committing_puts.count(n)) exists = true;
      else if (a->committing_deletes.count(n))
        return Status::NotFound("array '" + n + "' deleted by the commit in flight (revision " +
                                std::to_string(r->current.revision + 1) + ") and not put since");
    }
    if (!exists) {
      std::shared_ptr<const IndexTable> t;
      s = r->Table(kSharedNamespace, &t);
      if (!s.ok()) return s;
      exists = t && t->Find(ArrayDescKey(name)) >= 0;
    }
    if (!exists) return Status::NotFound("array '" + n + "' not in " + r->path + " revision " +
                                         std::to_string(r->current.revision) + " and not put since");
    a->deletes.insert(n);
    return Status::OK();
  });
}

}  // namespace cairn
