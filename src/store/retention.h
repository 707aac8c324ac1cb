// Retention and space reuse: which extents each revision needs, which
// revisions a commit expires (Options::keep_revisions), pins and drops, and
// the free extents handed back to the writers. The design is in
// doc/design.md ("Retention and space reuse"); the records in doc/format.md.
//
// Commit calls into this file at four points (see Store::Commit):
//   every rank  RankSpaceReport         -> sent with its commit report
//   rank 0      PlanRevisionSpace       -> fills the record's live list and expiry
//   rank 0      FinishCommitSpace       -> after the record is durable: free lists
//   every rank  ApplyCommitSpace        -> installs its share, updates the list
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "cairn/store.h"
#include "format/manifest_format.h"
#include "store/commit_tables.h"

namespace cairn {

// Sorts ranges by (file, start) and merges overlapping or touching ones.
void NormalizeRanges(std::vector<ExtentRange>* ranges);
// Adds [offset, offset + length) of `file`, widened to whole extents of
// `extent` bytes (a power of two). Call NormalizeRanges afterwards.
void AddExtentRange(std::vector<ExtentRange>* ranges, uint32_t file, uint64_t offset,
                    uint64_t length, uint64_t extent);
// a minus b; both normalized. The result is normalized.
std::vector<ExtentRange> SubtractRanges(const std::vector<ExtentRange>& a,
                                        const std::vector<ExtentRange>& b);
// Total bytes of normalized ranges.
uint64_t RangeBytes(const std::vector<ExtentRange>& ranges);
// Adds the extents holding every chunk of every entry of the encoded index
// table `table` (as built by MakeNextTable) to *out.
Status AddTableChunkExtents(std::string_view table, uint64_t extent, std::vector<ExtentRange>* out);
// The same for a commit's next table, built, reused or streamed; a table
// known to hold no chunked value is not walked.
Status AddNextTableChunkExtents(const NextTable& t, uint64_t extent, std::vector<ExtentRange>* out);

// The extents still needed by the retained (not dropped) revisions of a
// parsed manifest, normalized. A revision without a live list (a version-1
// record) needs everything below its high-water marks.
std::vector<ExtentRange> RetainedExtents(const ParsedManifest& m);
// The free, reusable extents: per data file, the extents from the first one
// (at or above the header reserve) up to the highest high-water mark of the
// log, minus `used`; trimmed inward to multiples of `extent`.
std::vector<ExtentRange> FreeExtents(const ParsedManifest& m, const std::vector<ExtentRange>& used,
                                     uint64_t extent);

// Revisions to expire when `new_revision` is committed with keep = K
// (0: none): every retained, unpinned revision older than the K newest
// retained ones, counting the new one. Ascending.
std::vector<uint64_t> RevisionsToExpire(const ParsedManifest& m, uint64_t new_revision, uint64_t keep);

// --- Commit hooks (see the top of this file) ---

// Every rank: what it tells rank 0 about space at commit. `table` is its
// new index table (its chunks' extents are what the revision needs from
// this rank); the writer's current run is held (it keeps writing there),
// and so are the chunks of the rank's open streams (stream_hub.h).
// With `hold_free` (asynchronous commits) the rank's untaken free list is
// held too: it may take from it while the commit is in flight, so the
// commit must not hand any of it to another rank.
std::string RankSpaceReport(Store::Rep* r, const NextTable& table, bool hold_free = false);

// What rank 0 keeps between planning and finishing a commit's space.
struct SpacePlan {
  std::vector<uint32_t> subfile;   // per rank: its data file
  std::vector<uint64_t> weight;    // per rank: bytes of runs it took since the last commit
  std::vector<ExtentRange> held;   // runs the writers are filling
  // per rank: bytes of its free list it keeps through an asynchronous
  // commit (hold_free), counted against its share of the new free list
  std::vector<uint64_t> kept;
};
// Rank 0, before the record is appended: decodes the ranks' reports and
// sets rec->live (their chunks, every table of rec and the shared
// namespace's chunks in `shared_table`) and rec->expires.
Status PlanRevisionSpace(Store::Rep* r, const std::vector<std::string>& reports,
                         const NextTable& shared_table, RevisionRecord* rec, SpacePlan* plan);
// Rank 0, for an asynchronous commit that expires its parent (the revision
// every rank's view shows until it has seen the commit finish, and whose
// other namespaces it may read meanwhile): the parent's extents go into
// plan->held, so that a rank finished early does not overwrite them before
// the others have finished too. They are free from the next commit on.
void HoldExpiringParent(Store::Rep* r, const RevisionRecord& rec, SpacePlan* plan);
// Rank 0, after the record is durable: the expired list and each rank's
// share of the free extents, to broadcast with the commit outcome.
std::string FinishCommitSpace(Store::Rep* r, const RevisionRecord& rec, const SpacePlan& plan);
// Every rank, after a successful commit: drops expired revisions from its
// list and gives its writer its share of free extents (added to what is
// left of its own list with `keep_free`, the counterpart of hold_free).
Status ApplyCommitSpace(Store::Rep* r, std::string_view section, bool keep_free = false);

// --- Open ---

// Collective, writable opens, after the writers exist: rank 0 computes the
// free extents from the manifest; each rank's writer gets an equal share of
// its data file's list (split by its rank among the file's ranks).
Status InitSpaceAtOpen(Store::Rep* r);

// --- Pin, unpin, drop ---

// Collective: rank 0 appends a pin, unpin or drop record for `rev`; every
// rank returns the same status and updates its revision list.
// `refused` (not OK): this rank's own argument was refused before the call
// (the Python package: a revision that is not a uint64); it takes part, and
// every rank fails with "rank R: " + `refused` (R the lowest such rank).
Status MarkRevision(Store::Rep* r, RecordType type, uint64_t rev, const Status& refused = Status::OK());
// Single process, no MPI: appends a pin, unpin or drop record to the store
// at `path` (what `cairn drop/pin/unpin` do), holding the store's writer
// lock meanwhile: while a job has the store open for writing it fails with
// "store ... is open for writing by ..." and writes nothing.
Status MarkRevisionAt(const std::string& path, RecordType type, uint64_t rev);

// Space of a store on disk, as `cairn space` shows it.
struct SpaceInfo {
  struct File {
    uint32_t id = 0;
    uint64_t logical_bytes = 0;   // file size
    uint64_t disk_bytes = 0;      // blocks allocated on disk
    uint64_t high_water = 0;      // highest allocation recorded in the log
    uint64_t referenced = 0;      // extents needed by retained revisions
    uint64_t reclaimable = 0;     // extents below high water that no retained revision needs
  };
  std::vector<File> files;
  uint64_t manifest_bytes = 0;
  uint64_t retained = 0, pinned = 0, dropped = 0;  // revision counts
  uint64_t unknown_extents = 0;  // retained version-1 revisions (extents unknown: all counted)
};
// Reads the manifest and stats the data files of the store at `path`.
Status ComputeSpace(const std::string& path, SpaceInfo* info);
// The retained revisions as the manifest of the store at `path` lists them
// (what Store::ListRevisions gives), read without opening a revision: for
// the tool when the newest revision cannot be opened (its rank-0 index
// table damaged) but the manifest and older revisions are intact.
Status ListRevisionsAt(const std::string& path, std::vector<RevisionInfo>* out);

}  // namespace cairn
