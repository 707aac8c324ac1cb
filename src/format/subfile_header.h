// The header at offset 0 of every data file ("subfile") data.<id>.
// Layout (48 bytes, rest of the first 4 KiB zero): doc/format.md, "Data files".
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "cairn/status.h"

namespace cairn {

constexpr char kSubfileMagic[8] = {'C', 'A', 'I', 'R', 'N', 'D', 'A', 'T'};
constexpr uint32_t kSubfileFormatVersion = 1;
constexpr size_t kSubfileHeaderSize = 48;
// Bytes reserved for the header; the first data extent starts at an
// extent-aligned offset at or after this.
constexpr uint64_t kSubfileHeaderReserve = 4096;

struct SubfileHeader {
  uint32_t version = kSubfileFormatVersion;
  uint32_t subfile_id = 0;
  std::string store_id;  // 16 bytes, equal to the manifest's
};

std::string EncodeSubfileHeader(const SubfileHeader& h);
Status DecodeSubfileHeader(std::string_view in, SubfileHeader* h);

}  // namespace cairn
