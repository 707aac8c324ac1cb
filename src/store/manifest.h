// The manifest file of a store, as rank 0 uses it: create, load, and append
// revision records durably. Only rank 0 ever opens it.
#pragma once

#include <memory>
#include <string>

#include "format/manifest_format.h"
#include "io/file.h"

namespace cairn {

constexpr char kManifestName[] = "MANIFEST";

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
  // is rewritten as version 2 first, under the same fsync.
  Status AppendRevision(const RevisionRecord& r, bool sync);
  // Appends a drop, pin or unpin record for revision `rev` and fsyncs it,
  // after checking it against the log (InvalidArgument for a revision that
  // is not retained, or a drop of a pinned one). Same failure handling.
  Status AppendMark(RecordType type, uint64_t rev, bool sync);

 private:
  // Writes a framed record at the end, syncs, cuts back on failure.
  Status AppendFramed(const std::string& rec, uint64_t rev, bool sync);

  std::unique_ptr<File> file_;
  ParsedManifest parsed_;
};

// A fresh random 16-byte store id.
std::string NewStoreId();

}  // namespace cairn
