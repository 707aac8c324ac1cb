// The asynchronous commit: CommitAsync does the collective start every
// commit shares and hands the rest to a state machine. Each step either
// waits for a job of the background I/O thread (local file I/O only) or for
// a nonblocking collective; Progress moves through as many steps as are
// ready. Only the application's thread calls MPI.
//
//   writes   staged data of this rank written            (I/O thread)
//   group    the ranks of my data file agree it is       (Iallreduce, node)
//   sync     the file's leader fsyncs it                  (I/O thread)
//   agree    every rank agrees: failed rank, failed sync  (Iallreduce, all)
//   message  the failing rank's error to everyone         (Ibcast) - or -
//   record   rank 0 appends and syncs the manifest record (I/O thread)
//   outcome  rank 0's result to everyone                  (Ibcast)
//   space    rank 0's retention section: expired revisions, free extents
//            (Ibcast, when there is one)
#include <cstring>
#include <optional>
#include <new>
#include <stdexcept>

#include "array/array_commit.h"
#include "io/side_task.h"
#include "store/crash_point.h"
#include "store/out_of_memory.h"
#include "store/store_rep.h"

namespace cairn {

namespace {
constexpr int kMessageBytes = 1024;  // a status travels as code + text, truncated

void PackStatus(const Status& s, char* buf) {
  std::memset(buf, 0, kMessageBytes);
  buf[0] = char(int(s.code()));
  std::string m = s.message().substr(0, kMessageBytes - 2);
  std::memcpy(buf + 1, m.data(), m.size());
}
Status UnpackStatus(const char* buf) {
  auto code = static_cast<Status::Code>(buf[0]);
  if (code == Status::Code::kOk) return Status::OK();
  return Status(code, std::string(buf + 1, strnlen(buf + 1, kMessageBytes - 1)));
}
}  // namespace

struct AsyncCommit::State {
  enum Step { kWrites, kGroup, kSync, kAgree, kMessage, kRecord, kOutcome, kSpace, kDone };
  Store::Rep* rep = nullptr;  // null once finished
  CommitPlan plan;
  Step step = kWrites;
  uint64_t ticket = 0;        // the I/O job the current step waits for (0: none)
  Status local;               // this rank's status so far
  bool sync_failed = false;   // set by the fsync job
  Status record_status;       // set by rank 0's manifest job
  Status dirs_status;         // rank 0: its directory fsyncs, run beside its data fsync
  // Rank 0's manifest job began / ran to its end. A job that did not end
  // was skipped behind a failed one or threw (out of memory): then
  // record_status is still ok and must not be taken for the outcome.
  bool record_started = false;
  bool record_done = false;
  uint64_t group_v[1] = {0};
  uint64_t all_v[2] = {0, 0};  // [0] a sync failed anywhere, [1] nranks - first failing rank
  std::unique_ptr<CommRequest> req;
  char msg[kMessageBytes + 8] = {};  // a status; the outcome adds the space section's length
  std::string space;                 // the space section (retention.h)
  int failing_rank = -1;
  Status outcome;
  bool reported = false;  // Wait returned the outcome (see Rep::unreported)

  // One step if it is ready (block: wait until it is); false if not ready.
  bool Step1(bool block);
  // Ends the commit with `s` (ok: committed); never throws.
  void Finish(Status s) noexcept;
  void FinishOrThrow(Status s);
};

void AsyncCommit::State::Finish(Status s) noexcept {
  try {
    FinishOrThrow(std::move(s));
  } catch (...) {
    // Out of memory part way (taking the revision into this view, putting
    // the namespaces back): what this view holds is not known for sure, so
    // no more commits through this handle (reopen), with a message short
    // enough to need no allocation.
    Store::Rep* r = rep;
    r->poisoned = Status(Status::Code::kIOError, "out of memory");
    outcome = Status(Status::Code::kIOError, "out of memory");
    step = kDone;
    req.reset();
    plan.table.reset();
    plan.shared_table.reset();
    r->inflight.reset();
    rep = nullptr;
  }
}

void AsyncCommit::State::FinishOrThrow(Status s) {
  Store::Rep* r = rep;
  outcome = s;
  step = kDone;
  req.reset();
  // Poisoned (no more commits) when written data may be lost for good: an
  // fsync failed, the manifest's outcome is unknown, or the revision was
  // committed but this view could not take it.
  bool lost = all_v[0] != 0 || s.message().find("outcome unknown") != std::string::npos;
  if (s.ok()) {
    s = r->Adopt(plan, space);
    outcome = s;
    lost = !s.ok();
  }
  if (!s.ok()) {
    // The namespaces already moved on to the failed revision's tables, and
    // its data may be missing (a staged write failed): they go back to the
    // last committed revision, every put since is dropped.
    uint64_t base = r->current.revision;
    r->DiscardPending();
    if (lost) {
      r->poisoned = Status(s.code(), "asynchronous commit of revision " + std::to_string(plan.revision) +
                                         " failed: " + s.message());
    } else {
      outcome = Status(s.code(), "asynchronous commit of revision " + std::to_string(plan.revision) +
                                     " failed: " + s.message() + "; the puts since revision " +
                                     std::to_string(base) +
                                     " (those made while it was in flight included) were discarded: put "
                                     "them again");
      r->unreported = r->inflight;  // the next commit returns it unless Wait does
    }
  }
  plan.table.reset();
  plan.shared_table.reset();
  r->inflight.reset();
  rep = nullptr;
}

bool AsyncCommit::State::Step1(bool block) {
  Store::Rep* r = rep;
  Comm* c = r->comm.get();
  int rank = c->rank();
  IoQueue* q = r->Io();
  auto io_ready = [&] {
    if (ticket == 0 || q->Done(ticket)) return true;
    if (!block) return false;
    q->Wait(ticket);
    return true;
  };
  // The fsync of this rank's data file, behind every queued write. Rank 0's
  // directory fsyncs (the first commit of an open) run beside it on their
  // own thread, as in CommitSync; the record job waits for this one.
  auto queue_sync = [&] {
    File* f = r->my_file.get();
    ticket = q->Submit([this, r, f, rank] {
      std::optional<SideTask> dirs;
      if (rank == 0 && r->NeedsDirSync()) dirs.emplace([r] { return r->SyncNewDirs(); });
      TestFsyncDelay(rank);
      sync_failed = true;  // until it returns ok (if it throws: not known to be durable)
      Status st = f->Sync();
      sync_failed = !st.ok();
      if (dirs) {
        try {
          dirs_status = dirs->Join();
        } catch (...) {
          dirs_status = Status(Status::Code::kIOError, "out of memory");
        }
      }
      return st;
    });
  };
  auto req_ready = [&] {
    if (req->Test()) return true;
    if (!block) return false;
    req->Wait();
    return true;
  };
  switch (step) {
    case kWrites:
      if (!io_ready()) return false;
      if (local.ok()) local = q->error();
      CrashPoint("after_flush", rank);
      ticket = 0;
      group_v[0] = local.ok() ? 0 : 1;
      if (r->opt.sync && r->subfile_on_one_node) {
        req = r->sub_comm->IallreduceMax(group_v, 1);
        step = kGroup;
      } else {
        // Queued before the step moves on: if it throws (out of memory),
        // this step runs again rather than going on without the fsync.
        if (r->opt.sync && local.ok()) queue_sync();
        step = kSync;
      }
      return true;
    case kGroup:
      if (!req_ready()) return false;
      if (r->sub_comm->rank() == 0 && group_v[0] == 0) queue_sync();
      step = kSync;
      return true;
    case kSync:
      if (!io_ready()) return false;
      if (ticket != 0 && local.ok()) local = q->error();
      ticket = 0;
      all_v[0] = sync_failed ? 1 : 0;
      all_v[1] = local.ok() ? 0 : uint64_t(c->size() - rank);
      req = c->IallreduceMax(all_v, 2);
      step = kAgree;
      return true;
    case kAgree:
      if (!req_ready()) return false;
      if (all_v[1] != 0) {
        failing_rank = int(uint64_t(c->size()) - all_v[1]);
        if (rank == failing_rank) PackStatus(local, msg);
        req = c->Ibcast(msg, kMessageBytes, failing_rank);
        step = kMessage;
      } else if (rank == 0) {
        CrashPoint("before_manifest", rank);
        const RevisionRecord* rec = &plan.rec;
        ticket = q->Submit([this, r, rec] {
          record_started = true;
          Status st = dirs_status;  // (ok, and nothing left to sync, if the sync job did it)
          if (st.ok()) st = r->SyncNewDirs();
          if (st.ok()) st = r->manifest->AppendRevision(*rec, r->opt.sync);
          if (st.ok()) CrashPoint("after_manifest", 0);
          record_status = std::move(st);
          record_done = true;
          return Status::OK();  // the outcome travels in record_status, not as a queue failure
        });
        step = kRecord;
      } else {
        req = c->Ibcast(msg, kMessageBytes + 8, 0);
        step = kOutcome;
      }
      return true;
    case kMessage: {
      if (!req_ready()) return false;
      Status s = UnpackStatus(msg);
      if (s.ok()) s = Status::IOError("failed (no message)");
      bool sync_lost = all_v[0] != 0;
      Finish(Status(s.code(), "rank " + std::to_string(failing_rank) + ": " + s.message() +
                                  (sync_lost ? " (an fsync failed: written data may be lost)" : "")));
      return true;
    }
    case kRecord: {
      if (!io_ready()) return false;
      ticket = 0;
      if (!record_done) {
        // The job was skipped (a job queued before it failed: a put's write
        // made while the commit was in flight) or threw (out of memory):
        // the queue's error says which. Not a committed revision: before,
        // record_status stayed ok and the commit was reported done.
        Status why = q->error();
        if (why.ok()) why = Status::IOError("the job did not run to its end");
        bool doubt = record_started && r->manifest->last_append_may_be_in_file();
        record_status = Status::IOError(
            "the manifest record of revision " + std::to_string(plan.revision) +
            (doubt ? " may have been appended (outcome unknown, reopen the store to see whether the revision "
                     "exists): "
                   : " was not appended: ") +
            why.message());
        record_done = true;
      }
      // The record is durable: rank 0 works out what it freed (retention).
      if (record_status.ok()) space = FinishCommitSpace(r, plan.rec, plan.space);
      PackStatus(record_status, msg);
      uint64_t n = space.size();
      std::memcpy(msg + kMessageBytes, &n, 8);
      req = c->Ibcast(msg, kMessageBytes + 8, 0);
      step = kOutcome;
      return true;
    }
    case kOutcome: {
      if (!req_ready()) return false;
      Status s = UnpackStatus(msg);
      uint64_t n = 0;
      std::memcpy(&n, msg + kMessageBytes, 8);
      if (!s.ok() || n == 0) {
        Finish(s);
        return true;
      }
      space.resize(n);
      req = c->Ibcast(space.data(), int(n), 0);
      step = kSpace;
      return true;
    }
    case kSpace:
      if (!req_ready()) return false;
      Finish(Status::OK());
      return true;
    case kDone:
      return false;
  }
  return false;
}

void Store::Rep::Progress(bool block) {
  // The state stays alive through Finish, which drops the store's reference.
  std::shared_ptr<AsyncCommit::State> st = inflight;
  try {
    while (st && st->step != AsyncCommit::State::kDone && st->Step1(block)) {
    }
  } catch (const std::bad_alloc&) {
  } catch (const std::length_error&) {
  }
  // Out of memory in a step: it is left as it was (each step allocates
  // before it moves on) and runs again at the next call. Never out of the
  // API: Put and the other calls that move the commit on (Progress(false))
  // are not about it; FinishInflight and Wait report it.
}

Status Store::Rep::FinishInflight() {
  std::shared_ptr<AsyncCommit::State> st = inflight;
  if (!st) return Status::OK();
  Progress(true);
  // (Never throws: the collective calls that start with it reach their
  // first collective step whatever memory is left.)
  return UnlessOutOfMemoryThen("commit in flight of", path, "", [&] {
    return st->step != AsyncCommit::State::kDone ? InflightStuck() : st->outcome;
  });
}

Status Store::Rep::InflightStuck() const {
  uint64_t rev = inflight ? inflight->plan.revision : newest_revision + 1;
  return Status::IOError("the asynchronous commit of revision " + std::to_string(rev) +
                         " is still in flight: out of memory while moving it on (it goes on at the next call)");
}

// Here, beside the State it reads (an asynchronous failure not yet reported).
Status Store::Rep::CheckCommittable(const Status& refused) {
  // A closed handle makes no more collective calls (MPI may be finalized).
  if (closed) return Status::InvalidArgument("store is closed");
  Status s = UnlessOutOfMemoryThen("commit of", path, "; no revision was made", [&] {
    Status ls = refused.ok() ? CheckWritable() : refused;
    if (ls.ok() && unreported && !unreported->reported) ls = unreported->outcome;
    unreported.reset();  // returned now, if no Wait returned it before
    if (ls.ok() && inflight) ls = InflightStuck();  // FinishInflight ran out of memory
    return ls;
  });
  // Agreed with the array step in the same reduction (array_commit.h).
  return AgreeCommittableWithArrays(this, s);
}

Status Store::CommitAsync(AsyncCommit* handle) {
  *handle = AsyncCommit();
  try {
    return StartCommit(handle);
  } catch (const std::bad_alloc&) {
  } catch (const std::length_error&) {
  }
  // As in Commit: the collective steps guard their own allocations; left
  // are small ones, before the commit is in flight (nothing is decided).
  return OutOfMemoryError("CommitAsync of", rep_->path, "; no revision was made");
}

Status Store::StartCommit(AsyncCommit* handle) {
  Rep* r = rep_.get();
  int rank = r->comm->rank();
  r->FinishInflight();  // its failure, if any, shows in CheckCommittable
  // Out of memory on a rank before the plan is agreed is its refusal, and
  // after, its failed write: either way the other ranks hear of it in the
  // collective steps that follow rather than wait for it.
  std::shared_ptr<AsyncCommit::State> st;
  Status made = UnlessOutOfMemoryThen("commit of", r->path, "; no revision was made", [&] {
    st = std::make_shared<AsyncCommit::State>();
    return Status::OK();
  });
  Status s = r->CheckCommittable(made);
  if (!s.ok()) return s;  // the same on every rank
  st->plan.async = true;
  s = r->PrepareCommit(&st->plan);
  if (!s.ok()) return r->StagedCommitFailed(s);
  // What the revision holds is fixed: later puts build on its tables.
  r->own.Reset(st->plan.table);
  if (rank == 0) r->shared.Reset(st->plan.shared_table);
  CrashPoint("before_flush", rank);
  st->local = UnlessOutOfMemoryThen("commit of", r->path, "; no revision was made", [&] {
    Status fs = r->writer->Flush();
    st->ticket = r->Io()->Submit([] { return Status::OK(); });  // behind every queued write
    return fs;
  });
  st->rep = r;
  r->inflight = st;
  r->Progress(false);
  *handle = AsyncCommit(st);
  return Status::OK();
}

uint64_t AsyncCommit::revision() const { return state_ ? state_->plan.revision : 0; }

bool AsyncCommit::Test() {
  if (!state_) return true;
  if (state_->rep) state_->rep->Progress(false);
  return state_->step == State::kDone;
}

bool AsyncCommit::committed() const {
  return state_ && state_->step == State::kDone && state_->outcome.ok();
}

Status AsyncCommit::Wait(uint64_t* revision) {
  if (!state_) return Status::InvalidArgument("empty AsyncCommit handle");
  if (state_->rep) state_->rep->Progress(true);
  if (state_->step != State::kDone) return state_->rep->InflightStuck();
  state_->reported = true;
  if (state_->outcome.ok() && revision) *revision = state_->plan.revision;
  return state_->outcome;
}

}  // namespace cairn
