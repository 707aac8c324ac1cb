// Commit: the collective start every commit shares (PrepareCommit), the
// synchronous commit, and the write barrier. The asynchronous end of a
// commit is in async_commit.cc. Protocol: doc/design.md, "Commit".
#include <algorithm>
#include <chrono>
#include <optional>

#include "array/array_commit.h"
#include "format/checksum.h"
#include "format/coding.h"
#include "io/side_task.h"
#include "store/commit_tables.h"
#include "store/crash_point.h"
#include "store/out_of_memory.h"
#include "store/store_rep.h"
#include "store/stream_hub.h"

namespace cairn {

namespace {

uint64_t NowNs() {
  return uint64_t(std::chrono::duration_cast<std::chrono::nanoseconds>(
                      std::chrono::system_clock::now().time_since_epoch()).count());
}

// What each rank reports to rank 0 at commit.
struct CommitReport {
  Status status;
  NamespaceDesc desc;
  uint32_t subfile = 0;
  uint64_t high_water = 0;
  std::string compact_table;  // the rank's table, if small enough to go with rank 0's block
  std::string space;          // retention: RankSpaceReport
};

std::string EncodeReport(const CommitReport& r) {
  std::string o;
  PutLengthPrefixed(&o, EncodeStatus(r.status));
  PutFixed32(&o, r.desc.subfile);
  PutFixed64(&o, r.desc.offset);
  PutFixed64(&o, r.desc.length);
  PutFixed64(&o, r.desc.checksum);
  PutFixed64(&o, r.desc.objects);
  PutFixed64(&o, r.desc.value_bytes);
  PutFixed32(&o, r.subfile);
  PutFixed64(&o, r.high_water);
  PutLengthPrefixed(&o, r.compact_table);
  PutLengthPrefixed(&o, r.space);
  return o;
}

CommitReport DecodeReport(const std::string& b) {
  CommitReport r;
  Decoder d(b);
  r.status = DecodeStatus(std::string(d.LengthPrefixed()));
  r.desc.subfile = d.U32();
  r.desc.offset = d.U64();
  r.desc.length = d.U64();
  r.desc.checksum = d.U64();
  r.desc.objects = d.U64();
  r.desc.value_bytes = d.U64();
  r.subfile = d.U32();
  r.high_water = d.U64();
  r.compact_table = std::string(d.LengthPrefixed());
  r.space = std::string(d.LengthPrefixed());
  return r;
}

// Rank 0's part of PrepareCommit: the ranks' reports decoded, the small
// tables written as one block, and the record planned, into *plan_bytes
// (a status, and the record if ok).
void PlanOnRoot(Store::Rep* r, const std::vector<std::string>& reports, uint64_t rev, CommitPlan* plan,
                NextTable* next_shared_out, std::string* plan_bytes) {
  int nranks = r->comm->size();
  std::vector<CommitReport> all;
  all.reserve(nranks);
  for (auto& b : reports) all.push_back(DecodeReport(b));
  NextTable& next_shared = *next_shared_out;
  next_shared = MakeNextTable(r->shared, kSharedNamespace, rev, r->current.revision != 0 ? &r->current.shared() : nullptr);
  if (next_shared.reused) r->stats.index_tables_reused++;
  std::string block;
  for (auto& rp : all) block += rp.compact_table;
  r->stats.index_bytes_gathered += block.size();
  block += next_shared.bytes;  // empty when reused
  uint64_t base = 0;
  if (!block.empty()) {
    Status ws = r->writer->AppendContiguous(block, &base);
    if (!ws.ok() && all[0].status.ok()) all[0].status = ws;
  }
  all[0].high_water = r->writer->high_water();
  uint64_t at = base;
  for (auto& rp : all) {
    if (!rp.compact_table.empty()) {
      rp.desc.subfile = r->my_subfile;
      rp.desc.offset = at;
      at += rp.compact_table.size();
    }
  }
  NamespaceDesc shared_desc = next_shared.desc;
  if (!next_shared.reused) {
    shared_desc.subfile = r->my_subfile;
    shared_desc.offset = at;
  }

  Status st;
  for (int i = 0; i < nranks && st.ok(); i++)
    if (!all[i].status.ok())
      st = Status(all[i].status.code(), "rank " + std::to_string(i) + ": " + all[i].status.message());
  RevisionRecord rec;
  if (st.ok()) {
    rec.revision = rev;
    rec.parent = r->current.revision;
    rec.time_ns = NowNs();
    rec.nranks = uint32_t(nranks);
    rec.high_water = r->newest_high_water;
    for (auto& rp : all) {
      if (rp.subfile >= rec.high_water.size()) rec.high_water.resize(rp.subfile + 1, 0);
      rec.high_water[rp.subfile] = std::max(rec.high_water[rp.subfile], rp.high_water);
      rec.namespaces.push_back(rp.desc);
    }
    rec.namespaces.push_back(shared_desc);
    // Retention: the extents this revision needs, and what it expires.
    std::vector<std::string> space_reports;
    for (auto& rp : all) space_reports.push_back(std::move(rp.space));
    st = PlanRevisionSpace(r, space_reports, next_shared, &rec, &plan->space);
    if (st.ok() && plan->async) HoldExpiringParent(r, rec, &plan->space);
  }
  PutLengthPrefixed(plan_bytes, EncodeStatus(st));
  if (st.ok()) *plan_bytes += EncodeRevisionSpacePayload(rec);  // with its live extents and expiries
}


// Said of a commit whose revision may or may not exist (its record may be
// durable): the handle is poisoned (no more commits, reopen).
constexpr char kCommitOutcomeUnknown[] =
    " on rank 0 (outcome unknown, reopen the store to see whether the revision exists)";

// Rank 0's append of the revision record. Out of memory before the record
// reached the file is an error like any other (nothing committed; the
// store commits again); after, whether the revision exists is unknown.
Status AppendRecord(Store::Rep* r, const RevisionRecord& rec) {
  try {
    return r->manifest->AppendRevision(rec, r->opt.sync);
  } catch (const std::bad_alloc&) {
  } catch (const std::length_error&) {
  }
  if (r->manifest->last_append_may_be_in_file())
    return OutOfMemoryError("manifest record of", r->path, kCommitOutcomeUnknown);
  return OutOfMemoryError("manifest record of", r->path, " on rank 0: not appended, no revision was made");
}

}  // namespace

IoQueue* Store::Rep::Io() {
  if (!io) io = std::make_unique<IoQueue>(opt.staging_bytes, &stats);
  return io.get();
}

Status Store::Rep::DrainWrites() {
  Status s = writer->Flush();
  if (s.ok() && writer->queue()) s = writer->queue()->Wait();
  return s;
}

Status Store::Rep::PrepareCommit(CommitPlan* plan) {
  Comm* c = comm.get();
  int rank = c->rank(), nranks = c->size();
  uint64_t rev = newest_revision + 1;

  // Out of memory in a rank's own part (its table, its report; rank 0's
  // block and record) is that rank's error: it still takes part in every
  // collective below, so the others fail with it rather than wait for it.
  const char* then = "; no revision was made";

  // 1. Each rank encodes its table (or reuses the last one if nothing
  //    changed: commit_tables.h); a large one goes to its own extent.
  NextTable next;
  std::string my_report;
  // (A rank that could not take in or apply the array step's reply, which
  // said the step succeeded, fails here: array_commit.h.)
  Status lost = TakeArrayStepFailure(this);
  Status built = !lost.ok() ? std::move(lost) : UnlessOutOfMemoryThen("commit of", path, then, [&] {
    CommitReport me;
    me.subfile = my_subfile;
    const NamespaceDesc* prev_own =
        current.revision != 0 && uint32_t(rank) < current.nranks ? &current.namespaces[rank] : nullptr;
    // Everything gathered to rank 0 must stay under MPI's int counts.
    uint64_t compact_limit = std::min<uint64_t>(opt.compact_index_limit, (1ull << 30) / uint64_t(nranks));
    // A table that is not gathered, of entries all put since the base, is
    // written from where they lie, never built whole in memory
    // (commit_tables.h); its pieces are at least the write buffer, so
    // without staging they go straight to the file.
    next = MakeNextTable(own, uint32_t(rank), rev, prev_own, compact_limit);
    if (next.reused) {
      stats.index_tables_reused++;
    } else if (next.streamed) {
      stats.index_tables_streamed++;
      next.desc.subfile = my_subfile;
      me.status = WriteStreamedTable(&next, writer.get(), std::max<size_t>(opt.write_buffer_size, kStreamTablePiece));
    } else if (next.bytes.size() <= compact_limit) {
      me.compact_table = next.bytes;
    } else {
      next.desc.subfile = my_subfile;
      me.status = next.bytes.size() > kStreamTablePiece
                      ? WriteBuiltTable(next, writer.get(), std::max<size_t>(opt.write_buffer_size, kStreamTablePiece),
                                        &next.desc.offset)
                      : writer->AppendContiguous(next.bytes, &next.desc.offset);
    }
    me.desc = next.desc;
    me.high_water = writer->high_water();
    me.space = RankSpaceReport(this, next, plan->async);
    my_report = EncodeReport(me);
    return Status::OK();
  });
  if (!built.ok()) {
    next = NextTable();
    CommitReport failed;
    failed.status = built;
    my_report = EncodeReport(failed);
  }

  // 2. Rank 0 collects the small tables, writes them as one block, and
  //    builds the record; everyone receives it (or the first error).
  std::vector<std::string> reports;
  // Rank 0 without room for the reports throws out of the gather after
  // every rank has left it (Comm::Gather): its failure goes out below.
  Status gathered = UnlessOutOfMemoryThen("commit of", path, then, [&] {
    c->Gather(my_report, &reports, 0);
    return Status::OK();
  });
  my_report = std::string();
  NextTable next_shared;
  std::string plan_bytes;
  if (rank == 0) {
    Status planned = !gathered.ok() ? gathered : UnlessOutOfMemoryThen("commit of", path, then, [&] {
      PlanOnRoot(this, reports, rev, plan, &next_shared, &plan_bytes);
      return Status::OK();
    });
    if (!planned.ok()) {
      next_shared = NextTable();
      plan_bytes.clear();
      PutLengthPrefixed(&plan_bytes, EncodeStatus(Status(planned.code(), "rank 0: " + planned.message())));
    }
  }
  reports = std::vector<std::string>();
  // A rank that cannot hold the plan still takes the whole broadcast
  // (Comm::Bcast), then throws: its failure, agreed below.
  Status s = UnlessOutOfMemoryThen("commit of", path, then, [&] {
    c->Bcast(&plan_bytes, 0, "commit_plan");
    return Status::OK();
  });
  // Rank 0's status is the same on every rank that could decode it; a
  // rank that could not (out of memory) makes its own error, agreed below.
  Status root;
  if (s.ok()) s = UnlessOutOfMemoryThen("commit of", path, then, [&] {
    Decoder d(plan_bytes);
    root = DecodeStatus(std::string(d.LengthPrefixed()));
    if (!root.ok()) return Status::OK();
    Status ds = DecodeRevisionSpacePayload(std::string_view(d.pos(), d.remaining()), &plan->rec);
    plan->revision = rev;
    // The tables are bytes this rank just built: parsing them cannot fail
    // unless memory is corrupt, and then the commit must not go on.
    if (ds.ok()) ds = AdoptNextTable(std::move(next), Where(uint32_t(rank)), &plan->table);
    if (ds.ok() && rank == 0) ds = AdoptNextTable(std::move(next_shared), Where(kSharedNamespace), &plan->shared_table);
    return ds;
  });
  s = AgreeStatus(c, s);
  // (A rank that failed here never read rank 0's status: every rank then
  // returns the agreed failure, whatever rank 0 said.)
  return s.ok() ? root : s;
}

Status Store::Rep::SyncNewDirs() {
  Status s;
  if (opt.sync && sync_store_dir) s = SyncDir(path, &stats);
  if (s.ok() && opt.sync && sync_parent_dir) {
    size_t slash = path.find_last_of('/');
    std::string parent = slash == std::string::npos ? "." : slash == 0 ? "/" : path.substr(0, slash);
    s = SyncDir(parent, &stats);
  }
  if (s.ok()) sync_store_dir = sync_parent_dir = false;
  return s;
}

Status Store::Rep::Adopt(const CommitPlan& plan, std::string_view space) {
  int rank = comm->rank();
  current = plan.rec;
  newest_revision = plan.revision;
  newest_high_water = plan.rec.high_water;
  pending_write_error = Status::OK();  // what was pending is committed now
  revisions.push_back(InfoOf(plan.rec));
  tables.clear();
  tables[uint32_t(rank)] = plan.table;
  if (rank == 0) tables[kSharedNamespace] = plan.shared_table;
  return ApplyCommitSpace(this, space, plan.async);  // expired revisions out, free extents in
}

Status Store::Rep::StagedCommitFailed(const Status& s) {
  // Staged bytes of a failed commit may be lost with the queue's failure:
  // its puts are dropped (the caller puts again). Without staging the
  // writer keeps its bytes and a later commit writes them.
  if (opt.staging_bytes == 0 || !poisoned.ok()) return s;
  DiscardPending();
  return Status(s.code(), s.message() + " (with staging, the puts since revision " +
                              std::to_string(current.revision) + " were discarded: put them again)");
}

void Store::Rep::DiscardPending() {
  int rank = comm->rank();
  pending_write_error = Status::OK();
  auto table = [&](uint32_t ns) {
    auto it = tables.find(ns);
    return it == tables.end() ? std::shared_ptr<const IndexTable>() : it->second;
  };
  own.Reset(table(uint32_t(rank)));
  if (rank == 0) shared.Reset(table(kSharedNamespace));
  DiscardPendingArrays(this);
  if (streams) streams->LoseWriters();  // their written bytes shared the failed queue
  // Staged bytes still in the writer's buffer go to the queue first (they
  // belong to dropped puts: written or skipped, nothing refers to them),
  // so that no later read's drain meets their failure.
  if (writer && writer->queue()) (void)writer->Flush();
  if (io) io->ClearError();
}

Status Store::Commit(uint64_t* revision) {
  Rep* r = rep_.get();
  bool deciding = false;  // the outcome is being decided (rank 0's record)
  try {
    r->FinishInflight();  // its failure, if any, shows in CheckCommittable
    Status s = r->CheckCommittable();
    if (!s.ok()) return s;  // the same on every rank
    s = r->CommitSync(revision, &deciding);
    return s.ok() ? s : r->StagedCommitFailed(s);
  } catch (const std::bad_alloc&) {
  } catch (const std::length_error&) {
  }
  // Every collective step guards its own allocations (each rank's failure
  // is agreed), and the gather's receive buffers on rank 0 and the plan's
  // on the others; left are messages, requests, and a rank's room for the
  // outcome (it takes the whole broadcast, then throws: Comm::Bcast).
  // Before the outcome nothing changed; after it, this rank may have
  // stopped half way through taking the revision in, or not known it:
  // no more commits through this handle (the others hear of it at their
  // next commit, which agrees this poison: CheckCommittable).
  if (!deciding) return OutOfMemoryError("Commit of", r->path, "; no revision was made");
  r->poisoned = Status(Status::Code::kIOError, "out of memory");
  return OutOfMemoryError("Commit of", r->path, ": this handle takes no more commits (reopen the store)");
}

Status Store::Rep::CommitSync(uint64_t* revision, bool* deciding) {
  Rep* r = this;
  Comm* c = r->comm.get();
  int rank = c->rank();
  CommitPlan plan;
  Status s = r->PrepareCommit(&plan);
  if (!s.ok()) return s;

  // 3. Everything written is made durable: the buffer is flushed, then one
  //    fsync per data file by its leader when its ranks share a node (the
  //    node's page cache holds all their writes), else one per rank.
  CrashPoint("before_flush", rank);
  Status local = UnlessOutOfMemoryThen("commit of", r->path, "; no revision was made", [&] { return r->DrainWrites(); });
  CrashPoint("after_flush", rank);
  // Rank 0's directory fsyncs (the first commit of an open) run beside the
  // data fsyncs, not after them: nothing orders them but the record, which
  // waits for both, and fsyncs issued together share a journal commit.
  std::optional<SideTask> dirs;
  if (rank == 0 && local.ok() && r->NeedsDirSync()) dirs.emplace([r] { return r->SyncNewDirs(); });
  bool sync_failed = false;
  if (r->opt.sync) {
    if (r->subfile_on_one_node) {
      uint64_t failed = r->sub_comm->AllreduceMax(local.ok() ? 0 : 1);
      if (r->sub_comm->rank() == 0 && failed == 0) {
        TestFsyncDelay(rank);
        local = r->my_file->Sync();
        sync_failed = !local.ok();
      }
    } else if (local.ok()) {
      TestFsyncDelay(rank);
      local = r->my_file->Sync();
      sync_failed = !local.ok();
    }
  }
  // A failed fsync cannot be retried: Linux reports a writeback error once
  // and may drop the pages, so a later fsync would succeed over lost data.
  // One reduction for both: whether an fsync failed anywhere, and the
  // lowest failing rank (size - rank), as AgreeStatus gives it.
  uint64_t agreed[2] = {sync_failed ? 1u : 0u, local.ok() ? 0u : uint64_t(c->size() - rank)};
  c->IallreduceMax(agreed, 2)->Wait();
  bool any_sync_failed = agreed[0] != 0;
  s = agreed[1] == 0 ? Status::OK() : StatusOfRank(c, c->size() - int(agreed[1]), local);
  if (any_sync_failed) r->poisoned = s;

  // 4. Rank 0 appends the revision record and syncs it: the commit point.
  //    Whatever rank 0 runs out of memory for, it still broadcasts an
  //    outcome (an empty one if even that could not be made: unknown).
  std::string outcome;
  *deciding = true;
  if (rank == 0) {
    CrashPoint("before_manifest", rank);
    if (s.ok())
      s = UnlessOutOfMemoryThen("commit of", r->path, "; no revision was made",
                                [&] { return dirs ? dirs->Join() : r->SyncNewDirs(); });
    if (s.ok()) {
      s = AppendRecord(r, plan.rec);
      CrashPoint("after_manifest", rank);
    }
    try {
      PutLengthPrefixed(&outcome, EncodeStatus(s));
      if (s.ok()) outcome += FinishCommitSpace(r, plan.rec, plan.space);  // once the record is durable
    } catch (const std::bad_alloc&) {
      outcome.clear();
    } catch (const std::length_error&) {
      outcome.clear();
    }
  }
  c->Bcast(&outcome, 0, "commit_outcome");
  if (outcome.empty()) {
    // Rank 0 could not say: the revision may be committed (its record is
    // durable) or not. No more commits through this handle (reopen).
    r->poisoned = Status(Status::Code::kIOError, "out of memory");
    return OutOfMemoryError("commit of", r->path, kCommitOutcomeUnknown);
  }
  Decoder od(outcome);
  Status os = DecodeStatus(std::string(od.LengthPrefixed()));
  if (rank != 0) s = os;
  std::string_view space(od.pos(), od.remaining());
  // A manifest that could not be appended and cut back leaves the outcome
  // unknown: no more commits through this handle.
  if (!s.ok() && s.message().find("outcome unknown") != std::string::npos) r->poisoned = s;
  if (!s.ok()) return s;

  // 5. The new revision becomes this view's base; its table is the one we
  //    just wrote, so nothing is re-read.
  s = r->Adopt(plan, space);
  if (!s.ok()) return s;
  r->own.Reset(plan.table);
  if (rank == 0) r->shared.Reset(plan.shared_table);
  if (revision) *revision = plan.revision;
  return Status::OK();
}

Status Store::Flush() {
  // Out of memory (queueing the buffer or the fsync), nothing is lost: the
  // writer keeps the bytes it could not queue.
  return UnlessOutOfMemoryThen("Flush of", rep_->path, "; the pending puts are kept: flush again",
                               [&] { return rep_->FlushWrites(); });
}

Status Store::Rep::FlushWrites() {
  Rep* r = this;
  Status s = r->CheckWritable();
  if (!s.ok()) return s;
  r->Progress(false);
  s = r->writer->Flush();
  if (!s.ok() || !r->opt.sync) return s.ok() && r->writer->queue() ? r->writer->queue()->Wait() : s;
  // The fsync runs behind the queued writes (and never beside a job of an
  // asynchronous commit), on the I/O thread.
  bool failed = false;
  IoQueue* q = r->Io();
  File* f = r->my_file.get();
  int rank = r->comm->rank();
  uint64_t t = q->Submit([f, &failed, rank] {
    TestFsyncDelay(rank);
    failed = true;  // until it returns ok (if it throws: not known to be durable)
    Status st = f->Sync();
    failed = !st.ok();
    return st;
  });
  s = q->Wait(t);
  // As at commit: a failed fsync may have dropped pages; nothing pending
  // can be trusted any more. The poison now guards the commits: the queue
  // forgets the failure, so that committed data still reads back.
  if (failed) {
    r->poisoned = s;
    q->ClearError();
  }
  return s;
}

}  // namespace cairn
