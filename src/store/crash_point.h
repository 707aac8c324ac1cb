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
// synced) and "repair_after_dir_sync" (done, not yet reported).
void CrashPoint(const char* point, int rank);
// Whether CrashPoint(point, rank) would kill the process.
bool CrashPointArmed(const char* point, int rank);
// For tests of write ordering: when CAIRN_TEST_FSYNC_DELAY_MS is set, the
// asynchronous commit's data fsync job of a rank other than 0 sleeps that
// long before it syncs (rank 0's own queue orders its fsync before its
// record anyway), so that a step not waiting for the fsyncs would be seen
// overtaking them. Read once.
void TestFsyncDelay(int rank);

}  // namespace cairn
