// NumPy-style selections and .npy headers for `cairn get --select/--npy`.
#include "array_select.h"

#include <bit>
#include <cctype>

namespace cairn_tool {

using cairn::Status;

std::vector<uint64_t> Selection::Shape() const {
  std::vector<uint64_t> s;
  for (size_t d = 0; d < count.size(); d++)
    if (keep[d]) s.push_back(count[d]);
  return s;
}

uint64_t Selection::elements() const {
  uint64_t n = 1;
  for (uint64_t c : count) n *= c;
  return n;
}

std::string ShapeText(const std::vector<uint64_t>& shape) {
  std::string s;
  for (size_t d = 0; d < shape.size(); d++) s += (d ? "x" : "") + std::to_string(shape[d]);
  return s;
}

namespace {

std::string_view Trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return s;
}

// An optionally negative decimal integer; false if `s` is not one (or
// does not fit in 63 bits).
bool ParseInt(std::string_view s, int64_t* v) {
  s = Trim(s);
  bool neg = !s.empty() && s.front() == '-';
  if (neg) s.remove_prefix(1);
  if (s.empty() || s.size() > 18) return false;
  int64_t x = 0;
  for (char c : s) {
    if (c < '0' || c > '9') return false;
    x = x * 10 + (c - '0');
  }
  *v = neg ? -x : x;
  return true;
}

}  // namespace

Status ParseSelection(std::string_view text, const std::vector<uint64_t>& shape, const std::string& array,
                      Selection* sel) {
  const std::string where = "array '" + array + "' (shape " + ShapeText(shape) + ")";
  std::vector<std::string_view> items;
  if (!Trim(text).empty()) {
    size_t pos = 0;
    while (true) {
      size_t comma = text.find(',', pos);
      items.push_back(text.substr(pos, comma == std::string_view::npos ? std::string_view::npos : comma - pos));
      if (comma == std::string_view::npos) break;
      pos = comma + 1;
    }
  }
  if (items.size() > shape.size())
    return Status::InvalidArgument("selection '" + std::string(text) + "' has " + std::to_string(items.size()) +
                                   " dimensions but " + where + " has " + std::to_string(shape.size()));
  sel->start.assign(shape.size(), 0);
  sel->count = shape;
  sel->keep.assign(shape.size(), true);
  for (size_t d = 0; d < items.size(); d++) {
    std::string_view it = Trim(items[d]);
    const uint64_t n = shape[d];
    auto bad = [&](const std::string& why) {
      return Status::InvalidArgument("selection '" + std::string(text) + "', dimension " + std::to_string(d) +
                                     " ('" + std::string(it) + "'): " + why + "; " + where);
    };
    // Resolves a possibly negative bound against extent n: 0 <= result <= n.
    auto resolve = [&](int64_t v, uint64_t* out) -> bool {
      int64_t r = v < 0 ? v + static_cast<int64_t>(n) : v;
      if (r < 0 || static_cast<uint64_t>(r) > n) return false;
      *out = static_cast<uint64_t>(r);
      return true;
    };
    if (it.empty()) return bad("empty item (use ':' for the whole dimension)");
    size_t colon = it.find(':');
    if (colon == std::string_view::npos) {
      int64_t v;
      if (!ParseInt(it, &v)) return bad("expected an index a, or a slice a:b, a:, :b or :");
      uint64_t i;
      if (!resolve(v, &i) || i >= n)
        return bad("index " + std::to_string(v) + " is outside 0.." + (n ? std::to_string(n - 1) : "(empty)"));
      sel->start[d] = i;
      sel->count[d] = 1;
      sel->keep[d] = false;
      continue;
    }
    std::string_view a = Trim(it.substr(0, colon)), b = Trim(it.substr(colon + 1));
    if (b.find(':') != std::string_view::npos) return bad("steps (a:b:c) are not supported");
    uint64_t lo = 0, hi = n;
    int64_t v;
    if (!a.empty()) {
      if (!ParseInt(a, &v)) return bad("the start '" + std::string(a) + "' is not an integer");
      if (!resolve(v, &lo))
        return bad("the start " + std::to_string(v) + " is outside the extent " + std::to_string(n));
    }
    if (!b.empty()) {
      if (!ParseInt(b, &v)) return bad("the end '" + std::string(b) + "' is not an integer");
      if (!resolve(v, &hi))
        return bad("the end " + std::to_string(v) + " is outside the extent " + std::to_string(n));
    }
    if (hi < lo) return bad("the end " + std::to_string(hi) + " is before the start " + std::to_string(lo));
    sel->start[d] = lo;
    sel->count[d] = hi - lo;
  }
  return Status::OK();
}

std::string NpyDescr(cairn::DType t) {
  using cairn::DType;
  const char order = std::endian::native == std::endian::little ? '<' : '>';
  size_t size = cairn::DTypeSize(t);
  char kind = '?';
  switch (t) {
    case DType::kInt8: case DType::kInt16: case DType::kInt32: case DType::kInt64: kind = 'i'; break;
    case DType::kUInt8: case DType::kUInt16: case DType::kUInt32: case DType::kUInt64: kind = 'u'; break;
    case DType::kFloat32: case DType::kFloat64: kind = 'f'; break;
  }
  return std::string(1, size == 1 ? '|' : order) + kind + std::to_string(size);
}

std::string NpyHeader(cairn::DType t, const std::vector<uint64_t>& shape) {
  std::string dict = "{'descr': '" + NpyDescr(t) + "', 'fortran_order': False, 'shape': (";
  for (size_t d = 0; d < shape.size(); d++) dict += (d ? ", " : "") + std::to_string(shape[d]);
  if (shape.size() == 1) dict += ",";
  dict += "), }";
  // magic (6) + version (2) + header length (2) + dict + padding + '\n'.
  size_t total = 10 + dict.size() + 1;
  dict.append((64 - total % 64) % 64, ' ');
  dict += '\n';
  std::string h = "\x93NUMPY";
  h += '\x01';
  h += '\x00';
  h += static_cast<char>(dict.size() & 0xff);
  h += static_cast<char>(dict.size() >> 8);
  return h + dict;
}

}  // namespace cairn_tool
