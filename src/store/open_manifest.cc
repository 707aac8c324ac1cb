// Rank 0's first step of Store::Open: the store directory, the writer lock
// of a writable open, the manifest and the revision asked for, as an
// OpenInfo that rank 0 broadcasts (open_steps.h).
#include "store/open_steps.h"

#include "store/store_dir.h"

namespace cairn::open_steps {

namespace {

void PutInfo(std::string* o, const RevisionInfo& r) {
  PutFixed64(o, r.revision);
  PutFixed64(o, r.parent);
  PutFixed64(o, r.time_ns);
  PutFixed32(o, r.ranks);
  PutFixed64(o, r.objects);
  PutFixed64(o, r.value_bytes);
  PutFixed64(o, r.index_bytes);
  o->push_back(r.pinned ? 1 : 0);
}
RevisionInfo GetInfo(Decoder* d) {
  RevisionInfo r;
  r.revision = d->U64();
  r.parent = d->U64();
  r.time_ns = d->U64();
  r.ranks = d->U32();
  r.objects = d->U64();
  r.value_bytes = d->U64();
  r.index_bytes = d->U64();
  r.pinned = d->U8() != 0;
  return r;
}

}  // namespace

std::string EncodeOpenInfo(const OpenInfo& i) {
  std::string o;
  PutLengthPrefixed(&o, EncodeStatus(i.status));
  PutLengthPrefixed(&o, i.store_id);
  PutFixed64(&o, i.newest_revision);
  PutVarint64(&o, i.newest_high_water.size());
  for (uint64_t h : i.newest_high_water) PutFixed64(&o, h);
  PutLengthPrefixed(&o, i.record);
  PutVarint64(&o, i.revisions.size());
  for (const auto& r : i.revisions) PutInfo(&o, r);
  o.push_back(i.per_rank ? 1 : 0);
  return o;
}
OpenInfo DecodeOpenInfo(const std::string& bytes) {
  OpenInfo i;
  Decoder d(bytes);
  i.status = DecodeStatus(std::string(d.LengthPrefixed()));
  i.store_id = std::string(d.LengthPrefixed());
  i.newest_revision = d.U64();
  i.newest_high_water.resize(d.Varint64());
  for (auto& h : i.newest_high_water) h = d.U64();
  i.record = std::string(d.LengthPrefixed());
  i.revisions.resize(d.Varint64());
  for (auto& r : i.revisions) r = GetInfo(&d);
  i.per_rank = d.U8() != 0;
  return i;
}

// Rank 0's part of open: directory, manifest, choice of revision.
OpenInfo OpenManifest(Store::Rep* rep) {
  OpenInfo info;
  const Options& o = rep->opt;
  bool is_dir = false;
  bool exists = PathExists(rep->path, &rep->stats, &is_dir);
  if (exists && !is_dir) {
    info.status = Status::InvalidArgument(rep->path + " exists and is not a directory");
    return info;
  }
  if (!exists) {
    if (!o.create_if_missing || o.read_only) {
      info.status = Status::NotFound("no cairn store at " + rep->path);
      return info;
    }
    bool created;
    info.status = MakeDir(rep->path, &rep->stats, &created);
    if (!info.status.ok()) return info;
    // The new directory's own entry must survive a crash too: synced with
    // the first commit, before its manifest record.
    rep->sync_parent_dir = created;
  }
  if (!o.read_only) {
    // Writable: never into a directory that is not a store, and never
    // beside another writer (doc/design.md "The writer lock").
    if (exists) info.status = CheckStoreDirectory(rep->path, &rep->stats);
    if (info.status.ok() && !o.create_if_missing && !PathExists(rep->path + "/" + kManifestName, &rep->stats, nullptr))
      info.status = Status::NotFound("no cairn store at " + rep->path + " (no MANIFEST)");
    if (info.status.ok())
      info.status = WriterLock::Acquire(rep->path, o.require_writer_lock, &rep->stats, &rep->writer_lock);
    if (!info.status.ok()) return info;
    // Whoever created the directory, MANIFEST and data files (an earlier
    // open that died before committing, perhaps), their entries may not be
    // durable: the first commit of every writable open syncs the directory
    // and its parent before its record (two fsyncs per open).
    rep->sync_store_dir = rep->sync_parent_dir = true;
  }
  bool created = false;
  info.status = Manifest::Open(rep->path, o.create_if_missing && !o.read_only, !o.read_only,
                               &rep->stats, &rep->manifest, &created);
  if (!info.status.ok()) return info;
  if (created) rep->sync_store_dir = true;
  if (!created && o.error_if_exists) {
    info.status = Status::InvalidArgument("store " + rep->path + " already exists (error_if_exists)");
    return info;
  }
  const ParsedManifest& pm = rep->manifest->parsed();
  info.store_id = pm.header.store_id;
  const RevisionRecord* chosen = nullptr;
  const RevisionRecord* newest_retained = nullptr;
  if (o.revision != 0 && pm.dropped.count(o.revision)) {
    info.status = Status::NotFound("revision " + std::to_string(o.revision) + " of store " + rep->path +
                                   " was dropped (expired by keep_revisions, or dropped) and can no "
                                   "longer be opened");
    return info;
  }
  for (const RevisionRecord& r : pm.revisions) {  // retained only
    info.revisions.push_back(InfoOf(r));
    info.revisions.back().pinned = pm.pinned.count(r.revision) != 0;
    newest_retained = &r;
    if (o.revision == r.revision) chosen = &r;
  }
  if (pm.last_revision != 0) {
    info.newest_revision = pm.last_revision;
    // A rollback may have left higher water in an older record: the
    // highest of the whole log.
    info.newest_high_water = pm.high_water;
    if (o.revision == 0) chosen = newest_retained;
  }
  if (o.revision != 0 && !chosen) {
    info.status = Status::NotFound("revision " + std::to_string(o.revision) + " is not in store " + rep->path);
    // Newer than every intact record, with a damaged record after them: it
    // may be the one asked for, so say so rather than "not found".
    if (pm.damaged_tail && o.revision > info.newest_revision)
      info.status = Status::Corruption(
          "revision " + std::to_string(o.revision) + " of store " + rep->path + " is not readable: the last " +
          "MANIFEST record (offset " + std::to_string(pm.valid_end) + ") is complete but damaged, and may be it");
    // Likewise for a damaged record between intact ones whose neighbours'
    // numbers leave room for it.
    for (const DamagedRange& d : pm.damaged)
      if (o.revision > d.prev_revision && (d.next_revision == 0 || o.revision < d.next_revision))
        info.status = Status::Corruption(
            "revision " + std::to_string(o.revision) + " of store " + rep->path + " is not readable: the " +
            "MANIFEST record at offset " + std::to_string(d.offset) + " is damaged, and may be it");
    return info;
  }
  // Any rank count may open any revision, read-only or not: a writer on M
  // ranks starts rank r from namespace r (doc/design.md "Rank counts").
  if (chosen) info.record = EncodeRevisionPayload(*chosen);
  return info;
}

}  // namespace cairn::open_steps
