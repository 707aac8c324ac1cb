#include "format/subfile_header.h"

#include <cstring>

#include "format/checksum.h"
#include "format/coding.h"

namespace cairn {

std::string EncodeSubfileHeader(const SubfileHeader& h) {
  std::string out(kSubfileMagic, 8);
  PutFixed32(&out, h.version);
  PutFixed32(&out, h.subfile_id);
  std::string id = h.store_id;
  id.resize(16, '\0');
  out += id;
  PutFixed64(&out, 0);  // reserved
  PutFixed64(&out, Checksum(out));
  return out;
}

Status DecodeSubfileHeader(std::string_view in, SubfileHeader* h) {
  if (in.size() < kSubfileHeaderSize) return Status::Corruption("data file header truncated");
  if (std::memcmp(in.data(), kSubfileMagic, 8) != 0)
    return Status::Corruption("data file has a bad magic number (not a cairn data file)");
  h->version = DecodeFixed32(in.data() + 8);
  if (h->version > kSubfileFormatVersion)
    return Status::NotSupported("data file format version " + std::to_string(h->version) +
                                " is newer than this cairn supports (" +
                                std::to_string(kSubfileFormatVersion) + ")");
  if (DecodeFixed64(in.data() + 40) != Checksum(in.data(), 40))
    return Status::Corruption("data file header checksum mismatch");
  h->subfile_id = DecodeFixed32(in.data() + 12);
  h->store_id.assign(in.data() + 16, 16);
  return Status::OK();
}

}  // namespace cairn
