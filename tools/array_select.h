// The cairn tool's array extraction helpers: NumPy-style selections
// ("0:10,5:20,:") turned into a box of a global array, and the header of a
// NumPy .npy file (format version 1.0) for what is extracted.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "cairn/array.h"
#include "cairn/status.h"

namespace cairn_tool {

// A box of an array, and which of its dimensions NumPy would keep: a plain
// index ("5") selects one element and drops its dimension from the result's
// shape, a slice ("a:b", "a:", ":b", ":") keeps it.
struct Selection {
  std::vector<uint64_t> start, count;
  std::vector<bool> keep;
  // The result's shape: count without the dropped dimensions.
  std::vector<uint64_t> Shape() const;
  uint64_t elements() const;
};

// Parses `text`, comma-separated per dimension of `shape`: "a" (one index),
// "a:b" (a <= i < b), "a:", ":b" or ":". Indices may be negative (counted
// from the end, as in NumPy). Fewer items than dimensions leave the
// remaining dimensions whole; an empty text selects the whole array.
// Unlike NumPy, a bound past the shape is an error (not clipped), as is a
// step ("a:b:c") or a slice whose end is before its start. Errors are
// InvalidArgument naming `array`, the dimension and its extent.
cairn::Status ParseSelection(std::string_view text, const std::vector<uint64_t>& shape,
                             const std::string& array, Selection* sel);

// The .npy descr of `t` for this machine's byte order, e.g. "<f8", "|u1".
std::string NpyDescr(cairn::DType t);

// A complete .npy version 1.0 header (magic, version, length, the dict
// padded with spaces and ended by '\n' to a multiple of 64 bytes) for a
// C-order array of `shape` and type `t`.
std::string NpyHeader(cairn::DType t, const std::vector<uint64_t>& shape);

// Shape as text, e.g. "8x16x4".
std::string ShapeText(const std::vector<uint64_t>& shape);

}  // namespace cairn_tool
