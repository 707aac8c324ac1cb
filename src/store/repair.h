// `cairn repair`: rewrites a store's manifest without its damaged records,
// keeping the original beside it. Single process, no MPI; the store must
// not be open for writing while it runs. Design: doc/design.md ("Damaged
// manifest records and `cairn repair`"); the skip rule: doc/format.md.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "cairn/status.h"
#include "format/manifest_format.h"

namespace cairn {

struct RepairReport {
  bool changed = false;                 // false: nothing was damaged, nothing written
  std::string backup;                   // the copy of the original manifest
  std::vector<DamagedRange> dropped;    // damaged records between intact ones, left out
  uint64_t tail_offset = 0;             // a damaged or torn final record, left out:
  uint64_t tail_bytes = 0;              //   its offset and length (0: none)
  bool tail_damaged = false;            //   complete but damaged (else an unfinished append)
  std::vector<uint64_t> retained;       // revisions retained by the new manifest
  // Retained revisions recorded before a damaged record, which may have
  // pinned them: pinned in the new manifest, so no commit expires them
  // before someone has looked (`cairn verify --all`, then `cairn unpin`).
  std::vector<uint64_t> pinned_doubtful;
  // The highest revision number a lost record may have held, when above
  // every intact record's (0: none): the new manifest names it as a dropped
  // revision, so the next commit is numbered after it and no number ever
  // names two states.
  uint64_t reserved_revision = 0;
};

// Reads dir/MANIFEST (skipping damaged records as readers do), and if
// anything is damaged: copies it to dir/MANIFEST.damaged-<UTC time>
// (written as MANIFEST.repair-copy-tmp, fsynced, renamed, the directory
// fsynced: a copy under that name is always whole and durable before
// MANIFEST changes), then writes a manifest of the intact records atomically
// (MANIFEST.repair-tmp, fsync, rename over MANIFEST, directory fsync). The new log is what a
// compaction writes (EncodeRetainedManifest): the retained revision records
// (expiry lists left out), the newest record and its drop if the newest was
// removed, and a pin for each pinned or doubtful one, so the retained set is
// the one readers saw. A lost record that may have held a revision numbered
// above every intact one (a damaged final record, or damage with no intact
// revision record after it) is replaced by a dropped placeholder of the
// highest number it may have held, so that number is never reused. A damaged
// header is not repaired (Corruption), nor a log whose header has the
// committed flag but no intact revision record (Corruption saying that
// nothing can be recovered automatically and nothing was written).
Status RepairManifest(const std::string& dir, RepairReport* report);

}  // namespace cairn
