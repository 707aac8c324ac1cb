// Encoding of the manifest: a file header followed by an append-only log of
// checksummed records. A revision exists once its record is durable.
// Byte layout: doc/format.md, "The manifest".
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "cairn/status.h"

namespace cairn {

constexpr char kManifestMagic[8] = {'C', 'A', 'I', 'R', 'N', 'M', 'A', 'N'};
constexpr uint32_t kManifestFormatVersion = 1;
constexpr size_t kManifestHeaderSize = 64;
// Record framing: u32 payload length, u32 type, payload, u64 checksum.
constexpr size_t kRecordOverhead = 16;
// No record may claim more than this payload (a sanity bound against a
// corrupt length field; 1 GiB fits 22 million ranks).
constexpr uint32_t kMaxRecordPayload = 1u << 30;

enum class RecordType : uint32_t {
  kRevision = 1,
};

struct ManifestHeader {
  uint32_t version = kManifestFormatVersion;
  std::string store_id;  // 16 random bytes, also in every data file header
  uint64_t created_ns = 0;
};

// Where one namespace's index table of a revision lies, and what it holds.
struct NamespaceDesc {
  uint32_t subfile = 0;
  uint64_t offset = 0;
  uint64_t length = 0;    // 0: empty namespace, no table written
  uint64_t checksum = 0;  // XXH3-64 of the table bytes
  uint64_t objects = 0;
  uint64_t value_bytes = 0;
};
constexpr size_t kNamespaceDescSize = 48;

struct RevisionRecord {
  uint64_t revision = 0;
  uint64_t parent = 0;
  uint64_t time_ns = 0;
  uint32_t nranks = 0;
  // Per data file id: the end of the highest extent allocated so far. New
  // extents are allocated above it, so committed data is never overwritten.
  std::vector<uint64_t> high_water;
  // nranks + 1 entries: ranks 0..nranks-1, then the shared namespace.
  std::vector<NamespaceDesc> namespaces;

  const NamespaceDesc& shared() const { return namespaces.back(); }
};

std::string EncodeManifestHeader(const ManifestHeader& h);
Status DecodeManifestHeader(std::string_view in, ManifestHeader* h);

std::string EncodeRevisionPayload(const RevisionRecord& r);
Status DecodeRevisionPayload(std::string_view payload, RevisionRecord* r);

// Frames a payload as a record: length, type, payload, checksum.
std::string FrameRecord(RecordType type, std::string_view payload);

// The result of parsing a whole manifest file.
struct ParsedManifest {
  ManifestHeader header;
  std::vector<RevisionRecord> revisions;  // in file order
  uint64_t valid_end = 0;   // end of the last intact record
  uint64_t torn_bytes = 0;  // bytes after valid_end (a torn final append)
  // The bytes after valid_end hold a whole record (its length fits in the
  // file, the bytes are not all zero) whose checksum fails: it cannot be
  // told from a damaged committed record, so writers must not cut it.
  bool damaged_tail = false;
};
// Parses a manifest. A damaged final record (a torn append after a crash) is
// reported through torn_bytes, not as an error; a damaged record followed by
// intact ones is Corruption.
Status ParseManifest(std::string_view file, ParsedManifest* out);

}  // namespace cairn
