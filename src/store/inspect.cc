#include "store/inspect.h"

#include <map>

#include "format/checksum.h"
#include "format/subfile_header.h"
#include "store/store_rep.h"
#include "store/key_text.h"
#include "store/retention.h"

namespace cairn {

namespace {

// An object of a verify problem: "key 'k'", or for the store's own objects
// (reserved keys, array_meta.h) the array they belong to, with the key
// (\xNN-escaped: a raw NUL cut the message where it is read as C text).
std::string ObjectText(std::string_view key) {
  if (key.size() >= 2 && key[0] == '\0' && key[1] == 'a')
    return "array '" + KeyText(key.substr(2)) + "' (its descriptor, key '" + KeyText(key) + "')";
  if (key.size() >= 7 && key[0] == '\0' && key[1] == 'A' && key[key.size() - 5] == '\0')
    return "array '" + KeyText(key.substr(2, key.size() - 7)) + "' (a block, key '" + KeyText(key) + "')";
  return "key '" + KeyText(key) + "'";
}

}  // namespace

Status Inspector::QueryAllRefused(Store* store, const Status& refused, std::vector<QueryHit>* hits) {
  return store->QueryAllAgreed({}, hits, refused);
}

Status Inspector::MarkRevisionRefused(Store* store, RecordType type, const Status& refused) {
  store->rep_->FinishInflight();  // as Store::Pin: one collective at a time
  return MarkRevision(store->rep_.get(), type, 0, refused);
}

const RevisionRecord& Inspector::Record(const Store& store) { return store.rep_->current; }
const std::string& Inspector::Path(const Store& store) { return store.rep_->path; }
void Inspector::PendingBytes(const Store& store, uint64_t* held, uint64_t* live) {
  *held = store.rep_->own.pending_bytes();
  *live = store.rep_->own.pending_live_bytes();
}

void Inspector::LimitPendingForTest(Store* store, unsigned index_bits) {
  store->rep_->own.LimitIndexBitsForTest(index_bits);
  store->rep_->shared.LimitIndexBitsForTest(index_bits);
}

Status Inspector::Verify(Store* store, VerifyReport* report) {
  Store::Rep* r = store->rep_.get();
  const RevisionRecord& rec = r->current;
  if (r->manifest && r->manifest->parsed().damaged_tail)
    report->problems.push_back("MANIFEST: the record at offset " + std::to_string(r->manifest->parsed().valid_end) +
                               " is complete but damaged (a committed revision may be lost); writers refuse this store");
  if (r->manifest)
    for (const DamagedRange& d : r->manifest->parsed().damaged)
      report->problems.push_back("MANIFEST: the record(s) at offset " + std::to_string(d.offset) + " (" +
                                 std::to_string(d.length) + " bytes) are damaged and were skipped; writers refuse "
                                 "this store until `cairn repair`");
  // Data file headers.
  for (uint32_t id = 0; id < rec.high_water.size(); id++) {
    File* f;
    Status s = r->DataFile(id, &f);
    std::string hb(kSubfileHeaderSize, '\0');
    SubfileHeader h;
    if (s.ok()) s = f->PRead(0, hb.data(), hb.size());
    if (s.ok()) s = DecodeSubfileHeader(hb, &h);
    if (s.ok() && h.store_id != r->store_id) s = Status::Corruption("belongs to another store");
    if (!s.ok()) report->problems.push_back(DataFileName(id) + ": " + s.ToString());
  }
  std::map<uint32_t, uint64_t> file_sizes;  // data file sizes, read once
  for (uint32_t i = 0; i < rec.namespaces.size(); i++) {
    uint32_t ns = i + 1 == rec.namespaces.size() ? kSharedNamespace : i;
    std::shared_ptr<const IndexTable> t;
    Status s = r->ReadTable(ns, rec.namespaces[i], &t);
    report->namespaces++;
    if (!s.ok()) {
      report->problems.push_back(s.ToString());
      continue;
    }
    if (!t) continue;
    if (t->entries.size() != rec.namespaces[i].objects)
      report->problems.push_back(r->Where(ns) + ": index holds " + std::to_string(t->entries.size()) +
                                 " objects, manifest says " + std::to_string(rec.namespaces[i].objects));
    for (std::string_view body : t->entries) {
      EntryView e;
      report->objects++;
      s = DecodeEntryBody(body, &e);
      TagList tags;
      if (s.ok()) s = DecodeTags(e.tags, t->names, &tags);
      if (!s.ok()) {
        report->problems.push_back(r->Where(ns) + " " + ObjectText(EntryKey(body)) + ": " + s.ToString());
        continue;
      }
      std::string buf;
      for (const ChunkRef& c : e.chunks) {
        report->chunks++;
        File* f;
        s = r->DataFile(c.subfile, &f);
        // Inside the file before a buffer is allocated: a table from a
        // buggy writer could claim any length (found by bad_input_test).
        auto it = file_sizes.find(c.subfile);
        if (s.ok() && it == file_sizes.end()) {
          uint64_t size = 0;
          s = f->Size(&size);
          it = file_sizes.emplace(c.subfile, size).first;
        }
        if (s.ok() && (c.offset > it->second || c.length > it->second - c.offset))
          s = Status::Corruption("chunk at " + DataFileName(c.subfile) + " offset " + std::to_string(c.offset) +
                                 " (" + std::to_string(c.length) + " bytes) passes the end of the file");
        if (s.ok()) {
          buf.resize(c.length);
          s = f->PRead(c.offset, buf.data(), c.length);
        }
        if (s.ok() && Checksum(buf) != c.checksum)
          s = Status::Corruption("checksum mismatch in chunk at " + DataFileName(c.subfile) + " offset " +
                                 std::to_string(c.offset));
        if (!s.ok()) {
          report->problems.push_back(r->Where(ns) + " " + ObjectText(e.key) + ": " + s.ToString());
          break;
        }
        report->bytes += c.length;
      }
    }
  }
  return Status::OK();
}

}  // namespace cairn
