#include <algorithm>
#include <climits>

#include "comm/comm.h"

namespace cairn {
namespace {

// MPI counts are ints: large buffers travel in pieces of at most 1 GiB.
constexpr uint64_t kPiece = 1ull << 30;

class MpiRequest final : public CommRequest {
 public:
  MpiRequest() = default;
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
    if (req_ != MPI_REQUEST_NULL) MPI_Wait(&req_, MPI_STATUS_IGNORE);
  }
  MPI_Request* get() { return &req_; }

 private:
  MPI_Request req_ = MPI_REQUEST_NULL;
};

class MpiComm final : public Comm {
 public:
  explicit MpiComm(MPI_Comm comm) : comm_(comm) {
    MPI_Comm_rank(comm_, &rank_);
    MPI_Comm_size(comm_, &size_);
  }
  ~MpiComm() override {
    FreeCounters();
    int finalized = 0;
    MPI_Finalized(&finalized);
    if (!finalized) MPI_Comm_free(&comm_);
  }
  int rank() const override { return rank_; }
  int size() const override { return size_; }
  void Barrier() override { MPI_Barrier(comm_); }

  void Bcast(std::string* data, int root) override {
    uint64_t n = data->size();
    MPI_Bcast(&n, 1, MPI_UINT64_T, root, comm_);
    data->resize(n);
    for (uint64_t off = 0; off < n; off += kPiece)
      MPI_Bcast(data->data() + off, int(std::min(kPiece, n - off)), MPI_BYTE, root, comm_);
  }

  void Gather(const std::string& mine, std::vector<std::string>* all, int root) override {
    int n = int(mine.size());
    std::vector<int> counts(rank_ == root ? size_ : 0), displs;
    MPI_Gather(&n, 1, MPI_INT, counts.data(), 1, MPI_INT, root, comm_);
    std::string flat;
    if (rank_ == root) {
      displs.resize(size_);
      long total = 0;
      for (int i = 0; i < size_; i++) {
        displs[i] = int(total);
        total += counts[i];
      }
      flat.resize(size_t(total));
    }
    MPI_Gatherv(mine.data(), n, MPI_BYTE, flat.data(), counts.data(), displs.data(), MPI_BYTE,
                root, comm_);
    if (rank_ == root) {
      all->resize(size_);
      for (int i = 0; i < size_; i++) (*all)[i].assign(flat, size_t(displs[i]), size_t(counts[i]));
    }
  }

  void Scatter(const std::vector<std::string>& parts, std::string* mine, int root) override {
    std::vector<int> counts, displs;
    std::string flat;
    if (rank_ == root) {
      counts.resize(size_);
      displs.resize(size_);
      for (int i = 0; i < size_; i++) {
        displs[i] = int(flat.size());
        counts[i] = int(parts[i].size());
        flat += parts[i];
      }
    }
    int n = 0;
    MPI_Scatter(counts.data(), 1, MPI_INT, &n, 1, MPI_INT, root, comm_);
    mine->resize(size_t(n));
    MPI_Scatterv(flat.data(), counts.data(), displs.data(), MPI_BYTE, mine->data(), n, MPI_BYTE,
                 root, comm_);
  }

  uint64_t AllreduceMax(uint64_t v) override {
    uint64_t out;
    MPI_Allreduce(&v, &out, 1, MPI_UINT64_T, MPI_MAX, comm_);
    return out;
  }
  uint64_t AllreduceMin(uint64_t v) override {
    uint64_t out;
    MPI_Allreduce(&v, &out, 1, MPI_UINT64_T, MPI_MIN, comm_);
    return out;
  }

  std::unique_ptr<CommRequest> IallreduceMax(uint64_t* v, int n) override {
    auto r = std::make_unique<MpiRequest>();
    MPI_Iallreduce(MPI_IN_PLACE, v, n, MPI_UINT64_T, MPI_MAX, comm_, r->get());
    return r;
  }
  std::unique_ptr<CommRequest> Ibcast(void* buf, int n, int root) override {
    auto r = std::make_unique<MpiRequest>();
    MPI_Ibcast(buf, n, MPI_BYTE, root, comm_, r->get());
    return r;
  }

  std::unique_ptr<Comm> Split(int color, int key) override {
    MPI_Comm c;
    MPI_Comm_split(comm_, color, key, &c);
    return std::make_unique<MpiComm>(c);
  }
  std::unique_ptr<Comm> SplitNode() override {
    MPI_Comm c;
    MPI_Comm_split_type(comm_, MPI_COMM_TYPE_SHARED, rank_, MPI_INFO_NULL, &c);
    return std::make_unique<MpiComm>(c);
  }

  Status CreateCounters(bool host, uint64_t initial) override {
    // MPI_Win_allocate (not Win_create) lets OpenMPI pick its shared-memory
    // one-sided component, whose atomics need no progress from the target.
    MPI_Aint bytes = host ? sizeof(uint64_t) : 0;
    void* base = nullptr;
    int rc = MPI_Win_allocate(bytes, sizeof(uint64_t), MPI_INFO_NULL, comm_, &base, &win_);
    if (rc != MPI_SUCCESS) return Status::IOError("MPI_Win_allocate failed for the extent counters");
    MPI_Win_lock_all(MPI_MODE_NOCHECK, win_);
    if (host) {
      *static_cast<uint64_t*>(base) = initial;
      MPI_Win_sync(win_);  // the store is visible to RMA in the separate memory model too
    }
    MPI_Barrier(comm_);  // initial values are in place before anyone adds
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
      MPI_Win_unlock_all(win_);
      MPI_Win_free(&win_);
    }
    have_win_ = false;
  }
  MPI_Comm mpi() const override { return comm_; }

 private:
  MPI_Comm comm_;
  int rank_ = 0, size_ = 1;
  MPI_Win win_ = MPI_WIN_NULL;
  bool have_win_ = false;
};

}  // namespace

std::unique_ptr<Comm> NewMpiComm(MPI_Comm comm) {
  MPI_Comm dup;
  MPI_Comm_dup(comm, &dup);
  return std::make_unique<MpiComm>(dup);
}

}  // namespace cairn
