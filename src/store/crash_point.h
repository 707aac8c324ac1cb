// Crash points for tests: when the environment variable CAIRN_CRASH_POINT
// names a point (and CAIRN_CRASH_RANK is unset or names this rank), the
// process kills itself with SIGKILL there, as a kill -9 would. Used by the
// crash tests to stop a commit at each of its steps; costs one getenv per
// commit step otherwise.
#pragma once

namespace cairn {

// Points in Commit, in order: "before_flush" (data partly buffered),
// "after_flush" (data written, not synced), "before_manifest" (data synced,
// no record yet), "torn_manifest" (half the record written), and
// "after_manifest" (committed, not yet acknowledged). In RepairManifest
// (rank 0, the one process), in order: "repair_torn_backup" (half the copy
// of the original written), "repair_unsynced_backup" (written, not synced),
// "repair_torn_tmp" (half the new manifest written to its temporary file),
// "repair_unsynced_tmp" (written, not synced), "repair_before_rename"
// (synced), "repair_after_rename" (renamed over MANIFEST, the directory not
// synced) and "repair_after_dir_sync" (done, not yet reported). In a
// manifest compaction (rank 0, after the record that set it off is
// durable), in order: "compact_torn_tmp" (half the new manifest written to
// MANIFEST.compact-tmp), "compact_before_rename" (written and synced),
// "compact_after_rename" (renamed over MANIFEST, the directory not synced)
// and "compact_after_dir_sync" (done, the commit not yet reported).
void CrashPoint(const char* point, int rank);
// Whether CrashPoint(point, rank) would kill the process.
bool CrashPointArmed(const char* point, int rank);
// For tests of write ordering: when CAIRN_TEST_FSYNC_DELAY_MS is set, a
// data fsync of a rank other than 0 sleeps that long before it syncs: the
// asynchronous commit's fsync job, the synchronous commit's fsync (of each
// rank, or of each data file's leader) and Flush's. Rank 0's own fsync
// precedes its record in its own thread of control anyway. A commit step
// that did not wait for the other ranks' fsyncs would then be seen
// appending the record before them. Read once.
void TestFsyncDelay(int rank);
// For tests of running out of memory at one point of a collective call,
// which a real memory limit cannot single out: when CAIRN_TEST_BAD_ALLOC_POINT
// names `point` (and CAIRN_TEST_BAD_ALLOC_RANK is unset or names `rank`),
// throws std::bad_alloc there, as an allocation would. Points:
// "manifest_append" (rank 0's append of a commit's revision record, before
// anything is written); and on a rank that receives a broadcast from rank
// 0, its allocation for the bytes (Comm::Bcast): "commit_plan",
// "commit_outcome", "query_union" (QueryAll), "shared_table" (the shared
// table at a writable open), "free_extents" (at a writable open),
// "array_outcome" (the array step's reply); "scatter" (Comm::ScatterSized:
// a read-only open's tables); in a commit's array step, "array_round" (a
// rank's round) and "array_combine" (rank 0's descriptors). One getenv per
// call otherwise.
void TestBadAllocPoint(const char* point, int rank);

}  // namespace cairn
