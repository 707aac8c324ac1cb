#include "store/manifest.h"

#include "store/crash_point.h"

#include <chrono>
#include <random>

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
  if (!*created && size >= kManifestHeaderSize) {
    bytes.resize(size);
    s = m->file_->PRead(0, bytes.data(), size);
    if (!s.ok()) return s;
  }
  // A manifest of zeros only: its size reached the disk before its data
  // (a power loss right after creation on file systems that allow it), and
  // no revision was ever committed (the first commit's fsync would have
  // made the header durable). Treated like a manifest shorter than a header.
  bool never_written = !*created && (size < kManifestHeaderSize ||
                                     bytes.find_first_not_of('\0') == std::string::npos);
  if (never_written && !writable)
    return Status::NotFound("store at " + dir + " was never completely created (MANIFEST is " +
                            std::to_string(size) + (size < kManifestHeaderSize ? " bytes)" : " bytes of zeros)"));
  if (*created || never_written) {
    // New, or a crash during creation left less than a header (the header
    // is synced before any data file exists, so nothing refers to it).
    ManifestHeader h;
    h.store_id = NewStoreId();
    h.created_ns = uint64_t(std::chrono::duration_cast<std::chrono::nanoseconds>(
                                std::chrono::system_clock::now().time_since_epoch()).count());
    std::string bytes = EncodeManifestHeader(h);
    if (never_written && size > 0) {
      s = m->file_->Truncate(0);  // no zeros left behind the new header
      if (!s.ok()) return s;
    }
    // Not synced here: no revision refers to the store yet. The first
    // commit's manifest fsync covers the header, and that commit syncs the
    // directory before it (a crash before leaves a short manifest, which
    // is created again).
    s = m->file_->PWrite(0, bytes.data(), bytes.size());
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
  std::string payload = EncodeRevisionSpacePayload(r);
  std::string rec = FrameRecord(RecordType::kRevisionSpace, payload);
  Status s = AppendFramed(rec, r.revision, sync);
  if (!s.ok()) return s;
  ParsedManifest& m = parsed_;
  s = ApplyRecord(uint32_t(RecordType::kRevisionSpace), payload, &m);
  if (!s.ok()) return s.WithContext("writer bug: the revision record just appended does not apply");
  return Status::OK();
}

Status Manifest::AppendMark(RecordType type, uint64_t rev, bool sync) {
  bool known = false;
  for (const RevisionRecord& r : parsed_.revisions) known |= r.revision == rev;
  if (!known || parsed_.dropped.count(rev))
    return Status::NotFound("revision " + std::to_string(rev) + " is not a retained revision of " +
                            file_->path() + (known ? " (it was dropped)" : ""));
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
