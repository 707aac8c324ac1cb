// Inspector: what the command-line tool needs beyond the public API — the
// raw revision record, and a full verification of a revision.
#pragma once

#include <string>
#include <vector>

#include "cairn/store.h"
#include "format/manifest_format.h"

namespace cairn {

struct VerifyReport {
  uint64_t namespaces = 0;  // index tables checked
  uint64_t objects = 0;
  uint64_t chunks = 0;
  uint64_t bytes = 0;       // value bytes read and checked
  // One line per problem found, naming the file, record or object.
  std::vector<std::string> problems;
};

class Inspector {
 public:
  // Store::QueryAll for a rank whose own arguments were refused (the C API:
  // a NULL argument, a bad condition): it takes part in the collective,
  // queries nothing, and every rank fails with "rank R: " + `refused`.
  static Status QueryAllRefused(Store* store, const Status& refused, std::vector<QueryHit>* hits);
  // Store::Pin, Unpin or Drop (`type` kPin, kUnpin, kDrop) for a rank whose
  // revision was refused before the call (the Python package: not a
  // uint64): it takes part, nothing is marked, and every rank fails with
  // "rank R: " + `refused`. `refused` must not be OK. Returns that status.
  static Status MarkRevisionRefused(Store* store, RecordType type, const Status& refused);
  // The record of the revision the store is open at.
  static const RevisionRecord& Record(const Store& store);
  // The store directory.
  static const std::string& Path(const Store& store);
  // Reads every index table and every value chunk of the open revision and
  // checks every checksum, plus the headers of the manifest and data files.
  // Problems go into report->problems; the status is an error only when the
  // check itself could not run.
  static Status Verify(Store* store, VerifyReport* report);
  // This rank's own namespace: the bytes its pending (uncommitted) state
  // holds, and the bytes of the pending entries themselves.
  static void PendingBytes(const Store& store, uint64_t* held, uint64_t* live);
  // Test seam: lowers the pending-change limit of this rank's own and
  // shared namespaces to 2^(bits-1) - 1 (NamespaceState::LimitIndexBitsForTest).
  static void LimitPendingForTest(Store* store, unsigned index_bits);
  // Global array `name` of the revision in view: the size of its
  // descriptor as encoded (the value the revision stores), and the memory
  // its decoded descriptor and overlap index take on this rank (as the
  // handle's descriptor cache accounts them).
  static Status ArrayFootprint(Store* store, std::string_view name, uint64_t* descriptor_bytes,
                               uint64_t* memory_bytes);
};

}  // namespace cairn
