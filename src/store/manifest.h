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
  // Appends a revision record and fsyncs it (if sync). On failure the file
  // is cut back to its previous end, so a failed append is never visible.
  Status AppendRevision(const RevisionRecord& r, bool sync);

 private:
  std::unique_ptr<File> file_;
  ParsedManifest parsed_;
};

// A fresh random 16-byte store id.
std::string NewStoreId();

}  // namespace cairn
