// Encoding of the manifest: a file header followed by an append-only log of
// checksummed records. A revision exists once its record is durable.
// Byte layout: doc/format.md, "The manifest".
#pragma once

#include <cstdint>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "cairn/status.h"

namespace cairn {

constexpr char kManifestMagic[8] = {'C', 'A', 'I', 'R', 'N', 'M', 'A', 'N'};
// Version 2 added the retention records (types 2 to 5). Version 1 stores
// are read as they are; a writer rewrites the header to 2 before it appends
// its first version-2 record.
constexpr uint32_t kManifestFormatVersion = 2;
constexpr size_t kManifestHeaderSize = 64;
// Record framing: u32 payload length, u32 type, payload, u64 checksum.
constexpr size_t kRecordOverhead = 16;
// No record may claim more than this payload (a sanity bound against a
// corrupt length field; 1 GiB fits 22 million ranks).
constexpr uint32_t kMaxRecordPayload = 1u << 30;

enum class RecordType : uint32_t {
  kRevision = 1,       // version 1: a revision, no space information
  kRevisionSpace = 2,  // a revision, the extents it needs, the revisions it expires
  kDrop = 3,           // removes one revision
  kPin = 4,            // protects one revision from expiry and drop
  kUnpin = 5,          // lifts a pin
};

// Bytes [start, start + length) of data file `file`.
struct ExtentRange {
  uint32_t file = 0;
  uint64_t start = 0;
  uint64_t length = 0;
  bool operator==(const ExtentRange& o) const {
    return file == o.file && start == o.start && length == o.length;
  }
};

struct ManifestHeader {
  uint32_t version = kManifestFormatVersion;
  std::string store_id;  // 16 random bytes, also in every data file header
  uint64_t created_ns = 0;
  // Header flag bit 0 (offset 40): a revision record of this log was once
  // durable. Set by the writer after its first synced revision record (and
  // kept by compaction and repair), so that a log with no intact record
  // after it is damage (Corruption), not a store whose first commit never
  // completed. Unset in stores made before the flag: the first commit of
  // a newer writer sets it.
  bool committed = false;
};
constexpr uint32_t kManifestFlagCommitted = 1;

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

  // Type-2 records only (live_known): the extent-aligned ranges of the data
  // files that this revision's tables and chunks lie in, sorted by (file,
  // start) and disjoint. A type-1 record may reference anything below its
  // high-water marks.
  bool live_known = false;
  uint64_t extent_size = 0;  // the writer's Options::extent_size (informational)
  std::vector<ExtentRange> live;
  // Type-2 records only: older revisions this commit removes (keep_revisions),
  // ascending.
  std::vector<uint64_t> expires;
  // Not encoded: the bytes of the record this was parsed from (framing
  // included), for the manifest's dead-byte count; 0 if not parsed.
  uint64_t record_bytes = 0;
};

std::string EncodeManifestHeader(const ManifestHeader& h);
Status DecodeManifestHeader(std::string_view in, ManifestHeader* h);

std::string EncodeRevisionPayload(const RevisionRecord& r);
Status DecodeRevisionPayload(std::string_view payload, RevisionRecord* r);

// A type-2 record's payload: the type-1 payload, live ranges, expired list.
std::string EncodeRevisionSpacePayload(const RevisionRecord& r);
Status DecodeRevisionSpacePayload(std::string_view payload, RevisionRecord* r);
// Payload of a drop, pin or unpin record: the revision number.
std::string EncodeMarkPayload(uint64_t revision);

// Frames a payload as a record: length, type, payload, checksum.
std::string FrameRecord(RecordType type, std::string_view payload);

// A damaged stretch of the manifest with an intact record after it: bytes
// [offset, offset + length) were skipped. The lost record(s) held a revision
// numbered strictly between prev_revision and next_revision (the revision
// records around it; next_revision 0: none after), or drop/pin/unpin records.
struct DamagedRange {
  uint64_t offset = 0;
  uint64_t length = 0;
  uint64_t prev_revision = 0;
  uint64_t next_revision = 0;
};

// The result of parsing a whole manifest file.
struct ParsedManifest {
  ManifestHeader header;
  // The retained revision records, in file order. A record leaves this
  // list when its revision is dropped or expired, so what a commit looks at
  // depends on the retained set, not on the length of the history.
  std::vector<RevisionRecord> revisions;
  // The newest revision record of the log when it was dropped (at most
  // one): kept so that a rebuilt manifest (compaction, repair) still holds
  // the highest revision number and revision numbers keep increasing.
  std::vector<RevisionRecord> dropped_newest;
  uint64_t last_revision = 0;        // the newest revision number of the log, retained or not
  std::vector<uint64_t> high_water;  // per data file: the highest mark of any record of the log
  // Revisions removed by the drop records and expiry lists of this file
  // (a compacted manifest no longer names the ones it left out).
  std::set<uint64_t> dropped;
  std::set<uint64_t> pinned;   // pinned now (pins minus unpins)
  // End of the last intact record. When ParseManifest fails on an intact
  // record that contradicts the log, that record's offset (the log before
  // it is consistent).
  uint64_t valid_end = 0;
  uint64_t torn_bytes = 0;  // bytes after valid_end (a torn final append)
  // The bytes after valid_end hold a whole record (its length fits in the
  // file, the bytes are not all zero) whose checksum fails: it cannot be
  // told from a damaged committed record, so writers must not cut it.
  bool damaged_tail = false;
  // Damaged records followed by intact ones, in file order. They are
  // skipped: the log goes on at the next intact record (doc/format.md,
  // "Damaged records"). Writers refuse a manifest with any (`cairn repair`).
  std::vector<DamagedRange> damaged;
  // Retained revisions whose record lies before a damaged one (between
  // intact ones, or a damaged final record): the lost record may have
  // expired, dropped or pinned them. Their data may have been reused;
  // reads still check every checksum.
  std::set<uint64_t> doubtful;
  // Set with ParseManifest's Corruption when the header's committed flag is
  // set yet no revision record is intact: nothing of the log survives to
  // rebuild it from (`cairn repair` says so and writes nothing).
  bool committed_without_record = false;

  // Whether anything was damaged (not counting a torn final append).
  bool has_damage() const { return damaged_tail || !damaged.empty(); }
};
// Parses a manifest. A damaged final record (a torn append after a crash) is
// reported through torn_bytes and damaged_tail, not as an error; damaged
// records followed by intact ones are skipped and listed in `damaged`.
Status ParseManifest(std::string_view file, ParsedManifest* out);
// Applies one intact record to *out, checking it against what came before
// (revision numbers increase; drops, pins and unpins name a revision of
// the log that is not dropped; nothing pinned is dropped). Used by
// ParseManifest and by the writer after each append, so both agree.
// After a damaged record (out->damaged not empty) the checks that a lost
// record can explain are relaxed: a drop, expiry, pin or unpin of a revision
// that is not retained is ignored, and a drop or expiry of a pinned
// revision lifts the pin (the lost record was its unpin).
Status ApplyRecord(uint32_t type, std::string_view payload, ParsedManifest* out);

// A whole manifest holding only what `m`'s retained set needs: the header
// (as version 2), every retained revision record without its expiry list,
// the newest revision's record followed by its drop when it is not retained
// (so the next revision number still follows it), and a pin record for
// each revision of `pins`. The newest record carries m.high_water. Used by
// compaction (src/store/manifest.cc) and `cairn repair`.
std::string EncodeRetainedManifest(const ParsedManifest& m, const std::set<uint64_t>& pins);
// Bytes of `m`'s file that EncodeRetainedManifest would leave out (a lower
// bound: expiry lists, which it also drops, count as live). O(retained
// revisions).
uint64_t ManifestDeadBytes(const ParsedManifest& m);

}  // namespace cairn
