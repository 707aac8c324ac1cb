// The communicator seam: the few collective operations the store needs,
// implemented over MPI (MpiComm) or for one process without MPI (SelfComm).
// Every method is collective over the communicator unless it says local.
#pragma once

#include <mpi.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "cairn/status.h"

namespace cairn {

// A nonblocking collective in flight.
class CommRequest {
 public:
  virtual ~CommRequest() = default;
  // Local: whether it has completed (drives MPI's progress).
  virtual bool Test() = 0;
  // Blocks until it completes.
  virtual void Wait() = 0;
};

// The root's parts of a scatter, end to end: rank i's part is the sizes[i]
// bytes after those of the ranks before it (each below 2^31, 1 GiB in all).
// The root reads them in place (no second copy to lay them end to end).
struct ScatterParts {
  std::string bytes;
  std::vector<uint64_t> sizes;  // one per rank
};

class Comm {
 public:
  virtual ~Comm() = default;
  virtual int rank() const = 0;  // local
  virtual int size() const = 0;  // local

  virtual void Barrier() = 0;
  // Root's *data is copied to every rank's *data (resized as needed). A
  // receiver that cannot hold it still takes part in every step and throws
  // std::bad_alloc after the last, *data empty (its caller agrees the
  // failure). `what` names the broadcast for tests (TestBadAllocPoint: the
  // receive side's allocation, store/crash_point.h). `reserved`: every
  // receiver already holds room for the bytes (its caller agreed that), so
  // they go in pieces of up to 1 GiB instead of 1 MiB. `first`, if given:
  // set on every rank to the first byte of root's data (0 if it is empty),
  // even on a receiver without room, before it throws (it comes with the
  // broadcast's head, which takes no allocation): a reply can say in it
  // whether it is a failure (CommitArrays).
  virtual void Bcast(std::string* data, int root, const char* what = "broadcast", bool reserved = false,
                     char* first = nullptr) = 0;
  // Root receives every rank's `mine`, in rank order.
  virtual void Gather(const std::string& mine, std::vector<std::string>* all, int root) = 0;
  // Root's part i goes to rank i's *mine (parts: root's only).
  virtual void Scatter(const ScatterParts& parts, std::string* mine, int root) = 0;
  // The same when every rank already knows the size of its part (`size`,
  // which must equal root's parts.sizes[rank]) and the largest part
  // (`most`): one step instead of two while `most` is at most 1 MiB. A
  // receiver that cannot hold its part still takes part in every step and
  // throws std::bad_alloc after the last (its caller agrees the failure).
  virtual void ScatterSized(const ScatterParts& parts, uint64_t size, uint64_t most, std::string* mine,
                            int root) = 0;
  virtual uint64_t AllreduceMax(uint64_t v) = 0;
  virtual uint64_t AllreduceMin(uint64_t v) = 0;
  // Nonblocking, element-wise max of v[0..n) over all ranks, in place when
  // the request completes. `v` must stay valid until then. Nonblocking
  // collectives are started in the same order on every rank, like blocking
  // ones.
  virtual std::unique_ptr<CommRequest> IallreduceMax(uint64_t* v, int n) = 0;
  // Nonblocking broadcast of n bytes at buf from root, into buf elsewhere.
  virtual std::unique_ptr<CommRequest> Ibcast(void* buf, int n, int root) = 0;
  // Ranks with the same color form a new communicator, ordered by key.
  virtual std::unique_ptr<Comm> Split(int color, int key) = 0;
  // The ranks that share memory (a node) with this one.
  virtual std::unique_ptr<Comm> SplitNode() = 0;

  // Atomic counters, one on each rank that passes host=true, starting at
  // `initial`. One window over the whole communicator (OpenMPI 4.1 fails
  // when sub-communicators allocate shared windows concurrently).
  virtual Status CreateCounters(bool host, uint64_t initial) = 0;
  // Local, one-sided, lock-free: adds to the counter hosted by `target`.
  virtual Status FetchAdd(int target, uint64_t add, uint64_t* old) = 0;
  virtual void FreeCounters() = 0;

  // The underlying MPI communicator, or MPI_COMM_NULL for SelfComm.
  virtual MPI_Comm mpi() const = 0;
};

// Duplicates `comm` (the store's own traffic never mixes with the caller's).
// With timeout_s > 0, a collective operation that does not complete within
// that many seconds aborts the job with a message (Options::collective_timeout_s).
std::unique_ptr<Comm> NewMpiComm(MPI_Comm comm, double timeout_s = 0);
std::unique_ptr<Comm> NewSelfComm();

// Every rank passes its local status; every rank returns the same: ok if all
// were ok, else the error of the lowest failing rank, prefixed "rank R: ".
Status AgreeStatus(Comm* comm, const Status& local);
// Collective, once every rank knows that rank `from` failed (from an
// agreement of its own): every rank returns from's `local` status,
// prefixed "rank R: ", as AgreeStatus does.
Status StatusOfRank(Comm* comm, int from, const Status& local);

// Status to bytes and back, for sending a status between ranks.
std::string EncodeStatus(const Status& s);
Status DecodeStatus(const std::string& bytes);

}  // namespace cairn
