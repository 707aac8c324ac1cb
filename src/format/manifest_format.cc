#include "format/manifest_format.h"

#include <algorithm>
#include <cstring>
#include <iterator>

#include "format/checksum.h"
#include "format/coding.h"

namespace cairn {

std::string EncodeManifestHeader(const ManifestHeader& h) {
  std::string out(kManifestMagic, 8);
  PutFixed32(&out, h.version);
  PutFixed32(&out, uint32_t(kManifestHeaderSize));
  std::string id = h.store_id;
  id.resize(16, '\0');
  out += id;
  PutFixed64(&out, h.created_ns);
  PutFixed32(&out, h.committed ? kManifestFlagCommitted : 0);
  out.append(12, '\0');  // reserved
  PutFixed64(&out, Checksum(out));
  return out;
}

Status DecodeManifestHeader(std::string_view in, ManifestHeader* h) {
  if (in.size() < kManifestHeaderSize) return Status::Corruption("manifest header truncated");
  if (std::memcmp(in.data(), kManifestMagic, 8) != 0)
    return Status::Corruption("manifest has a bad magic number (not a cairn store)");
  // The version before the checksum: a newer version may lay out its header
  // differently, and must be refused as such, not as corruption.
  h->version = DecodeFixed32(in.data() + 8);
  if (h->version > kManifestFormatVersion)
    return Status::NotSupported("store format version " + std::to_string(h->version) +
                                " is newer than this cairn supports (" +
                                std::to_string(kManifestFormatVersion) + ")");
  if (DecodeFixed64(in.data() + 56) != Checksum(in.data(), 56))
    return Status::Corruption("manifest header checksum mismatch");
  if (DecodeFixed32(in.data() + 12) != kManifestHeaderSize)
    return Status::Corruption("manifest header length is not 64");
  h->store_id.assign(in.data() + 16, 16);
  h->created_ns = DecodeFixed64(in.data() + 32);
  h->committed = (DecodeFixed32(in.data() + 40) & kManifestFlagCommitted) != 0;  // other bits reserved
  return Status::OK();
}

std::string EncodeRevisionPayload(const RevisionRecord& r) {
  std::string out;
  out.reserve(32 + 8 * r.high_water.size() + kNamespaceDescSize * r.namespaces.size());
  PutFixed64(&out, r.revision);
  PutFixed64(&out, r.parent);
  PutFixed64(&out, r.time_ns);
  PutFixed32(&out, r.nranks);
  PutFixed32(&out, uint32_t(r.high_water.size()));
  for (uint64_t hw : r.high_water) PutFixed64(&out, hw);
  for (const NamespaceDesc& d : r.namespaces) {
    PutFixed32(&out, d.subfile);
    PutFixed32(&out, 0);  // reserved flags
    PutFixed64(&out, d.offset);
    PutFixed64(&out, d.length);
    PutFixed64(&out, d.checksum);
    PutFixed64(&out, d.objects);
    PutFixed64(&out, d.value_bytes);
  }
  return out;
}

Status DecodeRevisionPayload(std::string_view payload, RevisionRecord* r) {
  Decoder d(payload);
  r->revision = d.U64();
  r->parent = d.U64();
  r->time_ns = d.U64();
  r->nranks = d.U32();
  uint32_t nsub = d.U32();
  if (d.failed()) return Status::Corruption("revision record truncated");
  uint64_t need = 8ull * nsub + kNamespaceDescSize * (uint64_t(r->nranks) + 1);
  if (d.remaining() != need)
    return Status::Corruption("revision record length does not match its rank and file counts");
  r->high_water.resize(nsub);
  for (auto& hw : r->high_water) hw = d.U64();
  r->namespaces.resize(size_t(r->nranks) + 1);
  for (NamespaceDesc& ns : r->namespaces) {
    ns.subfile = d.U32();
    d.U32();
    ns.offset = d.U64();
    ns.length = d.U64();
    ns.checksum = d.U64();
    ns.objects = d.U64();
    ns.value_bytes = d.U64();
    if (ns.length > 0 && ns.subfile >= nsub)
      return Status::Corruption("revision record names a data file that does not exist");
  }
  if (r->revision == 0) return Status::Corruption("revision record with revision number 0");
  return Status::OK();
}

std::string EncodeRevisionSpacePayload(const RevisionRecord& r) {
  std::string base = EncodeRevisionPayload(r);
  std::string out;
  PutFixed32(&out, uint32_t(base.size()));
  out += base;
  PutVarint64(&out, r.extent_size);
  PutVarint64(&out, r.live.size());
  for (const ExtentRange& e : r.live) {
    PutVarint32(&out, e.file);
    PutVarint64(&out, e.start);
    PutVarint64(&out, e.length);
  }
  PutVarint64(&out, r.expires.size());
  for (uint64_t v : r.expires) PutVarint64(&out, v);
  return out;
}

Status DecodeRevisionSpacePayload(std::string_view payload, RevisionRecord* r) {
  Decoder d(payload);
  uint32_t blen = d.U32();
  std::string_view base = d.Bytes(blen);
  if (d.failed()) return Status::Corruption("revision record truncated");
  Status s = DecodeRevisionPayload(base, r);
  if (!s.ok()) return s;
  r->extent_size = d.Varint64();
  uint64_t n = d.Varint64();
  if (n > d.remaining()) return Status::Corruption("revision record: live range count too large");
  r->live.resize(n);
  for (uint64_t i = 0; i < n; i++) {
    ExtentRange& e = r->live[i];
    e.file = d.Varint32();
    e.start = d.Varint64();
    e.length = d.Varint64();
    if (d.failed()) break;
    if (e.length == 0 || e.start + e.length < e.start || e.file >= r->high_water.size())
      return Status::Corruption("revision record: malformed live range");
    if (i > 0) {
      const ExtentRange& p = r->live[i - 1];
      if (e.file < p.file || (e.file == p.file && e.start < p.start + p.length))
        return Status::Corruption("revision record: live ranges not sorted and disjoint");
    }
  }
  uint64_t m = d.Varint64();
  if (!d.failed() && m > d.remaining()) return Status::Corruption("revision record: expiry count too large");
  r->expires.resize(d.failed() ? 0 : m);
  for (uint64_t i = 0; i < r->expires.size(); i++) {
    r->expires[i] = d.Varint64();
    if (i > 0 && r->expires[i] <= r->expires[i - 1])
      return Status::Corruption("revision record: expired revisions not ascending");
  }
  if (d.failed() || d.remaining() != 0) return Status::Corruption("revision record: malformed space section");
  r->live_known = true;
  return Status::OK();
}

std::string EncodeMarkPayload(uint64_t revision) {
  std::string out;
  PutFixed64(&out, revision);
  return out;
}

std::string FrameRecord(RecordType type, std::string_view payload) {
  std::string out;
  out.reserve(payload.size() + kRecordOverhead);
  PutFixed32(&out, uint32_t(payload.size()));
  PutFixed32(&out, uint32_t(type));
  out.append(payload);
  PutFixed64(&out, Checksum(out));
  return out;
}

namespace {
// Returns true and sets *len if a well-formed record starts at `off`.
bool IntactRecordAt(std::string_view file, uint64_t off, uint64_t* len) {
  if (file.size() - off < kRecordOverhead) return false;
  uint32_t plen = DecodeFixed32(file.data() + off);
  if (plen > kMaxRecordPayload || file.size() - off - kRecordOverhead < plen) return false;
  uint64_t total = plen + kRecordOverhead;
  if (DecodeFixed64(file.data() + off + total - 8) != Checksum(file.data() + off, total - 8))
    return false;
  *len = total;
  return true;
}
}  // namespace

Status ParseManifest(std::string_view file, ParsedManifest* out) {
  Status s = DecodeManifestHeader(file, &out->header);
  if (!s.ok()) return s;
  out->revisions.clear();
  out->dropped_newest.clear();
  out->last_revision = 0;
  out->high_water.clear();
  out->dropped.clear();
  out->pinned.clear();
  out->damaged.clear();
  out->doubtful.clear();
  out->damaged_tail = false;
  out->committed_without_record = false;
  uint64_t off = kManifestHeaderSize;
  while (off < file.size()) {
    uint64_t len = 0;
    if (!IntactRecordAt(file, off, &len)) {
      // Resynchronize: the log goes on at the first later offset where a
      // record of any type is intact (one of a type this version does not
      // know then stops the parse with NotSupported below, rather than
      // being folded into the damage, which repair would drop). The damage may be in the length
      // field itself, so every later offset is tried, not just the one the
      // length points to (which the scan reaches too when the length is
      // intact). A committed record must never be taken for a torn tail (a
      // writer would cut it, and every record after it, away).
      uint64_t next = 0;
      for (uint64_t p = off + 1; p + kRecordOverhead <= file.size(); p++) {
        uint64_t nlen;
        if (DecodeFixed32(file.data() + p + 4) != 0 && IntactRecordAt(file, p, &nlen)) {
          next = p;
          break;
        }
      }
      if (next != 0) {
        DamagedRange d;
        d.offset = off;
        d.length = next - off;
        d.prev_revision = out->last_revision;
        out->damaged.push_back(d);
        for (const RevisionRecord& r : out->revisions)
          if (!out->dropped.count(r.revision)) out->doubtful.insert(r.revision);
        off = next;
        continue;
      }
      // A torn append is shorter than its length field says, or an
      // extension the file system never filled (zeros).
      if (file.size() - off >= kRecordOverhead) {
        uint64_t plen = DecodeFixed32(file.data() + off);
        bool fits = plen <= kMaxRecordPayload && plen + kRecordOverhead <= file.size() - off;
        bool zeros = std::all_of(file.begin() + off, file.end(), [](char ch) { return ch == 0; });
        out->damaged_tail = fits && !zeros;
        // A length field damaged to claim more than the file holds also
        // looks like a torn append. It is not one if the rest of the file is
        // a whole record under the length it must have had: its checksum,
        // computed with that length, matches (found by tests/corruption_test).
        uint64_t implied = file.size() - off - kRecordOverhead;
        if (!fits && implied <= kMaxRecordPayload) {
          std::string rec(file.substr(off, file.size() - off - 8));
          EncodeFixed32(rec.data(), uint32_t(implied));
          out->damaged_tail = Checksum(rec) == DecodeFixed64(file.data() + file.size() - 8);
        }
      }
      break;
    }
    uint32_t type = DecodeFixed32(file.data() + off + 4);
    std::string_view payload(file.data() + off + 8, len - kRecordOverhead);
    uint64_t nrev = out->last_revision;
    s = ApplyRecord(type, payload, out);
    if (!s.ok()) {
      out->valid_end = off;
      if (s.IsNotSupported()) return s;
      return s.WithContext("manifest record at offset " + std::to_string(off));
    }
    if (out->last_revision > nrev && !out->damaged.empty() && out->damaged.back().next_revision == 0)
      out->damaged.back().next_revision = out->last_revision;
    off += len;
  }
  out->valid_end = off;
  out->torn_bytes = file.size() - off;
  // The header says a revision record was once durable, yet none is intact:
  // the log was cut or damaged inside its first record (or after the
  // header). A crash during the first commit leaves the flag unset (it is
  // written after that record's fsync), so this is damage, never an
  // unfinished first commit, and must not read as an empty store.
  if (out->header.committed && out->last_revision == 0) {
    out->committed_without_record = true;
    return Status::Corruption("no intact revision record after the header (offset " +
                              std::to_string(kManifestHeaderSize) + ", " + std::to_string(file.size()) +
                              " bytes in the file), although the header says a revision was committed: "
                              "the manifest was cut or damaged inside its first record");
  }
  // A damaged final record may have been a pin of any retained revision.
  if (out->damaged_tail)
    for (const RevisionRecord& r : out->revisions) out->doubtful.insert(r.revision);
  // Doubtful: retained now, and retained when a damaged record was met.
  for (auto it = out->doubtful.begin(); it != out->doubtful.end();)
    it = out->dropped.count(*it) ? out->doubtful.erase(it) : std::next(it);
  return Status::OK();
}

namespace {
// The revision `rev` of the log, or null.
RevisionRecord* FindRevision(ParsedManifest* m, uint64_t rev) {
  auto it = std::lower_bound(m->revisions.begin(), m->revisions.end(), rev,
                             [](const RevisionRecord& r, uint64_t v) { return r.revision < v; });
  return it != m->revisions.end() && it->revision == rev ? &*it : nullptr;
}
Status Remove(ParsedManifest* m, uint64_t rev, const char* how) {
  RevisionRecord* r = FindRevision(m, rev);
  bool lenient = !m->damaged.empty();  // a lost record may explain what follows
  if (!r || m->dropped.count(rev)) {
    if (lenient) return Status::OK();  // the lost record was this revision, or removed it already
    return Status::Corruption(std::string(how) + " of revision " + std::to_string(rev) +
                              ", which is not a retained revision of the log");
  }
  if (m->pinned.count(rev)) {
    if (!lenient) return Status::Corruption(std::string(how) + " of pinned revision " + std::to_string(rev));
    m->pinned.erase(rev);  // the lost record was its unpin
  }
  m->dropped.insert(rev);
  // The record leaves the retained list (its descriptors with it); the
  // newest one is kept aside for the revision numbering of a rebuild.
  size_t i = size_t(r - m->revisions.data());
  if (rev == m->last_revision) {
    m->dropped_newest.assign(1, std::move(*r));
    m->dropped_newest[0].live.clear();
    m->dropped_newest[0].expires.clear();
  }
  m->revisions.erase(m->revisions.begin() + std::ptrdiff_t(i));
  return Status::OK();
}
}  // namespace

Status ApplyRecord(uint32_t type, std::string_view payload, ParsedManifest* out) {
  if (type == uint32_t(RecordType::kRevision) || type == uint32_t(RecordType::kRevisionSpace)) {
    RevisionRecord r;
    Status s = type == uint32_t(RecordType::kRevision) ? DecodeRevisionPayload(payload, &r)
                                                        : DecodeRevisionSpacePayload(payload, &r);
    if (!s.ok()) return s;
    if (r.revision <= out->last_revision) return Status::Corruption("manifest revisions out of order");
    r.record_bytes = payload.size() + kRecordOverhead;
    for (uint64_t v : r.expires) {
      s = Remove(out, v, "expiry");
      if (!s.ok()) return s;
    }
    out->last_revision = r.revision;
    out->dropped_newest.clear();
    if (r.high_water.size() > out->high_water.size()) out->high_water.resize(r.high_water.size(), 0);
    for (size_t f = 0; f < r.high_water.size(); f++)
      out->high_water[f] = std::max(out->high_water[f], r.high_water[f]);
    out->revisions.push_back(std::move(r));
    return Status::OK();
  }
  if (type == uint32_t(RecordType::kDrop) || type == uint32_t(RecordType::kPin) ||
      type == uint32_t(RecordType::kUnpin)) {
    if (payload.size() != 8) return Status::Corruption("drop/pin/unpin record payload is not 8 bytes");
    uint64_t rev = DecodeFixed64(payload.data());
    if (type == uint32_t(RecordType::kDrop)) return Remove(out, rev, "drop");
    if (!FindRevision(out, rev) || out->dropped.count(rev)) {
      if (!out->damaged.empty()) return Status::OK();  // about a revision a lost record held or removed
      return Status::Corruption("pin or unpin of revision " + std::to_string(rev) +
                                ", which is not a retained revision of the log");
    }
    if (type == uint32_t(RecordType::kPin)) out->pinned.insert(rev);
    else out->pinned.erase(rev);
    return Status::OK();
  }
  return Status::NotSupported("manifest record type " + std::to_string(type) +
                              " is unknown to this cairn (written by a newer version?)");
}

std::string EncodeRetainedManifest(const ParsedManifest& m, const std::set<uint64_t>& pins) {
  ManifestHeader h = m.header;
  h.version = kManifestFormatVersion;
  std::string out = EncodeManifestHeader(h);
  auto put = [&](const RevisionRecord& r) {
    RevisionRecord c = r;
    c.expires.clear();
    if (c.revision == m.last_revision) {  // the newest record carries the log's high water
      if (c.high_water.size() < m.high_water.size()) c.high_water.resize(m.high_water.size(), 0);
      for (size_t f = 0; f < m.high_water.size(); f++) c.high_water[f] = std::max(c.high_water[f], m.high_water[f]);
    }
    out += c.live_known ? FrameRecord(RecordType::kRevisionSpace, EncodeRevisionSpacePayload(c))
                        : FrameRecord(RecordType::kRevision, EncodeRevisionPayload(c));
  };
  for (const RevisionRecord& r : m.revisions) put(r);
  for (const RevisionRecord& r : m.dropped_newest) {
    put(r);
    out += FrameRecord(RecordType::kDrop, EncodeMarkPayload(r.revision));
  }
  for (uint64_t v : pins) out += FrameRecord(RecordType::kPin, EncodeMarkPayload(v));
  return out;
}

uint64_t ManifestDeadBytes(const ParsedManifest& m) {
  uint64_t live = kManifestHeaderSize + m.pinned.size() * (kRecordOverhead + 8);
  for (const RevisionRecord& r : m.revisions) live += r.record_bytes;
  for (const RevisionRecord& r : m.dropped_newest) live += r.record_bytes + kRecordOverhead + 8;
  return m.valid_end > live ? m.valid_end - live : 0;
}

}  // namespace cairn
