#include "comm/comm.h"

#include <cstdint>

namespace cairn {
namespace {

class DoneRequest final : public CommRequest {
 public:
  bool Test() override { return true; }
  void Wait() override {}
};

class SelfComm final : public Comm {
 public:
  int rank() const override { return 0; }
  int size() const override { return 1; }
  void Barrier() override {}
  void Bcast(std::string* data, int, const char*, bool, char* first) override {
    if (first) *first = data->empty() ? '\0' : (*data)[0];
  }
  void Gather(const std::string& mine, std::vector<std::string>* all, int) override {
    all->assign(1, mine);
  }
  void Scatter(const ScatterParts& parts, std::string* mine, int) override { *mine = parts.bytes; }
  void ScatterSized(const ScatterParts& parts, uint64_t, uint64_t, std::string* mine, int) override {
    *mine = parts.bytes;
  }
  uint64_t AllreduceMax(uint64_t v) override { return v; }
  uint64_t AllreduceMin(uint64_t v) override { return v; }
  std::unique_ptr<CommRequest> IallreduceMax(uint64_t*, int) override {
    return std::make_unique<DoneRequest>();
  }
  std::unique_ptr<CommRequest> Ibcast(void*, int, int) override { return std::make_unique<DoneRequest>(); }
  std::unique_ptr<Comm> Split(int, int) override { return NewSelfComm(); }
  std::unique_ptr<Comm> SplitNode() override { return NewSelfComm(); }
  Status CreateCounters(bool, uint64_t initial) override {
    counter_ = initial;
    return Status::OK();
  }
  Status FetchAdd(int, uint64_t add, uint64_t* old) override {
    *old = counter_;
    counter_ += add;
    return Status::OK();
  }
  void FreeCounters() override {}
  MPI_Comm mpi() const override { return MPI_COMM_NULL; }

 private:
  uint64_t counter_ = 0;
};

}  // namespace

std::unique_ptr<Comm> NewSelfComm() { return std::make_unique<SelfComm>(); }

std::string EncodeStatus(const Status& s) {
  std::string out(1, char(int(s.code())));
  out += s.message();
  return out;
}

Status DecodeStatus(const std::string& b) {
  if (b.empty()) return Status::OK();
  return Status(static_cast<Status::Code>(b[0]), b.substr(1));
}

Status AgreeStatus(Comm* comm, const Status& local) {
  if (comm->size() == 1) return local;
  // "Ok" is INT64_MAX, not UINT64_MAX: MPICH 4.0.2 reduces MPI_UINT64_T
  // with MPI_MIN as if signed, so UINT64_MAX (-1) won over every failing
  // rank and a failure on one rank was agreed as OK (mpi_bad_input_test
  // under scripts/test_mpich.sh). Values below 2^63 reduce alike in both.
  constexpr uint64_t kOk = uint64_t(INT64_MAX);
  uint64_t me = local.ok() ? kOk : uint64_t(comm->rank());
  uint64_t first = comm->AllreduceMin(me);
  if (first == kOk) return Status::OK();
  return StatusOfRank(comm, int(first), local);
}

Status StatusOfRank(Comm* comm, int from, const Status& local) {
  std::string bytes;
  if (comm->rank() == from) bytes = EncodeStatus(local);
  comm->Bcast(&bytes, from);
  Status s = DecodeStatus(bytes);
  return Status(s.code(), "rank " + std::to_string(from) + ": " + s.message());
}

}  // namespace cairn
