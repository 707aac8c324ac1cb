#include "store/manifest.h"

#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <random>

#include "io/side_task.h"
#include "store/crash_point.h"
#include "store/out_of_memory.h"
#include "store/store_dir.h"

namespace cairn {

std::string NewStoreId() {
  std::random_device rd;
  std::string id(16, '\0');
  for (auto& c : id) c = char(rd());
  return id;
}

Status Manifest::Open(const std::string& dir, bool create, bool writable, IoStats* stats,
                      std::unique_ptr<Manifest>* out, bool* created) {
  auto m = std::make_unique<Manifest>();
  m->dir_ = dir;
  m->stats_ = stats;
  std::string path = dir + "/" + kManifestName;
  *created = false;
  Status s = File::Open(path, create ? File::kCreate : (writable ? File::kReadWrite : File::kReadOnly),
                        stats, &m->file_, created);
  if (!s.ok()) {
    if (!create) {
      bool is_dir = false;
      if (!PathExists(path, stats, &is_dir)) return Status::NotFound("no cairn store at " + dir + " (no MANIFEST)");
    }
    return s;
  }
  uint64_t size = 0;
  if (!*created) {
    s = m->file_->Size(&size);
    if (!s.ok()) return s;
  }
  std::string bytes;
  if (!*created) {
    bytes.resize(size);
    s = m->file_->PRead(0, bytes.data(), size);
    if (!s.ok()) return s;
  }
  // A manifest shorter than its header (a creation cut short), or of zeros
  // only (its size reached the disk before its data, on file systems that
  // allow it): no revision was ever committed, since the first commit's
  // fsync makes the header durable. Anything else in those bytes is not
  // cairn's.
  bool zeros = AllZero(bytes);
  bool never_written = !*created && (size < kManifestHeaderSize || zeros);
  if (never_written && !LooksLikeOurs(bytes, size, kManifestMagic, sizeof kManifestMagic, size))
    return Status::Corruption(path + " (" + std::to_string(size) + " bytes) is not a cairn manifest");
  if (never_written && !writable)
    return Status::NotFound("store at " + dir + " was never completely created (MANIFEST is " +
                            std::to_string(size) + (size < kManifestHeaderSize ? " bytes)" : " bytes of zeros)"));
  if (never_written) {
    // Data files are made only after the header is durable: data beside an
    // incomplete manifest means the manifest was lost, not a creation cut
    // short, and must not be overwritten by a new store.
    s = CheckLeftovers(dir, stats);
    if (!s.ok()) return s;
  }
  if (*created || never_written) {
    // New, or a creation cut short: the header is written and synced, with
    // the directory entry, before any data file exists (CheckLeftovers
    // relies on that order).
    ManifestHeader h;
    h.store_id = NewStoreId();
    h.created_ns = uint64_t(std::chrono::duration_cast<std::chrono::nanoseconds>(
                                std::chrono::system_clock::now().time_since_epoch()).count());
    std::string bytes = EncodeManifestHeader(h);
    if (never_written && size > 0) {
      s = m->file_->Truncate(0);  // no zeros left behind the new header
      if (!s.ok()) return s;
    }
    s = m->file_->PWrite(0, bytes.data(), bytes.size());
    if (s.ok()) {
      // The header's fsync and the directory's together (one journal
      // commit, not two in sequence): both are done before any data file
      // is made, and an entry durable before its header reads as a
      // creation cut short (never_written above).
      SideTask entry([&dir, stats] { return SyncDir(dir, stats); });
      s = m->file_->Sync();
      Status es = entry.Join();
      if (s.ok()) s = es;
    }
    if (!s.ok()) return s;
    m->parsed_.header = h;
    m->parsed_.valid_end = bytes.size();
    *created = true;
  } else {
    s = ParseManifest(bytes, &m->parsed_);
    if (!s.ok()) return s.WithContext(path);
    if (m->parsed_.damaged_tail && writable)
      return Status::Corruption(path + ": the last record (offset " + std::to_string(m->parsed_.valid_end) +
                                ") is complete but damaged, so it may be a committed revision; refusing to "
                                "write. Open read-only to read the revisions before it, and run `cairn repair " +
                                dir + "` to drop the damaged record before writing again");
    if (!m->parsed_.damaged.empty() && writable) {
      const DamagedRange& d = m->parsed_.damaged.front();
      return Status::Corruption(path + ": " + std::to_string(m->parsed_.damaged.size()) +
                                " damaged record(s), the first at offset " + std::to_string(d.offset) +
                                " (" + std::to_string(d.length) + " bytes), with intact records after them; "
                                "refusing to append after damage. Read-only opens read the intact "
                                "revisions; run `cairn repair " + dir + "` to rewrite the manifest "
                                "without the damaged records before writing again");
    }
    if (m->parsed_.torn_bytes > 0 && writable) {
      s = m->file_->Truncate(m->parsed_.valid_end);
      if (s.ok()) s = m->file_->Sync();
      if (!s.ok()) return s;
    }
  }
  *out = std::move(m);
  return Status::OK();
}

Status Manifest::AppendRevision(const RevisionRecord& r, bool sync) {
  may_be_in_file_ = false;  // (an encoding that runs out of memory writes nothing)
  TestBadAllocPoint("manifest_append", 0);  // tests: as if the encoding ran out of memory
  std::string payload = EncodeRevisionSpacePayload(r);
  std::string rec = FrameRecord(RecordType::kRevisionSpace, payload);
  Status s = AppendFramed(rec, r.revision, sync);
  if (!s.ok()) return s;
  ParsedManifest& m = parsed_;
  s = ApplyRecord(uint32_t(RecordType::kRevisionSpace), payload, &m);
  if (!s.ok()) return s.WithContext("writer bug: the revision record just appended does not apply");
  if (sync && !m.header.committed) {
    // The first durable revision record of this log: from now on a log with
    // no intact record is damage, not an unfinished first commit. Written
    // after that record's fsync (never before it), durable with the next
    // manifest fsync; until then a crash leaves the flag unset, which reads
    // as before. A failure here costs nothing but the check, retried at the
    // next commit.
    ManifestHeader h = m.header;
    h.committed = true;
    std::string hb = EncodeManifestHeader(h);
    if (file_->PWrite(0, hb.data(), hb.size()).ok()) m.header.committed = true;
  }
  uint64_t dead = ManifestDeadBytes(m);
  if (dead > ManifestCompactBytes() && dead > m.valid_end / 2) {
    // Out of memory for the new file's bytes is a compaction that failed
    // (nothing renamed), not an append whose outcome is unknown.
    Status cs = UnlessOutOfMemoryThen("compaction of", file_->path(), "; the old manifest stays in use",
                                      [&] { return Compact(); });
    if (!cs.ok())
      std::fprintf(stderr, "cairn: warning: manifest compaction failed (the old manifest stays in use): %s\n",
                   cs.ToString().c_str());
  }
  return Status::OK();
}

uint64_t ManifestCompactBytes() {
  // Read once per process (the first call is on the thread that commits
  // first): a later setenv by the application cannot race with it.
  static const uint64_t bytes = [] {
    const char* e = std::getenv("CAIRN_MANIFEST_COMPACT_BYTES");
    if (e && *e) return uint64_t(std::strtoull(e, nullptr, 10));
    // Small enough that an open reads little (the file stays under about
    // twice this plus the retained records), large enough that compactions
    // are rare; the half-file rule keeps their cost at most the bytes
    // appended since the last one.
    return uint64_t(64u << 10);
  }();
  return bytes;
}

Status Manifest::Compact() {
  if (!broken_.ok()) return broken_;
  std::string out = EncodeRetainedManifest(parsed_, parsed_.pinned);
  // It must read back as the same retained set before it replaces anything.
  ParsedManifest check;
  Status s = ParseManifest(out, &check);
  bool same = check.revisions.size() == parsed_.revisions.size();
  for (size_t i = 0; same && i < check.revisions.size(); i++)
    same = check.revisions[i].revision == parsed_.revisions[i].revision;
  if (s.ok() && (!same || check.has_damage() || check.torn_bytes || check.pinned != parsed_.pinned ||
                 check.last_revision != parsed_.last_revision || check.high_water != parsed_.high_water))
    s = Status::Corruption("the compacted manifest does not read back as built");
  if (!s.ok()) return s.WithContext("compaction bug: not replacing " + file_->path());
  std::string path = dir_ + "/" + kManifestName, tmp = dir_ + "/" + kManifestCompactTmpName;
  ::unlink(tmp.c_str());  // left by a crash during an earlier compaction
  std::unique_ptr<File> nf;
  s = File::Open(tmp, File::kCreate, stats_, &nf);
  if (s.ok()) s = nf->Truncate(0);  // an older temporary file the unlink missed leaves no tail
  if (s.ok() && CrashPointArmed("compact_torn_tmp", 0)) {  // tests: half the new file written
    nf->PWrite(0, out.data(), out.size() / 2);
    nf->Sync();
    CrashPoint("compact_torn_tmp", 0);
  }
  if (s.ok()) s = nf->PWrite(0, out.data(), out.size());
  if (s.ok()) s = nf->Sync();
  if (s.ok()) CrashPoint("compact_before_rename", 0);
  if (s.ok()) {
    s = nf->Rename(path);
    if (!s.ok()) {
      // A rename can fail after it took effect (NFS resending it, say):
      // then MANIFEST is the new file, and appending to the old one would
      // write into a file with no name. Ask the directory which it is.
      struct stat mine, old_one;
      uint64_t dev = 0, ino = 0;
      bool named = FileIdentity(path, stats_, &dev, &ino);
      if (named && ::fstat(nf->fd(), &mine) == 0 && dev == uint64_t(mine.st_dev) && ino == uint64_t(mine.st_ino)) {
        s = Status::OK();  // it did happen
      } else if (!named || ::fstat(file_->fd(), &old_one) != 0 || dev != uint64_t(old_one.st_dev) ||
                 ino != uint64_t(old_one.st_ino)) {
        broken_ = s.WithContext("compacting the manifest: the rename failed and " + path +
                                " is neither the old nor the new manifest; reopen the store");
        return broken_;
      }
    }
  }
  if (!s.ok()) {
    nf.reset();
    ::unlink(tmp.c_str());
    return s.WithContext("compacting the manifest");
  }
  // From here MANIFEST is the new file (or, until the directory sync
  // lands, the old one after a crash): both hold every retained revision.
  file_ = std::move(nf);
  parsed_ = std::move(check);
  compactions_++;
  CrashPoint("compact_after_rename", 0);
  s = SyncDir(dir_, stats_);
  if (!s.ok()) {
    broken_ = s.WithContext("the compacted manifest replaced " + path +
                            " but the directory sync failed (records appended to it might be lost); "
                            "reopen the store");
    return broken_;
  }
  CrashPoint("compact_after_dir_sync", 0);
  return Status::OK();
}

Status Manifest::AppendMark(RecordType type, uint64_t rev, bool sync) {
  may_be_in_file_ = false;  // (a check or encoding that runs out of memory writes nothing)
  bool known = false;
  for (const RevisionRecord& r : parsed_.revisions) known |= r.revision == rev;  // retained ones
  if (!known)
    return Status::NotFound("revision " + std::to_string(rev) + " is not a retained revision of " +
                            file_->path() + (parsed_.dropped.count(rev) ? " (it was dropped)" : ""));
  bool pinned = parsed_.pinned.count(rev) != 0;
  if (type == RecordType::kDrop && pinned)
    return Status::InvalidArgument("revision " + std::to_string(rev) + " is pinned; unpin it before dropping it");
  if ((type == RecordType::kPin && pinned) || (type == RecordType::kUnpin && !pinned))
    return Status::OK();  // already so: nothing to write
  std::string payload = EncodeMarkPayload(rev);
  Status s = AppendFramed(FrameRecord(type, payload), rev, sync);
  if (s.ok()) s = ApplyRecord(uint32_t(type), payload, &parsed_);
  return s;
}

Status Manifest::AppendFramed(const std::string& rec, uint64_t rev, bool sync) {
  may_be_in_file_ = false;
  if (!broken_.ok()) return broken_;
  uint64_t at = parsed_.valid_end;
  Status s;
  if (parsed_.header.version < kManifestFormatVersion) {
    // The store gains records a version-1 reader does not know: say so in
    // its header, so such a reader refuses it by version, before any record.
    ManifestHeader h = parsed_.header;
    h.version = kManifestFormatVersion;
    std::string hb = EncodeManifestHeader(h);
    s = file_->PWrite(0, hb.data(), hb.size());
    if (!s.ok()) return s.WithContext("rewriting the manifest header as version 2");
    parsed_.header.version = h.version;
  }
  may_be_in_file_ = true;
  if (CrashPointArmed("torn_manifest", 0)) {  // tests: leave half a record behind
    file_->PWrite(at, rec.data(), rec.size() / 2);
    file_->Sync();
    CrashPoint("torn_manifest", 0);
  }
  s = file_->PWrite(at, rec.data(), rec.size());
  if (s.ok() && sync) s = file_->Sync();
  if (!s.ok()) {
    // Remove the record, durably, so the failed revision never appears.
    // If even that fails, whether the revision exists is unknown.
    Status cut = file_->Truncate(at);
    if (cut.ok()) cut = file_->Sync();
    if (cut.ok()) may_be_in_file_ = false;
    std::string what = "appending a record for revision " + std::to_string(rev) + " to the manifest";
    if (!cut.ok())
      return Status(s.code(), what + ": " + s.message() + "; cutting it back also failed (" + cut.message() +
                                  "): outcome unknown, reopen the store to see whether the revision exists");
    return s.WithContext(what);
  }
  parsed_.valid_end = at + rec.size();
  return Status::OK();
}

}  // namespace cairn
