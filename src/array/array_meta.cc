// Global array descriptors: keys, encoding, checks (doc/format.md "Global arrays").
#include "array/array_meta.h"

#include <algorithm>
#include <cstring>
#include <limits>

#include "format/coding.h"

namespace cairn {

size_t DTypeSize(DType t) {
  switch (t) {
    case DType::kInt8: case DType::kUInt8: return 1;
    case DType::kInt16: case DType::kUInt16: return 2;
    case DType::kInt32: case DType::kUInt32: case DType::kFloat32: return 4;
    case DType::kInt64: case DType::kUInt64: case DType::kFloat64: return 8;
  }
  return 0;
}

const char* DTypeName(DType t) {
  switch (t) {
    case DType::kInt8: return "int8";
    case DType::kInt16: return "int16";
    case DType::kInt32: return "int32";
    case DType::kInt64: return "int64";
    case DType::kUInt8: return "uint8";
    case DType::kUInt16: return "uint16";
    case DType::kUInt32: return "uint32";
    case DType::kUInt64: return "uint64";
    case DType::kFloat32: return "float32";
    case DType::kFloat64: return "float64";
  }
  return "?";
}

Status CheckNotReserved(std::string_view key, const char* what) {
  if (IsReservedKey(key))
    return Status::InvalidArgument(std::string(what) +
                                   ": keys starting with a NUL byte are reserved for the store's arrays");
  return Status::OK();
}

std::string ArrayDescKey(std::string_view name) {
  std::string k(kArrayDescPrefix);
  k += name;
  return k;
}

std::string ArrayBlockPrefix(std::string_view name) {
  std::string k("\0A", 2);
  k += name;
  k.push_back('\0');
  return k;
}

std::string ArrayBlockKey(std::string_view name, uint32_t seq) {
  std::string k = ArrayBlockPrefix(name);
  for (int i = 3; i >= 0; i--) k.push_back(char(seq >> (8 * i)));
  return k;
}

bool ParseArrayBlockKey(std::string_view key, std::string_view name, uint32_t* seq) {
  // "\0A" + name + "\0" + 4 bytes: the length pins the name's length, so a
  // name holding NUL bytes cannot be mistaken for another.
  if (key.size() != name.size() + 7 || key.substr(0, 2) != std::string_view("\0A", 2) ||
      key.substr(2, name.size()) != name || key[2 + name.size()] != '\0')
    return false;
  auto u = reinterpret_cast<const uint8_t*>(key.data() + name.size() + 3);
  *seq = uint32_t(u[0]) << 24 | uint32_t(u[1]) << 16 | uint32_t(u[2]) << 8 | uint32_t(u[3]);
  return true;
}

bool Product(const std::vector<uint64_t>& v, uint64_t* out) {
  uint64_t p = 1;
  // A zero extent makes the product 0 whatever the others are (the order
  // of the dimensions must not decide whether {2^40, 2^40, 0} overflows).
  for (uint64_t x : v)
    if (x == 0) {
      *out = 0;
      return true;
    }
  for (uint64_t x : v) {
    if (p > UINT64_MAX / x) return false;
    p *= x;
  }
  *out = p;
  return true;
}

std::vector<uint64_t> RowMajor(const std::vector<uint64_t>& in, ArrayOrder order) {
  std::vector<uint64_t> out(in);
  if (order == ArrayOrder::kColumnMajor) std::reverse(out.begin(), out.end());
  return out;
}

Status CheckBox(const std::vector<uint64_t>& shape, const std::vector<uint64_t>& start,
                const std::vector<uint64_t>& count, std::string_view name) {
  std::string who = "array '" + std::string(name) + "': ";
  if (start.size() != shape.size() || count.size() != shape.size())
    return Status::InvalidArgument(who + "start and count need " + std::to_string(shape.size()) +
                                   " dimensions (got " + std::to_string(start.size()) + " and " +
                                   std::to_string(count.size()) + ")");
  for (size_t d = 0; d < shape.size(); d++) {
    if (start[d] > shape[d] || count[d] > shape[d] - start[d])
      return Status::InvalidArgument(who + "box passes the shape in dimension " + std::to_string(d) + " (start " +
                                     std::to_string(start[d]) + ", count " + std::to_string(count[d]) +
                                     ", extent " + std::to_string(shape[d]) + ")");
  }
  return Status::OK();
}

void ArrayMeta::Block(uint64_t i, uint64_t* start, uint64_t* count) const {
  size_t nd = ndims();
  if (!regular) {
    std::copy_n(starts.begin() + i * nd, nd, start);
    std::copy_n(counts.begin() + i * nd, nd, count);
    return;
  }
  for (size_t d = nd; d-- > 0;) {
    uint64_t c = i % grid[d];
    i /= grid[d];
    start[d] = c * block_shape[d];
    count[d] = std::min(block_shape[d], shape[d] - start[d]);
  }
}

uint64_t ArrayMeta::MemoryBytes() const {
  return sizeof(*this) + 8 * (shape.size() + block_shape.size() + grid.size() + starts.size() +
                              counts.size() + minmax.size()) +
         4 * (ns.size() + seq.size());
}

namespace {
constexpr uint32_t kMagic = 0x59524143;  // "CARY" little-endian
enum : uint8_t { kRegular = 1, kIdentity = 2, kStats = 4 };
}  // namespace

std::string EncodeArrayMeta(const ArrayMeta& m) {
  std::string o;
  size_t nd = m.ndims();
  PutFixed32(&o, kMagic);
  o.push_back(char(kArrayFormatVersion));
  o.push_back(char(m.dtype));
  o.push_back(char(nd));
  o.push_back(char((m.regular ? kRegular : 0) | (m.identity ? kIdentity : 0) | (m.stats ? kStats : 0)));
  for (uint64_t s : m.shape) PutFixed64(&o, s);
  PutFixed64(&o, m.nblocks);
  PutFixed32(&o, m.max_ns);
  if (m.regular)
    for (uint64_t b : m.block_shape) PutFixed64(&o, b);
  if (!m.identity)
    for (uint64_t i = 0; i < m.nblocks; i++) {
      PutFixed32(&o, m.ns[i]);
      PutFixed32(&o, m.seq[i]);
    }
  if (!m.regular) {
    for (uint64_t i = 0; i < m.nblocks; i++) {
      for (size_t d = 0; d < nd; d++) PutFixed64(&o, m.starts[i * nd + d]);
      for (size_t d = 0; d < nd; d++) PutFixed64(&o, m.counts[i * nd + d]);
    }
  }
  if (m.stats)
    for (uint64_t v : m.minmax) PutFixed64(&o, v);
  return o;
}

Status DecodeArrayMeta(std::string_view bytes, const std::string& where, ArrayMeta* out) {
  auto bad = [&](const std::string& why) { return Status::Corruption(where + ": array descriptor " + why); };
  Decoder d(bytes);
  ArrayMeta m;
  if (d.U32() != kMagic) return bad("has a bad magic number");
  uint8_t version = d.U8();
  if (version != kArrayFormatVersion) return bad("has unknown version " + std::to_string(version));
  m.dtype = DType(d.U8());
  size_t nd = d.U8();
  uint8_t flags = d.U8();
  if (DTypeSize(m.dtype) == 0) return bad("has an unknown dtype");
  if (nd == 0 || nd > size_t(kMaxArrayDims)) return bad("has " + std::to_string(nd) + " dimensions");
  if (flags & ~uint8_t(kRegular | kIdentity | kStats)) return bad("has unknown flags");
  m.regular = flags & kRegular;
  m.identity = flags & kIdentity;
  m.stats = flags & kStats;
  if (m.identity && !m.regular) return bad("is identity-placed but not regular");
  m.shape.resize(nd);
  for (auto& s : m.shape) s = d.U64();
  m.nblocks = d.U64();
  m.max_ns = d.U32();
  if (d.failed()) return bad("is truncated");
  // Every count below is checked against the bytes left before allocating.
  uint64_t per_block = (m.identity ? 0 : 8) + (m.regular ? 0 : 16 * nd) + (m.stats ? 16 : 0);
  uint64_t need = (m.regular ? 8 * nd : 0);
  if (per_block && m.nblocks > (d.remaining() - std::min<uint64_t>(need, d.remaining())) / per_block)
    return bad("claims " + std::to_string(m.nblocks) + " blocks, more than its bytes hold");
  uint64_t elements;
  if (!Product(m.shape, &elements)) return bad("has a shape whose size overflows");
  std::vector<uint64_t> st(nd), ct(nd);
  if (m.regular) {
    m.block_shape.resize(nd);
    m.grid.resize(nd);
    uint64_t cells = 1;
    for (size_t i = 0; i < nd; i++) {
      m.block_shape[i] = d.U64();
      if (m.block_shape[i] == 0 || m.shape[i] == 0) return bad("has an empty regular grid");
      m.grid[i] = m.shape[i] / m.block_shape[i] + (m.shape[i] % m.block_shape[i] != 0);  // no overflow
      if (cells > UINT64_MAX / m.grid[i]) return bad("has a grid whose size overflows");
      cells *= m.grid[i];
    }
    if (cells != m.nblocks) return bad("has a regular grid of " + std::to_string(cells) +
                                       " cells but " + std::to_string(m.nblocks) + " blocks");
    if (m.identity && m.nblocks > 0 && m.nblocks - 1 > m.max_ns) return bad("places blocks past its highest namespace");
  }
  if (!m.identity) {
    m.ns.resize(m.nblocks);
    m.seq.resize(m.nblocks);
    for (uint64_t i = 0; i < m.nblocks; i++) {
      m.ns[i] = d.U32();
      m.seq[i] = d.U32();
      if (m.ns[i] > m.max_ns) return bad("places a block past its highest namespace");
    }
  }
  if (!m.regular) {
    m.starts.resize(m.nblocks * nd);
    m.counts.resize(m.nblocks * nd);
    for (uint64_t i = 0; i < m.nblocks; i++) {
      for (size_t k = 0; k < nd; k++) m.starts[i * nd + k] = d.U64();
      for (size_t k = 0; k < nd; k++) m.counts[i * nd + k] = d.U64();
      for (size_t k = 0; k < nd; k++)
        if (m.starts[i * nd + k] > m.shape[k] || m.counts[i * nd + k] > m.shape[k] - m.starts[i * nd + k])
          return bad("has block " + std::to_string(i) + " outside the shape");
    }
  }
  if (m.stats) {
    m.minmax.resize(2 * m.nblocks);
    for (auto& v : m.minmax) v = d.U64();
  }
  if (d.failed()) return bad("is truncated");
  if (d.remaining() != 0) return bad("has " + std::to_string(d.remaining()) + " trailing bytes");
  *out = std::move(m);
  return Status::OK();
}

namespace {
bool IsFloat(DType t) { return t == DType::kFloat32 || t == DType::kFloat64; }
bool IsUnsigned(DType t) {
  return t == DType::kUInt8 || t == DType::kUInt16 || t == DType::kUInt32 || t == DType::kUInt64;
}
}  // namespace

void NoBlockStatistics(DType dtype, uint64_t* min_bits, uint64_t* max_bits) {
  if (IsFloat(dtype)) {
    double lo = std::numeric_limits<double>::infinity(), hi = -lo;
    std::memcpy(min_bits, &lo, 8);
    std::memcpy(max_bits, &hi, 8);
  } else if (IsUnsigned(dtype)) {
    *min_bits = UINT64_MAX;
    *max_bits = 0;
  } else {
    *min_bits = uint64_t(INT64_MAX);
    *max_bits = uint64_t(INT64_MIN);
  }
}

bool BlockHasStatistics(DType dtype, uint64_t min_bits, uint64_t max_bits) {
  if (IsFloat(dtype)) {
    double lo, hi;
    std::memcpy(&lo, &min_bits, 8);
    std::memcpy(&hi, &max_bits, 8);
    return !(lo > hi);  // NaN, NaN (every element NaN) has statistics
  }
  if (IsUnsigned(dtype)) return min_bits <= max_bits;
  return int64_t(min_bits) <= int64_t(max_bits);
}

}  // namespace cairn
