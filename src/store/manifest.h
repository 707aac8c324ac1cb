// The manifest file of a store, as rank 0 uses it: create, load, and append
// revision records durably. Only rank 0 ever opens it.
#pragma once

#include <memory>
#include <string>

#include "format/manifest_format.h"
#include "io/file.h"

namespace cairn {

constexpr char kManifestName[] = "MANIFEST";
// Compaction writes the new manifest here first, then renames it.
constexpr char kManifestCompactTmpName[] = "MANIFEST.compact-tmp";
// Compaction runs when the dead bytes exceed this (64 KiB, or
// CAIRN_MANIFEST_COMPACT_BYTES, for tests) and half the file.
uint64_t ManifestCompactBytes();

class Manifest {
 public:
  // Opens dir/MANIFEST, creating it (with a new store id) if `create` and it
  // does not exist. *created says whether it was made. Parses all records.
  // A torn final record is cut off when `writable` (it was never committed).
  static Status Open(const std::string& dir, bool create, bool writable, IoStats* stats,
                     std::unique_ptr<Manifest>* out, bool* created);

  const ParsedManifest& parsed() const { return parsed_; }
  // Appends a revision record (type 2: with its live extents and expiry
  // list) and fsyncs it (if sync). On failure the file is cut back to its
  // previous end, so a failed append is never visible. A version-1 header
  // is rewritten as version 2 first, under the same fsync. Then, if the
  // dead bytes (records of revisions no longer retained, superseded marks)
  // exceed ManifestCompactBytes() and half the file, compacts it (below);
  // a compaction that fails leaves the old file in use and is not an error
  // of the append (the revision is durable either way).
  Status AppendRevision(const RevisionRecord& r, bool sync);
  // Rewrites the manifest with only what the retained set needs
  // (EncodeRetainedManifest): MANIFEST.compact-tmp is written and fsynced,
  // renamed over MANIFEST, and the directory fsynced; a crash leaves the
  // old or the new file, both whole. Later appends go to the new file.
  // The caller holds the store's writer lock.
  Status Compact();
  // How many compactions this handle made (tests).
  uint64_t compactions() const { return compactions_; }
  // Appends a drop, pin or unpin record for revision `rev` and fsyncs it,
  // after checking it against the log (InvalidArgument for a revision that
  // is not retained, or a drop of a pinned one). Same failure handling.
  Status AppendMark(RecordType type, uint64_t rev, bool sync);
  // Whether the file may hold (part of) the record of the last append: it
  // reached the write and was not cut back. For an append that ended in an
  // exception (out of memory), which says whether it changed the file.
  bool last_append_may_be_in_file() const { return may_be_in_file_; }

 private:
  // Writes a framed record at the end, syncs, cuts back on failure.
  Status AppendFramed(const std::string& rec, uint64_t rev, bool sync);

  std::unique_ptr<File> file_;
  ParsedManifest parsed_;
  std::string dir_;
  IoStats* stats_ = nullptr;
  uint64_t compactions_ = 0;
  // Set when a compaction renamed the file but could not make the rename
  // durable: appending to the new file could then be lost, so every append
  // fails with it.
  Status broken_;
  bool may_be_in_file_ = false;  // see last_append_may_be_in_file
};

// A fresh random 16-byte store id.
std::string NewStoreId();

}  // namespace cairn
