#include "store/retention.h"
#include "store/out_of_memory.h"

#include <sys/stat.h>

#include <algorithm>

#include "format/coding.h"
#include "format/index_format.h"
#include "format/subfile_header.h"
#include "store/store_rep.h"
#include "store/stream_hub.h"

namespace cairn {

namespace {
uint64_t RoundDown(uint64_t v, uint64_t a) { return v / a * a; }
uint64_t RoundUpTo(uint64_t v, uint64_t a) { return (v + a - 1) / a * a; }

void PutRanges(std::string* o, const std::vector<ExtentRange>& rs) {
  PutVarint64(o, rs.size());
  for (const ExtentRange& e : rs) {
    PutVarint32(o, e.file);
    PutVarint64(o, e.start);
    PutVarint64(o, e.length);
  }
}
std::vector<ExtentRange> GetRanges(Decoder* d) {
  uint64_t n = d->Varint64();
  std::vector<ExtentRange> rs;
  if (d->failed() || n > d->remaining()) {
    d->Fail();
    return rs;
  }
  rs.resize(n);
  for (ExtentRange& e : rs) {
    e.file = d->Varint32();
    e.start = d->Varint64();
    e.length = d->Varint64();
  }
  return rs;
}

// Hands `free` (one file's ranges, normalized, extent-aligned) out to the
// ranks in `who` in proportion to `w` (same order), as contiguous slices
// of the list; returns one list per member.
std::vector<std::vector<std::pair<uint64_t, uint64_t>>> Split(const std::vector<ExtentRange>& free,
                                                              const std::vector<uint64_t>& w,
                                                              uint64_t extent) {
  std::vector<std::vector<std::pair<uint64_t, uint64_t>>> out(w.size());
  if (w.empty()) return out;
  uint64_t total = RangeBytes(free) / extent;
  long double wsum = 0;
  for (uint64_t x : w) wsum += (long double)x;
  // All weights 0 (ShareWeights with no free bytes and no deficit): evenly.
  if (wsum == 0) return Split(free, std::vector<uint64_t>(w.size(), 1), extent);
  size_t ri = 0;
  uint64_t roff = 0;  // extents of free[ri] already handed out
  long double cum = 0;
  uint64_t given = 0;
  for (size_t m = 0; m < w.size(); m++) {
    cum += (long double)w[m];
    // Rounded to the nearest extent: rounded down, every slice but the
    // last lost its fraction to the last member, and a lone free extent
    // always went to it, whatever the weights.
    uint64_t upto = m + 1 == w.size() ? total : std::min<uint64_t>(total, uint64_t(total * (cum / wsum) + 0.5L));
    uint64_t want = upto > given ? upto - given : 0;
    given += want;
    while (want > 0 && ri < free.size()) {
      uint64_t left = free[ri].length / extent - roff;
      uint64_t take = std::min(left, want);
      out[m].emplace_back(free[ri].start + roff * extent, take * extent);
      want -= take;
      roff += take;
      if (roff * extent == free[ri].length) {
        ri++;
        roff = 0;
      }
    }
  }
  return out;
}
// The bytes each rank of one data file (`who`) should get of `pool` free
// bytes, and one more member last: the bytes nobody gets, which stay free
// for the next commit. A rank's target is twice its need (plan.weight: its
// recent peak of run bytes per commit): an asynchronous commit's share
// arrives after the rank has written the next round from the runs it kept
// (plan.kept), so what it keeps covers that round and the share the one
// after. Each rank first gets its deficit (target less kept); a shortfall
// goes by deficit; free bytes beyond the deficits go by need (+1: a rank
// that wrote nothing still gets a little), but only until the rank holds
// three times its need (kept + share), and the rest to nobody. Before:
// the same weight to a rank that was short as to one keeping far more than
// it used (one rank piled up the free runs while the others extended the
// file), and then, without the ceiling, a rank idle for a span of commits
// got its part of the surplus at every asynchronous commit, which adds it
// to what the rank still holds, and never gave it back
// (async_commit_test SharedDataFileWithARankIdleInSpansStaysNearTheSynchronousSize).
std::vector<uint64_t> ShareWeights(const std::vector<size_t>& who, const SpacePlan& plan, uint64_t pool) {
  std::vector<uint64_t> deficit(who.size());
  long double deficits = 0, needs = 0;
  for (size_t k = 0; k < who.size(); k++) {
    uint64_t need = plan.weight[who[k]], kept = plan.kept[who[k]];
    uint64_t target = need > UINT64_MAX / 2 ? UINT64_MAX : 2 * need;
    deficit[k] = target > kept ? target - kept : 0;
    deficits += (long double)deficit[k];
    needs += (long double)need + 1;
  }
  std::vector<uint64_t> w(who.size() + 1, 0);  // the last: nobody's
  if (deficits >= (long double)pool && deficits > 0) {
    std::copy(deficit.begin(), deficit.end(), w.begin());
    return w;
  }
  const long double surplus = (long double)pool - deficits;
  long double given = 0;
  for (size_t k = 0; k < who.size(); k++) {
    const long double need = (long double)plan.weight[who[k]];
    long double x = surplus * ((need + 1) / needs);
    long double room = 3 * need + 1 - (long double)plan.kept[who[k]] - (long double)deficit[k];
    x = std::max<long double>(0, std::min(x, room));
    w[k] = deficit[k] + uint64_t(x);
    given += (long double)w[k];
  }
  w.back() = given < (long double)pool ? uint64_t((long double)pool - given) : 0;
  return w;
}
}  // namespace

void NormalizeRanges(std::vector<ExtentRange>* rs) {
  std::sort(rs->begin(), rs->end(), [](const ExtentRange& a, const ExtentRange& b) {
    return a.file != b.file ? a.file < b.file : a.start < b.start;
  });
  size_t w = 0;
  for (size_t i = 0; i < rs->size(); i++) {
    ExtentRange e = (*rs)[i];
    if (e.length == 0) continue;
    if (w > 0) {
      ExtentRange& p = (*rs)[w - 1];
      if (p.file == e.file && e.start <= p.start + p.length) {
        p.length = std::max(p.start + p.length, e.start + e.length) - p.start;
        continue;
      }
    }
    (*rs)[w++] = e;
  }
  rs->resize(w);
}

void AddExtentRange(std::vector<ExtentRange>* rs, uint32_t file, uint64_t offset, uint64_t length,
                    uint64_t extent) {
  if (length == 0) return;
  uint64_t b = RoundDown(offset, extent), e = RoundUpTo(offset + length, extent);
  // Chunks are written back to back: extend the last range when it touches.
  if (!rs->empty() && rs->back().file == file && b >= rs->back().start &&
      b <= rs->back().start + rs->back().length) {
    ExtentRange& p = rs->back();
    p.length = std::max(p.start + p.length, e) - p.start;
    return;
  }
  rs->push_back(ExtentRange{file, b, e - b});
}

std::vector<ExtentRange> SubtractRanges(const std::vector<ExtentRange>& a,
                                        const std::vector<ExtentRange>& b) {
  std::vector<ExtentRange> out;
  size_t j = 0;
  for (const ExtentRange& x : a) {
    uint64_t cur = x.start, end = x.start + x.length;
    while (j < b.size() && (b[j].file < x.file || (b[j].file == x.file && b[j].start + b[j].length <= cur))) j++;
    size_t k = j;
    while (cur < end && k < b.size() && b[k].file == x.file && b[k].start < end) {
      if (b[k].start > cur) out.push_back(ExtentRange{x.file, cur, b[k].start - cur});
      cur = std::max(cur, b[k].start + b[k].length);
      k++;
    }
    if (cur < end) out.push_back(ExtentRange{x.file, cur, end - cur});
  }
  return out;
}

uint64_t RangeBytes(const std::vector<ExtentRange>& rs) {
  uint64_t n = 0;
  for (const ExtentRange& e : rs) n += e.length;
  return n;
}

namespace {

// The extents of `body`'s chunks, if it has any.
Status AddEntryChunkExtents(std::string_view body, uint64_t extent, EntryView* e, std::vector<ExtentRange>* out) {
  // Inline values (the common small object) are skipped without decoding.
  if (!EntryChunked(body)) return Status::OK();
  Status s = DecodeEntryBody(body, e);
  if (!s.ok()) return s;
  for (const ChunkRef& c : e->chunks) AddExtentRange(out, c.subfile, c.offset, c.length, extent);
  return Status::OK();
}

}  // namespace

Status AddTableChunkExtents(std::string_view table, uint64_t extent, std::vector<ExtentRange>* out) {
  if (table.size() < kIndexHeaderSize + 8) return Status::Corruption("index table too short");
  uint64_t entries = DecodeFixed64(table.data() + 24);
  uint64_t names = DecodeFixed64(table.data() + 32);
  Decoder d(table.substr(kIndexHeaderSize, table.size() - kIndexHeaderSize - 8));
  for (uint64_t i = 0; i < names && !d.failed(); i++) d.LengthPrefixed();
  EntryView e;
  for (uint64_t i = 0; i < entries && !d.failed(); i++) {
    std::string_view body = d.LengthPrefixed();
    if (d.failed()) break;
    Status s = AddEntryChunkExtents(body, extent, &e, out);
    if (!s.ok()) return s;
  }
  if (d.failed()) return Status::Corruption("index table malformed while listing its extents");
  return Status::OK();
}

Status AddNextTableChunkExtents(const NextTable& t, uint64_t extent, std::vector<ExtentRange>* out) {
  if (!t.reused && !t.streamed) return t.chunked ? AddTableChunkExtents(t.bytes, extent, out) : Status::OK();
  // A parsed or streamed table knows whether any entry is chunked: a
  // table of inline values (a catalogue) is not walked at all.
  if (!t.table->chunked) return Status::OK();
  EntryView e;
  for (std::string_view body : t.table->entries) {
    Status s = AddEntryChunkExtents(body, extent, &e, out);
    if (!s.ok()) return s;
  }
  return Status::OK();
}

std::vector<ExtentRange> RetainedExtents(const ParsedManifest& m) {
  std::vector<ExtentRange> used;
  for (const RevisionRecord& r : m.revisions) {  // retained ones only
    if (r.live_known) {
      used.insert(used.end(), r.live.begin(), r.live.end());
    } else {
      for (uint32_t f = 0; f < r.high_water.size(); f++)
        if (r.high_water[f] > 0) used.push_back(ExtentRange{f, 0, r.high_water[f]});
    }
  }
  NormalizeRanges(&used);
  return used;
}

std::vector<ExtentRange> FreeExtents(const ParsedManifest& m, const std::vector<ExtentRange>& used,
                                     uint64_t extent) {
  const std::vector<uint64_t>& hw = m.high_water;  // of the whole log, kept as records apply
  std::vector<ExtentRange> all;
  uint64_t first = RoundUpTo(kSubfileHeaderReserve, extent);
  for (uint32_t f = 0; f < hw.size(); f++) {
    uint64_t end = RoundDown(hw[f], extent);
    if (end > first) all.push_back(ExtentRange{f, first, end - first});
  }
  std::vector<ExtentRange> free = SubtractRanges(all, used);
  // Ranges of an older revision written with another extent size may be
  // unaligned to this one: keep only whole extents.
  std::vector<ExtentRange> out;
  for (const ExtentRange& e : free) {
    uint64_t b = RoundUpTo(e.start, extent), x = RoundDown(e.start + e.length, extent);
    if (x > b) out.push_back(ExtentRange{e.file, b, x - b});
  }
  return out;
}

std::vector<uint64_t> RevisionsToExpire(const ParsedManifest& m, uint64_t new_revision, uint64_t keep) {
  std::vector<uint64_t> out;
  if (keep == 0) return out;
  uint64_t kept = new_revision != 0 ? 1 : 0;  // the new revision is the newest
  for (auto it = m.revisions.rbegin(); it != m.revisions.rend(); ++it) {  // retained ones only
    uint64_t v = it->revision;
    if (v == new_revision) continue;
    if (kept < keep) {
      kept++;
      continue;
    }
    if (!m.pinned.count(v)) out.push_back(v);
  }
  std::sort(out.begin(), out.end());
  return out;
}

// ---------------------------------------------------------------- Commit

std::string RankSpaceReport(Store::Rep* r, const NextTable& table, bool hold_free) {
  std::vector<ExtentRange> chunks;
  Status s = AddNextTableChunkExtents(table, r->opt.extent_size, &chunks);
  NormalizeRanges(&chunks);
  std::string o;
  PutLengthPrefixed(&o, EncodeStatus(s));
  PutVarint32(&o, r->my_subfile);
  PutVarint64(&o, r->writer->run_start());
  PutVarint64(&o, r->writer->run_end());
  uint64_t taken = r->writer->taken_bytes();
  PutVarint64(&o, taken - r->space_taken_mark);
  r->space_taken_mark = taken;
  PutRanges(&o, chunks);
  std::vector<ExtentRange> held;
  uint64_t kept = 0;
  if (hold_free)
    for (const auto& f : r->writer->free_runs()) {
      held.push_back(ExtentRange{r->my_subfile, f.first, f.second});
      kept += f.second;
    }
  // Open streams: a writer's chunks are in no revision until it is closed
  // and committed, a reader's may be in one this commit expires.
  if (r->streams) r->streams->AddHeldExtents(r->opt.extent_size, &held);
  NormalizeRanges(&held);
  PutRanges(&o, held);
  PutVarint64(&o, kept);
  return o;
}

Status PlanRevisionSpace(Store::Rep* r, const std::vector<std::string>& reports,
                         const NextTable& shared_table, RevisionRecord* rec, SpacePlan* plan) {
  uint64_t ext = r->opt.extent_size;
  std::vector<ExtentRange> live;
  plan->subfile.assign(reports.size(), 0);
  plan->weight.assign(reports.size(), 0);
  plan->kept.assign(reports.size(), 0);
  plan->held.clear();
  r->space_need.resize(reports.size(), 0);
  for (size_t i = 0; i < reports.size(); i++) {
    Decoder d(reports[i]);
    Status s = DecodeStatus(std::string(d.LengthPrefixed()));
    if (!s.ok()) return Status(s.code(), "rank " + std::to_string(i) + ": " + s.message());
    plan->subfile[i] = d.Varint32();
    uint64_t rs = d.Varint64(), re = d.Varint64();
    plan->weight[i] = d.Varint64();
    std::vector<ExtentRange> chunks = GetRanges(&d);
    std::vector<ExtentRange> kept = GetRanges(&d);  // free runs the rank keeps (async), open streams
    plan->held.insert(plan->held.end(), kept.begin(), kept.end());
    plan->kept[i] = d.Varint64();  // bytes of those that are its free list
    if (d.failed()) return Status::Corruption("rank " + std::to_string(i) + ": malformed space report");
    if (i == 0) {
      // Rank 0 wrote the index block after its report: its run now.
      rs = r->writer->run_start();
      re = r->writer->run_end();
      uint64_t taken = r->writer->taken_bytes();
      plan->weight[0] += taken - r->space_taken_mark;
      r->space_taken_mark = taken;
    }
    // Shares follow each rank's recent peak need (decaying by 1/1024 per
    // commit, a half-life of about 700 commits), not its last one: a rank
    // whose checkpoint grows again then still finds room, and the file
    // stops growing once the free space covers every rank's peak. (By 1/16
    // the peak was forgotten within a phase of small rounds, and ranks
    // trading sizes extended the file at every switch: mpi_retention_test
    // SharedDataFileLevelsOffWhenRanksTradeSizes.)
    uint64_t& need = r->space_need[i];
    need = std::max(plan->weight[i], need - need / 1024);
    plan->weight[i] = need;
    if (re > rs) plan->held.push_back(ExtentRange{plan->subfile[i], rs, re - rs});
    live.insert(live.end(), chunks.begin(), chunks.end());
  }
  Status s = AddNextTableChunkExtents(shared_table, ext, &live);
  if (!s.ok()) return s.WithContext("shared namespace");
  for (const NamespaceDesc& nd : rec->namespaces) AddExtentRange(&live, nd.subfile, nd.offset, nd.length, ext);
  NormalizeRanges(&live);
  NormalizeRanges(&plan->held);
  rec->live = std::move(live);
  rec->live_known = true;
  rec->extent_size = ext;
  rec->expires = RevisionsToExpire(r->manifest->parsed(), rec->revision, r->opt.keep_revisions);
  return Status::OK();
}

void HoldExpiringParent(Store::Rep* r, const RevisionRecord& rec, SpacePlan* plan) {
  if (std::find(rec.expires.begin(), rec.expires.end(), rec.parent) == rec.expires.end()) return;
  for (const RevisionRecord& p : r->manifest->parsed().revisions) {
    if (p.revision != rec.parent) continue;
    if (p.live_known) {
      plan->held.insert(plan->held.end(), p.live.begin(), p.live.end());
    } else {
      for (uint32_t f = 0; f < p.high_water.size(); f++)
        if (p.high_water[f] > 0) plan->held.push_back(ExtentRange{f, 0, p.high_water[f]});
    }
  }
}

std::string FinishCommitSpace(Store::Rep* r, const RevisionRecord& rec, const SpacePlan& plan) {
  uint64_t ext = r->opt.extent_size;
  const ParsedManifest& m = r->manifest->parsed();
  std::vector<ExtentRange> used = RetainedExtents(m);
  used.insert(used.end(), plan.held.begin(), plan.held.end());
  NormalizeRanges(&used);
  std::vector<ExtentRange> free = FreeExtents(m, used, ext);
  size_t n = plan.subfile.size();
  std::vector<std::vector<std::pair<uint64_t, uint64_t>>> share(n);
  // O(ranks + free ranges): the ranks of each file in one pass, the free
  // list (sorted by file) cut into per-file runs in another.
  uint32_t files = 0;
  for (uint32_t f : plan.subfile) files = std::max(files, f + 1);
  std::vector<std::vector<size_t>> who(files);
  for (size_t i = 0; i < n; i++) who[plan.subfile[i]].push_back(i);
  size_t fi = 0;
  for (uint32_t f = 0; f < files; f++) {
    while (fi < free.size() && free[fi].file < f) fi++;
    size_t fe = fi;
    while (fe < free.size() && free[fe].file == f) fe++;
    if (who[f].empty()) continue;
    std::vector<ExtentRange> mine(free.begin() + std::ptrdiff_t(fi), free.begin() + std::ptrdiff_t(fe));
    std::vector<uint64_t> w = ShareWeights(who[f], plan, RangeBytes(mine));
    auto parts = Split(mine, w, ext);  // (the last part is nobody's: it stays free)
    for (size_t k = 0; k < who[f].size(); k++) share[who[f][k]] = std::move(parts[k]);
    fi = fe;
  }
  std::string o;
  PutVarint64(&o, rec.expires.size());
  for (uint64_t v : rec.expires) PutVarint64(&o, v);
  PutVarint64(&o, n);
  for (const auto& runs : share) {
    PutVarint64(&o, runs.size());
    for (const auto& p : runs) {
      PutVarint64(&o, p.first);
      PutVarint64(&o, p.second);
    }
  }
  return o;
}

Status ApplyCommitSpace(Store::Rep* r, std::string_view section, bool keep_free) {
  Decoder d(section);
  std::vector<uint64_t> expired(d.Varint64());
  if (d.failed() || expired.size() > d.remaining()) return Status::Corruption("malformed commit outcome");
  for (auto& v : expired) v = d.Varint64();
  uint64_t n = d.Varint64();
  std::vector<std::pair<uint64_t, uint64_t>> mine;
  for (uint64_t i = 0; i < n && !d.failed(); i++) {
    uint64_t k = d.Varint64();
    if (k > d.remaining()) d.Fail();
    for (uint64_t j = 0; j < k && !d.failed(); j++) {
      uint64_t a = d.Varint64(), b = d.Varint64();
      if (i == uint64_t(r->comm->rank())) mine.emplace_back(a, b);
    }
  }
  if (d.failed()) return Status::Corruption("malformed commit outcome");
  auto& revs = r->revisions;
  revs.erase(std::remove_if(revs.begin(), revs.end(),
                            [&](const RevisionInfo& i) {
                              return std::binary_search(expired.begin(), expired.end(), i.revision);
                            }),
             revs.end());
  if (keep_free) {
    const auto& left = r->writer->free_runs();
    mine.insert(mine.end(), left.begin(), left.end());
  }
  r->writer->SetFreeRuns(std::move(mine));
  return Status::OK();
}

// ---------------------------------------------------------------- Open

Status InitSpaceAtOpen(Store::Rep* r) {
  uint64_t ext = r->opt.extent_size;
  auto guarded = [&](auto&& f) { return UnlessOutOfMemoryThen("open of", r->path, "; the store was not opened", f); };
  // Out of memory on a rank is its error (the caller agrees it); rank 0
  // then sends an empty list, and still sends it.
  std::string bytes;
  Status s;
  if (r->comm->rank() == 0) s = guarded([&] {
    const ParsedManifest& m = r->manifest->parsed();
    PutRanges(&bytes, FreeExtents(m, RetainedExtents(m), ext));
    return Status::OK();
  });
  if (!s.ok()) bytes.clear();
  // A rank that cannot hold the list takes the whole broadcast, then
  // throws (Comm::Bcast): its failure, agreed by the caller.
  Status got = guarded([&] {
    r->comm->Bcast(&bytes, 0, "free_extents");
    return Status::OK();
  });
  if (!s.ok()) return s;
  if (!got.ok()) return got;
  return guarded([&] {
    Decoder d(bytes);
    std::vector<ExtentRange> all = GetRanges(&d);
    if (d.failed()) return Status::Corruption("malformed free extent list");
    std::vector<ExtentRange> mine;
    for (const ExtentRange& e : all)
      if (e.file == r->my_subfile) mine.push_back(e);
    auto parts = Split(mine, std::vector<uint64_t>(size_t(r->sub_comm->size()), 1), ext);
    r->writer->SetFreeRuns(std::move(parts[size_t(r->sub_comm->rank())]));
    r->space_taken_mark = r->writer->taken_bytes();
    return Status::OK();
  });
}

// ---------------------------------------------------------------- Marks

// Rank 0's part of MarkRevision: the record appended (or refused).
static Status MarkOnRoot(Store::Rep* r, RecordType type, uint64_t rev, const char* what, const std::string& rev_text) {
  try {
    if (type == RecordType::kDrop && rev == r->current.revision)
      return Status::InvalidArgument("revision " + rev_text +
                                     " is the one this store handle is open at (the base of its next commit); "
                                     "it cannot be dropped through this handle");
    return r->manifest->AppendMark(type, rev, r->opt.sync);
  } catch (const std::bad_alloc&) {
  } catch (const std::length_error&) {
  }
  return OutOfMemoryError(what, rev_text,
                          r->manifest->last_append_may_be_in_file()
                              ? " of a revision on rank 0: outcome unknown, reopen the store to see whether it was marked"
                              : " of a revision on rank 0: nothing was marked");
}

Status MarkRevision(Store::Rep* r, RecordType type, uint64_t rev, const Status& refused) {
  Comm* c = r->comm.get();
  const char* what = type == RecordType::kPin ? "Pin" : type == RecordType::kUnpin ? "Unpin" : "Drop";
  const std::string rev_text = std::to_string(rev);
  // Out of memory on a rank is its failure: it still takes part in the
  // agreement and the broadcast, so the others fail with it, not wait.
  auto guarded = [&](auto&& f) { return UnlessOutOfMemoryThen(what, rev_text, " of a revision: nothing was marked", f); };
  // A poisoned rank, or one whose argument was refused, is not alone in
  // refusing; the agreed failure is the same on every rank, so all return
  // it here and none waits in the broadcast below.
  Status s = AgreeStatus(c, guarded([&] { return refused.ok() ? r->CheckWritable() : refused; }));
  if (!s.ok()) return s;
  // Rank 0's revision travels with its status: what it marked is what
  // every rank's list records, and a rank that named another is told so.
  // Empty: rank 0 ran out of memory making it, and the mark may be written.
  std::string st;
  if (c->rank() == 0) {
    try {
      s = MarkOnRoot(r, type, rev, what, rev_text);
      PutFixed64(&st, rev);
      st += EncodeStatus(s);
    } catch (const std::bad_alloc&) {
      st.clear();
    } catch (const std::length_error&) {
      st.clear();
    }
  }
  c->Bcast(&st, 0);
  if (st.empty()) return Status(Status::Code::kIOError, "out of memory");  // outcome unknown
  Decoder d(st);
  const uint64_t root_rev = d.U64();
  s = DecodeStatus(std::string(st, st.size() - d.remaining()));
  Status mine = root_rev == rev
                    ? Status::OK()
                    : Status::InvalidArgument(
                          std::string(what) + " of revision " + rev_text + " on rank " + std::to_string(c->rank()) +
                          ", of revision " + std::to_string(root_rev) +
                          " on rank 0 (" + (s.ok() ? std::string("done there") : "refused there: " + s.ToString()) +
                          "): a collective call names the same revision on every rank");
  if (!s.ok()) return mine.ok() ? s : mine;
  rev = root_rev;
  auto& revs = r->revisions;
  for (auto it = revs.begin(); it != revs.end(); ++it) {
    if (it->revision != rev) continue;
    if (type == RecordType::kDrop) revs.erase(it);
    else it->pinned = type == RecordType::kPin;
    break;
  }
  return mine;
}

Status MarkRevisionAt(const std::string& path, RecordType type, uint64_t rev) {
  IoStats stats;
  std::unique_ptr<Manifest> m;
  bool created = false;
  Status s = Manifest::Open(path, false, false, &stats, &m, &created);  // a store? (nothing written)
  if (!s.ok()) return s;
  // A job writing the store would append over this record from its cached
  // end of MANIFEST: refuse while one holds the writer lock.
  std::unique_ptr<WriterLock> lock;
  s = WriterLock::Acquire(path, true, &stats, &lock);
  if (s.ok()) s = Manifest::Open(path, false, true, &stats, &m, &created);  // read again, under the lock
  if (!s.ok()) return s;
  return m->AppendMark(type, rev, true);
}

namespace {
// The store's manifest, read (not writable, never created).
Status ReadManifest(const std::string& path, std::unique_ptr<Manifest>* man) {
  IoStats stats;
  bool created = false;
  return Manifest::Open(path, false, false, &stats, man, &created);
}
}  // namespace

Status ComputeSpace(const std::string& path, SpaceInfo* info) {
  std::unique_ptr<Manifest> man;
  Status s = ReadManifest(path, &man);
  if (!s.ok()) return s;
  const ParsedManifest& m = man->parsed();
  *info = SpaceInfo();
  info->manifest_bytes = m.valid_end + m.torn_bytes;
  std::vector<ExtentRange> used = RetainedExtents(m);
  info->dropped = m.dropped.size();  // those the file still names (a compaction forgets the others)
  for (const RevisionRecord& r : m.revisions) {
    info->retained++;
    if (m.pinned.count(r.revision)) info->pinned++;
    if (!r.live_known) info->unknown_extents++;
  }
  // Reclaimable: the gaps below high water, counted in bytes (no extent
  // size is needed: the ranges themselves are extent-aligned).
  uint64_t ext = 1;
  for (const RevisionRecord& r : m.revisions)
    if (r.live_known && r.extent_size >= 4096 && !(r.extent_size & (r.extent_size - 1))) ext = r.extent_size;
  std::vector<ExtentRange> free = FreeExtents(m, used, ext);
  info->files.resize(m.high_water.size());
  for (uint32_t f = 0; f < m.high_water.size(); f++) info->files[f].high_water = m.high_water[f];
  for (uint32_t f = 0; f < info->files.size(); f++) {
    SpaceInfo::File& fi = info->files[f];
    fi.id = f;
    struct stat st;
    if (::stat((path + "/" + DataFileName(f)).c_str(), &st) == 0) {
      fi.logical_bytes = uint64_t(st.st_size);
      fi.disk_bytes = uint64_t(st.st_blocks) * 512;
    }
    for (const ExtentRange& e : used)
      if (e.file == f) fi.referenced += e.length;
    for (const ExtentRange& e : free)
      if (e.file == f && e.start >= kSubfileHeaderReserve) fi.reclaimable += e.length;
  }
  return Status::OK();
}

Status ListRevisionsAt(const std::string& path, std::vector<RevisionInfo>* out) {
  std::unique_ptr<Manifest> man;
  Status s = ReadManifest(path, &man);
  if (!s.ok()) return s;
  const ParsedManifest& m = man->parsed();
  out->clear();
  for (const RevisionRecord& r : m.revisions) {
    out->push_back(InfoOf(r));
    out->back().pinned = m.pinned.count(r.revision) != 0;
  }
  return Status::OK();
}

}  // namespace cairn
