// Global arrays: typed N-dimensional arrays that every rank of a job puts a
// part of, and any rank of any later job reads any sub-box of, whatever the
// number of ranks on either side.
//
// An array has a name, an element type, a global shape of 1 to kMaxArrayDims
// dimensions and tags. Its data is the union of the blocks the ranks put: a
// block is a box (start, count) of the global index space. Blocks may be
// irregular; a rank may put several or none. Element (i0, ..., ik) of a
// block is stored in row-major order (the last index varies fastest).
// Column-major callers (Fortran) pass ArrayOrder::kColumnMajor: their shape,
// start and count are then taken in reverse, so the array a Fortran program
// writes as a(nx, ny) is read by a C program as a[ny][nx] (as HDF5 does).
//
// Stored in the same revision as everything else (Store::Commit makes it
// atomic with the objects); see doc/design.md "Global arrays" and
// doc/format.md for the layout.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "cairn/export.h"
#include "cairn/tags.h"

namespace cairn {
CAIRN_API_BEGIN

// The element type of an array. The codes are the numeric TagType codes
// (cairn/tags.h) and are stored on disk (doc/format.md).
enum class DType : uint8_t {
  kInt8 = 1, kInt16 = 2, kInt32 = 3, kInt64 = 4,
  kUInt8 = 5, kUInt16 = 6, kUInt32 = 7, kUInt64 = 8,
  kFloat32 = 9, kFloat64 = 10,
};

// Bytes per element of `t` (0 for a code that is not a DType).
size_t DTypeSize(DType t);
// "int8" ... "float64" (NumPy's names); "?" for an unknown code.
const char* DTypeName(DType t);

// The most dimensions an array may have.
constexpr int kMaxArrayDims = 16;

enum class ArrayOrder : uint8_t {
  kRowMajor = 0,     // C, C++, NumPy's default: the last index varies fastest
  kColumnMajor = 1,  // Fortran: the first index varies fastest (dims reversed)
};

// One block of an array, as listed by GetArrayInfo.
struct ArrayBlock {
  int rank = 0;                  // the namespace (rank of the revision) holding it
  std::vector<uint64_t> start;   // first global index per dimension (row-major)
  std::vector<uint64_t> count;   // extent per dimension (row-major)
  // The block's minimum and maximum element, when it was put with
  // ArrayPutOptions::statistics (NaNs skipped; 64-bit integers rounded to
  // the nearest double). Per block: other blocks of the array, put with
  // or without statistics, on this rank or others, do not change it.
  bool has_statistics = false;
  double min = 0, max = 0;
};

// What a revision holds of one array.
struct ArrayInfo {
  std::string name;
  DType dtype = DType::kFloat64;
  std::vector<uint64_t> shape;   // global shape, row-major
  TagList tags;
  uint64_t block_count = 0;      // number of blocks
  // The blocks, when asked for (GetArrayInfo's with_blocks); empty otherwise.
  std::vector<ArrayBlock> blocks;
  // The decomposition is a regular grid (every block the same count but the
  // last in each dimension), stored in O(1) bytes whatever the block count.
  bool regular = false;
  uint64_t elements() const {  // product of shape
    uint64_t n = 1;
    for (uint64_t d : shape) n *= d;
    return n;
  }
};

// Options of one PutArray call.
struct ArrayPutOptions {
  ArrayOrder order = ArrayOrder::kRowMajor;
  // Tags of the array. Every rank may pass some; where two ranks give the
  // same tag name, the lowest rank's value is kept.
  TagList tags;
  // Record the minimum and maximum of each block (off by default: it costs a
  // pass over the data; doc/design.md "Global arrays" has the measurement).
  bool statistics = false;
  // The checksum grain of the block: its bytes are checksummed in pieces
  // cut at the data file's offsets that are multiples of this many bytes
  // (each piece at most this long), each verified on its own, so that a
  // read of a sub-box reads and verifies only the grains holding the bytes
  // it wants: with one 4 KiB page, exactly the pages any reader must pull
  // from the device. A multiple of 4096 (else PutArray returns
  // InvalidArgument), or 0 for Options::chunk_size. Each grain costs about
  // 18 bytes of the rank's index (0.45 % of the data at 4 KiB); blocks of
  // at most Options::inline_value_limit bytes are stored inline and have
  // none. doc/design.md "Global arrays" has the measurements.
  uint64_t checksum_grain = 4096;
};

// Options of one GetArray call.
struct ArrayReadOptions {
  ArrayOrder order = ArrayOrder::kRowMajor;  // of start, count and the output buffer
  // Byte runs of one block whose gap is at most this many bytes are read
  // in one request (the gap is read and discarded).
  uint64_t gap_limit = 64 * 1024;
};

// What the GetArray calls of a handle did, summed since it was opened
// (Store::array_read_stats): the planning cost and the bytes moved.
struct ArrayReadStats {
  uint64_t calls = 0;
  uint64_t blocks_examined = 0;  // blocks the overlap index looked at
  uint64_t blocks_read = 0;      // blocks that overlapped a box
  uint64_t runs = 0;             // contiguous byte runs planned
  uint64_t requests = 0;         // read calls to the file system (inline blocks: one per run)
  uint64_t bytes_wanted = 0;     // bytes of the boxes that blocks cover
  uint64_t bytes_read = 0;       // bytes they returned: whole checksum grains, and gaps joining them
  uint64_t index_nodes = 0;      // nodes of the irregular blocks' overlap tree tested (0 on a grid)
  uint64_t blocks_decoded = 0;   // blocks whose chunk list was decoded (not yet kept by this handle)
};

CAIRN_API_END
}  // namespace cairn
