// The descriptor of a global array as stored in a revision, its encoding,
// and the reserved keys under which arrays live (doc/format.md "Global
// arrays"). Internal.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "cairn/array.h"
#include "cairn/status.h"

namespace cairn {

// Keys starting with a NUL byte are reserved for the store's own objects
// (array blocks and descriptors): user calls that write them fail, and
// List, Query and QueryAll skip them.
inline bool IsReservedKey(std::string_view key) { return !key.empty() && key[0] == '\0'; }
// InvalidArgument naming `what` if `key` is reserved; ok otherwise.
Status CheckNotReserved(std::string_view key, const char* what);

// The descriptor of array `name`: "\0a" + name, in the shared namespace.
std::string ArrayDescKey(std::string_view name);
constexpr std::string_view kArrayDescPrefix{"\0a", 2};
// Block `seq` of `name` put by a rank: "\0A" + name + "\0" + seq (4 bytes,
// big-endian), in that rank's namespace.
std::string ArrayBlockKey(std::string_view name, uint32_t seq);
// The prefix every block key of `name` starts with ("\0A" + name + "\0").
std::string ArrayBlockPrefix(std::string_view name);
// The seq of a block key of `name`, if `key` is one.
bool ParseArrayBlockKey(std::string_view key, std::string_view name, uint32_t* seq);

constexpr size_t kMaxArrayNameLength = 4096;
constexpr uint32_t kArrayFormatVersion = 1;

// A decoded descriptor: where every block of one array is. Blocks are
// numbered 0..nblocks-1; for a regular grid in row-major grid order.
struct ArrayMeta {
  DType dtype = DType::kFloat64;
  std::vector<uint64_t> shape;
  uint64_t nblocks = 0;
  uint32_t max_ns = 0;  // highest namespace holding a block (0 if none)
  // Regular grid: block i covers grid cell i of block_shape-sized cells
  // (the last cell in each dimension cut at the shape).
  bool regular = false;
  std::vector<uint64_t> block_shape, grid;
  // Regular with identity placement: block i is block 0 of namespace i.
  bool identity = false;
  std::vector<uint32_t> ns, seq;         // per block, unless identity
  std::vector<uint64_t> starts, counts;  // irregular: nblocks x ndims each
  // Optional statistics: per block the minimum and maximum as 8 raw bytes
  // (int64 for signed, uint64 for unsigned, double for float types).
  bool stats = false;
  std::vector<uint64_t> minmax;  // 2 per block

  size_t ndims() const { return shape.size(); }
  void Block(uint64_t i, uint64_t* start, uint64_t* count) const;
  uint32_t BlockNs(uint64_t i) const { return identity ? uint32_t(i) : ns[i]; }
  uint32_t BlockSeq(uint64_t i) const { return identity ? 0 : seq[i]; }
  // Bytes of this description in memory (for the cache's accounting).
  uint64_t MemoryBytes() const;
};

// A block put without statistics in an array where other blocks have them:
// its pair is minimum > maximum, which no element can give (floats +inf and
// -inf; all-NaN blocks are NaN, NaN), so readers take it for "none".
void NoBlockStatistics(DType dtype, uint64_t* min_bits, uint64_t* max_bits);
// False for the pair NoBlockStatistics writes (minimum above maximum).
bool BlockHasStatistics(DType dtype, uint64_t min_bits, uint64_t max_bits);

std::string EncodeArrayMeta(const ArrayMeta& m);
// Decodes and checks a descriptor (every block inside the shape); `where`
// names it in errors (Corruption).
Status DecodeArrayMeta(std::string_view bytes, const std::string& where, ArrayMeta* m);

// Checks dtype, dims and (start, count) against `shape` (all row-major).
Status CheckBox(const std::vector<uint64_t>& shape, const std::vector<uint64_t>& start,
                const std::vector<uint64_t>& count, std::string_view name);
// Product of `v` (1 for empty); false on overflow of 64 bits.
bool Product(const std::vector<uint64_t>& v, uint64_t* out);

// Fills *out with `in` reversed when order is column-major, else a copy.
std::vector<uint64_t> RowMajor(const std::vector<uint64_t>& in, ArrayOrder order);

}  // namespace cairn
