#include "store/repair.h"

#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <algorithm>
#include <cstring>
#include <ctime>
#include <memory>
#include <set>
#include <string_view>

#include "io/file.h"
#include "store/crash_point.h"
#include "store/manifest.h"
#include "store/writer_lock.h"

namespace cairn {

namespace {
// Writes `bytes` as a new file `path` (replacing one left by an earlier
// run) and fsyncs it; the open file is left in *out. Crash points (tests):
// `torn` after half the bytes are written, `unsynced` before the fsync.
Status WriteSynced(const std::string& path, const std::string& bytes, IoStats* stats, const char* torn,
                   const char* unsynced, std::unique_ptr<File>* out) {
  ::unlink(path.c_str());
  std::unique_ptr<File>& f = *out;
  Status s = File::Open(path, File::kCreate, stats, &f);
  if (s.ok()) s = f->Truncate(0);
  if (s.ok() && CrashPointArmed(torn, 0)) {
    f->PWrite(0, bytes.data(), bytes.size() / 2);
    CrashPoint(torn, 0);
  }
  if (s.ok()) s = f->PWrite(0, bytes.data(), bytes.size());
  if (s.ok()) CrashPoint(unsynced, 0);
  if (s.ok()) s = f->Sync();
  return s.ok() ? s : s.WithContext("writing " + path);
}

std::string UtcStamp() {
  std::time_t t = std::time(nullptr);
  std::tm tm;
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y%m%dT%H%M%SZ", &tm);
  return buf;
}
// The header's committed flag is set (a revision record was once durable)
// but no revision record is intact: there is nothing to rebuild a log
// from, and an empty log would read as a store that never committed.
Status NothingToRebuild(const std::string& path, uint64_t size) {
  return Status::Corruption(
      path + " is damaged beyond what repair can fix: its header says a revision was committed (the "
      "'committed' flag, set once the first revision record was durable), but no revision record after the "
      "header is intact (" + std::to_string(size) + " bytes in the file, records from offset " +
      std::to_string(kManifestHeaderSize) + "); the log was cut or damaged inside its first record. Nothing "
      "can be recovered automatically: without a revision record nothing says which bytes of the data files "
      "make up a revision. Nothing was written: MANIFEST and the data files are left untouched. Restore "
      "MANIFEST from a backup or copy of this store if there is one; otherwise keep this directory as it is "
      "for inspection and write new checkpoints to a new store (writable opens of this one are refused)");
}

// ParseManifest failed for another reason than damage it can skip. Either
// the header itself is damaged or not a cairn header (repair keeps the
// header, so it cannot help), or an intact record contradicts the log (its
// checksum matches, so it was written that way: by another format
// version's writer, or a bug), and repair cannot tell which revisions to
// keep; every open stops at that record, and the log before it is
// consistent. Says which, what the user can do, and that nothing was
// written.
Status Unrepairable(const Status& s, std::string_view file, const ParsedManifest& pm,
                    const std::string& path, const std::string& dir) {
  if (s.IsNotSupported()) return s.WithContext(path);
  ManifestHeader h;
  std::string why;
  if (!DecodeManifestHeader(file, &h).ok()) {
    why = "its header is damaged or not a cairn header, and repair rewrites the log's records, not its "
          "header. Nothing was written. Restore MANIFEST from a backup or copy of this store if there is one";
  } else {
    std::string at = std::to_string(pm.valid_end);
    why = "that record is intact (its checksum matches), so it was written that way, not damaged; repair "
          "rebuilds a log from intact records and cannot tell which revisions to keep. Nothing was written. "
          "Every open of this store stops at that record. The revisions committed before it can be read (every "
          "byte still verified) from a copy whose MANIFEST ends there: cp -a " + dir + " COPY && truncate -s " + at +
          " COPY/MANIFEST. Keep this directory as it is and report it";
  }
  return Status(s.code(), path + ": " + s.message() + ". Repair cannot fix this: " + why);
}
}  // namespace

Status RepairManifest(const std::string& dir, RepairReport* report) {
  *report = RepairReport();
  // The writer lock, held until the new manifest is in place: while a job
  // has the store open for writing, its rank 0 would keep appending at its
  // own end of the old file, so repair refuses, naming the holder.
  IoStats stats;
  std::string path = dir + "/" + kManifestName;
  bool is_dir = false;
  if (!PathExists(path, &stats, &is_dir) || is_dir)  // checked first: the lock would create LOCK
    return Status::NotFound("no cairn store at " + dir + " (no MANIFEST)");
  std::unique_ptr<WriterLock> lock;
  Status ls = WriterLock::Acquire(dir, true, &stats, &lock);
  if (!ls.ok()) return ls.WithContext("cairn repair");
  std::unique_ptr<File> f;
  Status s = File::Open(path, File::kReadOnly, &stats, &f);
  if (!s.ok()) {
    bool is_dir = false;
    if (!PathExists(path, &stats, &is_dir)) return Status::NotFound("no cairn store at " + dir + " (no MANIFEST)");
    return s;
  }
  uint64_t size = 0;
  s = f->Size(&size);
  std::string old(size, '\0');
  if (s.ok()) s = f->PRead(0, old.data(), size);
  if (!s.ok()) return s.WithContext(path);
  f.reset();
  ParsedManifest pm;
  s = ParseManifest(old, &pm);
  if (!s.ok() && pm.committed_without_record) return NothingToRebuild(path, old.size());
  if (!s.ok()) return Unrepairable(s, old, pm, path, dir);
  for (const RevisionRecord& r : pm.revisions)
    if (!pm.dropped.count(r.revision)) report->retained.push_back(r.revision);
  if (!pm.has_damage() && pm.torn_bytes == 0) return Status::OK();
  report->dropped = pm.damaged;
  report->tail_offset = pm.torn_bytes ? pm.valid_end : 0;
  report->tail_bytes = pm.torn_bytes;
  report->tail_damaged = pm.damaged_tail;

  // The new log: what the retained set needs (the same as a compaction
  // writes), with the doubtful revisions pinned.
  std::set<uint64_t> pins = pm.pinned;
  for (uint64_t v : pm.doubtful)
    if (pins.insert(v).second) report->pinned_doubtful.push_back(v);
  // A lost record above every intact revision record may have been a
  // committed revision that a reader saw: its number must not name the next
  // commit. Revisions are numbered one after the log's newest, so a damaged
  // final record held at most newest + 1, and a damaged stretch with no
  // revision record after it at most one revision per 24 bytes (the
  // smallest record). The highest such number goes into the new log as a
  // dropped revision (the form compaction keeps for a dropped newest).
  uint64_t floor = pm.last_revision + (pm.damaged_tail ? 1 : 0);
  for (const DamagedRange& d : pm.damaged)
    if (d.next_revision == 0) floor = std::max(floor, d.prev_revision + d.length / (kRecordOverhead + 8));
  if (floor > pm.last_revision) {
    RevisionRecord ph;
    ph.revision = floor;
    ph.parent = pm.last_revision;
    ph.nranks = 0;
    ph.namespaces.assign(1, NamespaceDesc{});  // the shared namespace only, empty
    ph.high_water = pm.high_water;
    ph.live_known = true;
    pm.dropped_newest.assign(1, ph);
    pm.last_revision = floor;
    report->reserved_revision = floor;
  }
  std::string out = EncodeRetainedManifest(pm, pins);

  // It must read back clean, with the same revisions retained.
  ParsedManifest check;
  s = ParseManifest(out, &check);
  std::vector<uint64_t> kept;
  for (const RevisionRecord& r : check.revisions) kept.push_back(r.revision);
  if (s.ok() && (check.has_damage() || check.torn_bytes || check.pinned != pins || kept != report->retained ||
                 check.last_revision != pm.last_revision))
    s = Status::Corruption("the rebuilt manifest does not read back as built");
  if (!s.ok()) return s.WithContext("repair bug: not writing " + path);

  // Keep the original, durably, before replacing it: written under a
  // temporary name and renamed, so that a MANIFEST.damaged-* copy is always
  // whole (a repair killed while copying leaves only the temporary file),
  // and its directory entry synced before MANIFEST is replaced.
  std::string backup_tmp = path + ".repair-copy-tmp";  // not MANIFEST.damaged-*: never taken for a copy
  std::string backup_name = path + ".damaged-" + UtcStamp();
  for (int i = 1; PathExists(backup_name, &stats, nullptr); i++)
    backup_name = path + ".damaged-" + UtcStamp() + "-" + std::to_string(i);
  std::unique_ptr<File> backup;
  s = WriteSynced(backup_tmp, old, &stats, "repair_torn_backup", "repair_unsynced_backup", &backup);
  if (s.ok()) s = backup->Rename(backup_name);
  if (s.ok()) s = SyncDir(dir, &stats);
  backup.reset();
  if (!s.ok()) {
    ::unlink(backup_tmp.c_str());  // no partial copy left behind; MANIFEST is untouched
    return s.WithContext("keeping a copy of " + path);
  }
  report->backup = backup_name;
  std::string tmp = path + ".repair-tmp";
  std::unique_ptr<File> nf;
  s = WriteSynced(tmp, out, &stats, "repair_torn_tmp", "repair_unsynced_tmp", &nf);
  if (!s.ok()) return s;
  CrashPoint("repair_before_rename", 0);
  s = nf->Rename(path);  // through File, so counted (and journaled by power-loss tests)
  if (!s.ok()) return s;
  CrashPoint("repair_after_rename", 0);
  s = SyncDir(dir, &stats);
  if (!s.ok()) return s.WithContext("the manifest was replaced but the directory sync failed");
  CrashPoint("repair_after_dir_sync", 0);
  report->changed = true;
  return Status::OK();
}

}  // namespace cairn
