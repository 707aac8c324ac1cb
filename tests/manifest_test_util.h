// Locating the records of a MANIFEST in tests that damage one (repair,
// skip-on-read): offsets, types and the revision each names.
#pragma once

#include <cstdint>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "format/coding.h"
#include "format/manifest_format.h"

namespace cairn::test {

inline std::string Slurp(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(f), {});
}

struct Rec {
  uint64_t offset;
  uint32_t type;
  uint64_t revision;  // of a revision record, or the one a mark names
};
// The records of a manifest, in file order (the file must be intact).
inline std::vector<Rec> Records(const std::string& man) {
  std::vector<Rec> out;
  for (uint64_t off = kManifestHeaderSize; off + kRecordOverhead <= man.size();) {
    uint32_t len = DecodeFixed32(man.data() + off), type = DecodeFixed32(man.data() + off + 4);
    uint64_t rev = DecodeFixed64(man.data() + off + 8 + (type == 2 ? 4 : 0));
    out.push_back(Rec{off, type, rev});
    off += len + kRecordOverhead;
  }
  return out;
}
// The offset of the record of `type` naming revision `rev`.
inline uint64_t RecordOf(const std::vector<Rec>& rs, uint32_t type, uint64_t rev) {
  for (const Rec& r : rs)
    if (r.type == type && r.revision == rev) return r.offset;
  ADD_FAILURE() << "no record of type " << type << " for revision " << rev;
  return 0;
}

}  // namespace cairn::test
