#include <algorithm>
#include <chrono>
#include <climits>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <new>
#include <thread>

#include <unistd.h>

#include "comm/comm.h"
#include "store/crash_point.h"

namespace cairn {
namespace {

// MPI counts are ints: large buffers travel in pieces of at most 1 GiB.
constexpr uint64_t kPiece = 1ull << 30;
// A receiver of a broadcast or scatter that cannot hold its bytes takes
// them in pieces of at most this many into a buffer it took beforehand
// (MpiComm::scratch_), and discards them; the data goes in such pieces.
constexpr uint64_t kScratch = 1ull << 20;

// Prints "cairn: rank R" (R: this process's rank in MPI_COMM_WORLD) and
// then `fmt` to stderr, and ends the job through `comm`.
[[noreturn]] void AbortJob(MPI_Comm comm, const char* fmt, ...) {
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  // One write of the whole line: MPI's own error reports (libnbc's, from
  // this process or forwarded from another rank) go to the same stream and
  // once landed between two pieces of it (comm_errors_test).
  char line[2048];
  int n = std::snprintf(line, sizeof line, "cairn: rank %d", rank);
  va_list ap;
  va_start(ap, fmt);
  if (n >= 0 && size_t(n) < sizeof line) n += std::vsnprintf(line + n, sizeof line - size_t(n), fmt, ap);
  va_end(ap);
  if (n < 0) n = 0;
  if (size_t(n) >= sizeof line) n = int(sizeof line) - 1;
  std::fflush(stderr);
  for (ssize_t done = 0; done < n;) {
    ssize_t w = ::write(STDERR_FILENO, line + done, size_t(n - done));
    if (w <= 0) break;
    done += w;
  }
  MPI_Abort(comm, 3);
  std::abort();
}

// An MPI call of a collective failed (the communicator carries
// MPI_ERRORS_RETURN, as mpi4py sets on its communicators): a collective
// that failed on one rank cannot be finished by the others, so the job is
// ended with a message rather than carried on with a broken request.
[[noreturn]] void AbortOnMpiError(int rc, MPI_Comm comm, const char* op) {
  char text[MPI_MAX_ERROR_STRING] = {};
  int len = 0;
  MPI_Error_string(rc, text, &len);
  AbortJob(comm, ": MPI failed in a collective of a store call (%s: %s): another rank may have "
                 "left the call or ended (a collective cairn call made by only some ranks). Aborting the job.\n",
           op, text);
}

// The store communicator's error handler: any MPI error on it ends the job
// with cairn's message (MPI_ERRORS_ARE_FATAL's, but saying whose call).
void AbortFromErrhandler(MPI_Comm* comm, int* rc, ...) { AbortOnMpiError(*rc, *comm, "store communicator"); }

// Completes a request; with a timeout, polls it and aborts the job with a
// message once the timeout passes (the other ranks are not coming). Every
// collective of the store is started nonblocking and completed here, with
// or without a timeout (a blocking call never has to match a nonblocking
// one, whatever collective_timeout_s each rank has); a call with no
// nonblocking form is preceded by an Ibarrier completed here (Arrive).
//
// Without a timeout it polls too, and sleeps between polls once the first
// thousand have failed: MPI_Wait spins, and a rank spinning in a commit's
// gather takes the core from the ranks still writing whenever ranks share
// cores (the benchmark's 4 and 8 ranks on 2 cores; issue 11). The sleep
// adds at most 100 microseconds to a collective that was waiting anyway.
void Complete(MPI_Request* r, MPI_Comm comm, double timeout_s, const char* op) {
  using Clock = std::chrono::steady_clock;
  auto start = Clock::now();
  for (long polls = 0;; polls++) {
    int flag = 0;
    int rc = MPI_Test(r, &flag, MPI_STATUS_IGNORE);
    if (rc != MPI_SUCCESS) AbortOnMpiError(rc, comm, op);
    if (flag) return;
    double waited = std::chrono::duration<double>(Clock::now() - start).count();
    if (timeout_s > 0 && waited > timeout_s)
      AbortJob(comm,
               " waited %.1f s in the collective %s of a store call; the other ranks did not join it (a "
               "collective cairn call made by only some ranks, or a rank stuck or dead). Aborting the job "
               "(Options::collective_timeout_s = %.1f).\n",
               waited, op, timeout_s);
    // Spin for the first thousand polls (a collective usually completes in
    // microseconds), then yield the core.
    if (polls > 1000) std::this_thread::sleep_for(std::chrono::microseconds(100));
  }
}

// Every rank of `comm` has reached this point (polled under the timeout),
// so that the blocking call `op` that follows cannot wait for a rank that
// never comes.
void Arrive(MPI_Comm comm, double timeout_s, const char* op) {
  MPI_Request r;
  MPI_Ibarrier(comm, &r);
  Complete(&r, comm, timeout_s, op);
}

class MpiRequest final : public CommRequest {
 public:
  MpiRequest(MPI_Comm comm, double timeout_s) : comm_(comm), timeout_s_(timeout_s) {}
  ~MpiRequest() override {
    // Completed before release in normal use; never left dangling in MPI.
    int finalized = 0;
    MPI_Finalized(&finalized);
    if (!finalized && req_ != MPI_REQUEST_NULL) MPI_Wait(&req_, MPI_STATUS_IGNORE);
  }
  bool Test() override {
    if (req_ == MPI_REQUEST_NULL) return true;
    int flag = 0;
    MPI_Test(&req_, &flag, MPI_STATUS_IGNORE);
    return flag != 0;
  }
  void Wait() override {
    if (req_ != MPI_REQUEST_NULL) Complete(&req_, comm_, timeout_s_, "step of an asynchronous commit");
  }
  MPI_Request* get() { return &req_; }

 private:
  MPI_Request req_ = MPI_REQUEST_NULL;
  MPI_Comm comm_;
  double timeout_s_;
};

class MpiComm final : public Comm {
 public:
  MpiComm(MPI_Comm comm, double timeout_s) : comm_(comm), timeout_s_(timeout_s) {
    MPI_Comm_rank(comm_, &rank_);
    MPI_Comm_size(comm_, &size_);
    // Tests lower the largest count passed to MPI to exercise the rounds.
    if (const char* e = std::getenv("CAIRN_TEST_MPI_MAX_COUNT")) max_count_ = std::max(1ull, std::strtoull(e, nullptr, 10));
    scratch_ = TakeScratch();
  }
  ~MpiComm() override {
    FreeCounters();
    int finalized = 0;
    MPI_Finalized(&finalized);
    if (!finalized) MPI_Comm_free(&comm_);
  }
  int rank() const override { return rank_; }
  int size() const override { return size_; }
  void Barrier() override {
    MPI_Request r;
    MPI_Ibarrier(comm_, &r);
    Complete(&r, comm_, timeout_s_, "barrier");
  }

  // One step for a small payload: a head of fixed size carries the length
  // and the first bytes, and only what does not fit follows (an open makes
  // several broadcasts of a few hundred bytes, each of which was two steps;
  // each step costs a scheduling round trip when ranks share cores). The
  // rest goes in pieces of kScratch bytes (1 MiB), or of kPiece when every
  // receiver has reserved room (`reserved`: GetShared's value).
  //
  // A receiver that cannot hold the bytes (std::bad_alloc or
  // std::length_error from its resize) still takes every piece, into
  // scratch_, and throws std::bad_alloc once the broadcast is over: no rank
  // is left in a broadcast the others have left, and the caller makes it
  // this rank's failure at the agreement that follows (doc/design.md
  // "Errors"). (CAIRN_TEST_MPI_MAX_COUNT lowers the head and the pieces
  // too, so that tests send small payloads in several steps.)
  void Bcast(std::string* data, int root, const char* what, bool reserved, char* first) override {
    constexpr uint64_t kHead = 1024;
    const uint64_t head_bytes = std::min<uint64_t>(kHead, std::max<uint64_t>(max_count_, sizeof(uint64_t) + 1));
    const uint64_t kInHead = head_bytes - sizeof(uint64_t);
    const uint64_t piece = std::min(reserved ? kPiece : kScratch, max_count_);
    char head[kHead];
    uint64_t n = data->size();
    if (rank_ == root) {
      std::memcpy(head, &n, sizeof n);
      std::memcpy(head + sizeof n, data->data(), std::min(n, kInHead));
    }
    BcastBytes(head, int(head_bytes), root);
    bool room = true;
    if (rank_ != root) std::memcpy(&n, head, sizeof n);
    if (first) *first = n > 0 ? head[sizeof n] : '\0';  // (the head holds at least one byte of data)
    if (rank_ != root) {
      room = Resize(data, n, what);
      if (room) std::memcpy(data->data(), head + sizeof n, std::min(n, kInHead));
      // A `reserved` broadcast whose receiver had no room after all (it
      // took room before the agreement: only a test hook gets here) goes
      // in pieces larger than scratch_: nowhere to discard them.
      if (!room && n > kInHead && piece > kScratch)
        AbortJob(comm_,
                 ": no room for the %llu bytes of the broadcast '%s' from rank %d, for which it had taken room "
                 "before (pieces of up to 1 GiB, larger than the 1 MiB it can discard them into): its peers "
                 "would wait for it in the broadcast. Aborting the job.\n",
                 static_cast<unsigned long long>(n), what, root);
      if (!room && n > kInHead) NeedScratch(what, n, root);
    }
    for (uint64_t off = kInHead; off < n; off += piece)
      BcastBytes(room ? data->data() + off : scratch_.get(), int(std::min(piece, n - off)), root);
    if (!room) throw std::bad_alloc();
  }
  // scratch_ for a receiver without room for `n` bytes of `what` from
  // `root`: taken at construction, or now (memory may have come back); if
  // neither, the job is aborted with a message naming this rank and what it
  // was receiving. Why abort and not throw: this rank would leave the
  // collective with pieces still to come, and the others would wait for it
  // in the next piece for ever (or meet its next collective: a truncation
  // error); a broadcast or scatter piece can only be taken into a buffer
  // of its size (MPI's counts must match), so a process that cannot have
  // 1 MiB has no way to take part. A failure on every rank at once instead
  // would need one more agreement in every broadcast. (Only a process with
  // almost no memory left at all gets here.)
  void NeedScratch(const char* what, uint64_t n, int root) {
    if (!scratch_) scratch_ = TakeScratch();
    if (scratch_) return;
    AbortJob(comm_,
             ": out of memory receiving '%s' (%llu bytes) from rank %d: no room for it, nor for the 1 MiB "
             "buffer a receiver without room takes the pieces into (its peers would wait for it in the "
             "collective). Aborting the job.\n",
             what, static_cast<unsigned long long>(n), root);
  }
  // kScratch bytes, or null if this process has not that much (or the
  // test hook CAIRN_TEST_NO_COMM_SCRATCH names this rank of the
  // communicator: as if it had not).
  std::unique_ptr<char[]> TakeScratch() const {
    const char* e = std::getenv("CAIRN_TEST_NO_COMM_SCRATCH");
    if (e && *e && std::atoi(e) == rank_) return nullptr;
    return std::unique_ptr<char[]>(new (std::nothrow) char[kScratch]);
  }
  // A receiver's buffer of n bytes: false, and *data empty, if this
  // process cannot hold it.
  bool Resize(std::string* data, uint64_t n, const char* what) {
    try {
      TestBadAllocPoint(what, rank_);
      data->resize(n);
      return true;
    } catch (const std::bad_alloc&) {
    } catch (const std::length_error&) {
    }
    std::string().swap(*data);
    return false;
  }
  void BcastBytes(void* p, int n, int root) {
    MPI_Request r;
    MPI_Ibcast(p, n, MPI_BYTE, root, comm_, &r);
    Complete(&r, comm_, timeout_s_, "broadcast");
  }

  void Gather(const std::string& mine, std::vector<std::string>* all, int root) override {
    // Sizes and totals are 64-bit; no count given to MPI exceeds max_count_
    // (INT_MAX): more goes in rounds of at most max_count_ / size bytes
    // from each rank. Every step is nonblocking, completed under the timeout.
    uint64_t n = mine.size();
    std::vector<uint64_t> counts(rank_ == root ? size_ : 0);
    MPI_Request r;
    MPI_Igather(&n, 1, MPI_UINT64_T, counts.data(), 1, MPI_UINT64_T, root, comm_, &r);
    Complete(&r, comm_, timeout_s_, "gather (sizes)");
    uint64_t piece = std::max<uint64_t>(1, max_count_ / uint64_t(size_));
    // The root takes every byte it will receive before the reduction below,
    // and says in it whether it could (kNoRoom): without the memory, every
    // rank skips the data and the root alone throws std::bad_alloc, so no
    // rank is left in a collective the others have left (the caller turns
    // it into an agreed failure: commit.cc).
    constexpr uint64_t kNoRoom = ~uint64_t(0);
    std::vector<int> rc(rank_ == root ? size_ : 0), displs(rank_ == root ? size_ : 0);
    std::string flat;
    bool room = true;
    if (rank_ == root) {
      try {
        all->assign(size_, std::string());
        uint64_t first = 0;  // the largest round's bytes: the first's
        for (int i = 0; i < size_; i++) {
          (*all)[i].reserve(counts[i]);
          first += std::min(piece, counts[i]);
        }
        flat.reserve(first);
      } catch (const std::bad_alloc&) {
        room = false;
      } catch (const std::length_error&) {
        room = false;
      }
      if (!room) {
        std::vector<std::string>().swap(*all);
        std::string().swap(flat);
      }
    }
    uint64_t most = Allreduce(room ? n : kNoRoom, MPI_MAX);  // the largest part sets the number of rounds
    if (most == kNoRoom) {
      if (rank_ == root) throw std::bad_alloc();
      return;
    }
    for (uint64_t off = 0; off == 0 || off < most; off += piece) {
      int send = int(off < n ? std::min(piece, n - off) : 0);
      if (rank_ == root) {
        uint64_t total = 0;
        for (int i = 0; i < size_; i++) {
          rc[i] = int(off < counts[i] ? std::min(piece, counts[i] - off) : 0);
          displs[i] = int(total);
          total += uint64_t(rc[i]);
        }
        flat.resize(total);
      }
      MPI_Igatherv(mine.data() + std::min(off, n), send, MPI_BYTE, flat.data(), rc.data(), displs.data(),
                   MPI_BYTE, root, comm_, &r);
      Complete(&r, comm_, timeout_s_, "gather (data)");
      if (rank_ == root)
        for (int i = 0; i < size_; i++) (*all)[i].append(flat, size_t(displs[i]), size_t(rc[i]));
    }
  }

  // The root's counts and offsets of a scatter's parts (ScatterParts).
  void Offsets(const ScatterParts& parts, std::vector<uint64_t>* displs) const {
    displs->resize(size_);
    uint64_t at = 0;
    for (int i = 0; i < size_; i++) {
      (*displs)[i] = at;
      at += parts.sizes[i];
    }
  }

  void Scatter(const ScatterParts& parts, std::string* mine, int root) override {
    std::vector<int> counts, displs;
    if (rank_ == root) {
      std::vector<uint64_t> at;
      Offsets(parts, &at);
      for (int i = 0; i < size_; i++) {
        counts.push_back(int(parts.sizes[i]));
        displs.push_back(int(at[i]));
      }
    }
    int n = 0;
    MPI_Request r;
    MPI_Iscatter(counts.data(), 1, MPI_INT, &n, 1, MPI_INT, root, comm_, &r);
    Complete(&r, comm_, timeout_s_, "scatter (sizes)");
    mine->resize(size_t(n));
    MPI_Iscatterv(parts.bytes.data(), counts.data(), displs.data(), MPI_BYTE, mine->data(), n, MPI_BYTE,
                  root, comm_, &r);
    Complete(&r, comm_, timeout_s_, "scatter (data)");
  }

  // In rounds of kScratch bytes from each part, so that a receiver that
  // cannot hold its part takes it into scratch_ (as Bcast's does) and
  // throws std::bad_alloc after the last round; one round while every part
  // is within kScratch (the default compact_index_limit is 64 KiB).
  void ScatterSized(const ScatterParts& parts, uint64_t size, uint64_t most, std::string* mine,
                    int root) override {
    std::vector<uint64_t> at;
    std::vector<int> counts(rank_ == root ? size_ : 0), displs(rank_ == root ? size_ : 0);
    if (rank_ == root) Offsets(parts, &at);
    const uint64_t piece = std::min(kScratch, max_count_);
    const bool room = Resize(mine, size, "scatter");
    if (!room && size > 0) NeedScratch("scatter", size, root);
    for (uint64_t off = 0; off == 0 || off < most; off += piece) {
      if (rank_ == root)
        for (int i = 0; i < size_; i++) {
          counts[i] = int(off < parts.sizes[i] ? std::min(piece, parts.sizes[i] - off) : 0);
          displs[i] = int(at[i] + std::min(off, parts.sizes[i]));
        }
      int n = int(off < size ? std::min(piece, size - off) : 0);
      MPI_Request r;
      MPI_Iscatterv(parts.bytes.data(), counts.data(), displs.data(), MPI_BYTE,
                    room ? mine->data() + std::min(off, size) : scratch_.get(), n, MPI_BYTE, root, comm_, &r);
      Complete(&r, comm_, timeout_s_, "scatter (data)");
    }
    if (!room) throw std::bad_alloc();
  }

  uint64_t AllreduceMax(uint64_t v) override { return Allreduce(v, MPI_MAX); }
  uint64_t AllreduceMin(uint64_t v) override { return Allreduce(v, MPI_MIN); }
  uint64_t Allreduce(uint64_t v, MPI_Op op) {
    uint64_t out;
    MPI_Request r;
    MPI_Iallreduce(&v, &out, 1, MPI_UINT64_T, op, comm_, &r);
    Complete(&r, comm_, timeout_s_, "reduction");
    return out;
  }

  std::unique_ptr<CommRequest> IallreduceMax(uint64_t* v, int n) override {
    auto r = std::make_unique<MpiRequest>(comm_, timeout_s_);
    MPI_Iallreduce(MPI_IN_PLACE, v, n, MPI_UINT64_T, MPI_MAX, comm_, r->get());
    return r;
  }
  std::unique_ptr<CommRequest> Ibcast(void* buf, int n, int root) override {
    auto r = std::make_unique<MpiRequest>(comm_, timeout_s_);
    MPI_Ibcast(buf, n, MPI_BYTE, root, comm_, r->get());
    return r;
  }

  std::unique_ptr<Comm> Split(int color, int key) override {
    Arrive(comm_, timeout_s_, "communicator split");
    MPI_Comm c;
    MPI_Comm_split(comm_, color, key, &c);
    return std::make_unique<MpiComm>(c, timeout_s_);
  }
  std::unique_ptr<Comm> SplitNode() override {
    Arrive(comm_, timeout_s_, "communicator split by node");
    MPI_Comm c;
    MPI_Comm_split_type(comm_, MPI_COMM_TYPE_SHARED, rank_, MPI_INFO_NULL, &c);
    return std::make_unique<MpiComm>(c, timeout_s_);
  }

  Status CreateCounters(bool host, uint64_t initial) override {
    // MPI_Win_allocate (not Win_create) lets OpenMPI pick its shared-memory
    // one-sided component, whose atomics need no progress from the target.
    // Every rank allocates a counter's bytes, hosts or not: MPICH 4.0's
    // shared-memory windows address the targets wrongly when some ranks
    // give size 0 (the counters of two data files became one, so each
    // file grew by the runs the other took; mpi_retention_test's
    // SeparateCountersPerDataFile).
    MPI_Aint bytes = sizeof(uint64_t);
    void* base = nullptr;
    Arrive(comm_, timeout_s_, "window allocation (extent counters)");
    int rc = MPI_Win_allocate(bytes, sizeof(uint64_t), MPI_INFO_NULL, comm_, &base, &win_);
    if (rc != MPI_SUCCESS) return Status::IOError("MPI_Win_allocate failed for the extent counters");
    MPI_Win_lock_all(MPI_MODE_NOCHECK, win_);
    if (host) {
      *static_cast<uint64_t*>(base) = initial;
      MPI_Win_sync(win_);  // the store is visible to RMA in the separate memory model too
    }
    Arrive(comm_, timeout_s_, "barrier after the window allocation");  // initial values are in place before anyone adds
    have_win_ = true;
    return Status::OK();
  }
  Status FetchAdd(int target, uint64_t add, uint64_t* old) override {
    int rc = MPI_Fetch_and_op(&add, old, MPI_UINT64_T, target, 0, MPI_SUM, win_);
    if (rc == MPI_SUCCESS) rc = MPI_Win_flush(target, win_);
    if (rc != MPI_SUCCESS) return Status::IOError("MPI_Fetch_and_op on an extent counter failed");
    return Status::OK();
  }
  void FreeCounters() override {
    if (!have_win_) return;
    int finalized = 0;
    MPI_Finalized(&finalized);
    if (!finalized) {
      Arrive(comm_, timeout_s_, "window free (extent counters)");
      MPI_Win_unlock_all(win_);
      MPI_Win_free(&win_);
    }
    have_win_ = false;
  }
  MPI_Comm mpi() const override { return comm_; }

 private:
  MPI_Comm comm_;
  double timeout_s_ = 0;
  int rank_ = 0, size_ = 1;
  uint64_t max_count_ = INT_MAX;  // the largest count Gather passes to MPI
  MPI_Win win_ = MPI_WIN_NULL;
  bool have_win_ = false;
  // kScratch bytes for a receiver that cannot hold what it receives (Bcast,
  // ScatterSized), taken with the communicator (not touched: address space
  // until such a receiver uses it); null if even they could not be had
  // (then taken again when needed: NeedScratch).
  std::unique_ptr<char[]> scratch_;
};

}  // namespace

std::unique_ptr<Comm> NewMpiComm(MPI_Comm comm, double timeout_s) {
  // Nonblocking, so that an Open made by only some ranks times out too.
  MPI_Comm dup;
  MPI_Request r;
  int rc = MPI_Comm_idup(comm, &dup, &r);
  if (rc != MPI_SUCCESS) AbortOnMpiError(rc, comm, "communicator duplication (Open)");
  Complete(&r, comm, timeout_s, "communicator duplication (Open)");
  // The store's own communicator ends the job on an MPI error, whatever the
  // caller's communicator says (mpi4py gives its communicators
  // MPI_ERRORS_RETURN, whose error codes the store's collectives do not
  // check one by one: a rank would go on with a broken collective).
  static MPI_Errhandler fatal = [] {
    MPI_Errhandler h;
    MPI_Comm_create_errhandler(AbortFromErrhandler, &h);
    return h;
  }();
  MPI_Comm_set_errhandler(dup, fatal);
  return std::make_unique<MpiComm>(dup, timeout_s);
}

}  // namespace cairn
