// MPI-IO, one shared file per checkpoint (IOR's `-a MPIIO`, segmented
// layout): rank r owns bytes [r*count*size, (r+1)*count*size) and writes its
// objects there one call per object, then MPI_File_sync and MPI_File_close.
// --collective=0 uses MPI_File_write_at / read_at (independent),
// --collective=1 uses MPI_File_write_at_all / read_at_all (collective).
#include <cstring>

#include "common.h"

namespace {

void CheckMpi(int rc, const char* what, const std::string& path) {
  if (rc == MPI_SUCCESS) return;
  char msg[MPI_MAX_ERROR_STRING];
  int len = 0;
  MPI_Error_string(rc, msg, &len);
  bench::Die("%s %s: %s", what, path.c_str(), msg);
}

class MpiIo : public bench::System {
 public:
  MpiIo() : collective_(bench::Ctx().cfg.GetU64("collective", 0) != 0) {
    BENCH_CHECK(bench::Ctx().cfg.size <= (1u << 30), "objects above 1 GiB are not supported");
  }
  const char* name() const override { return collective_ ? "mpiio-coll" : "mpiio-ind"; }

  static std::string FilePath(const std::string& dir, int ckpt) {
    return dir + "/ckpt" + std::to_string(ckpt) + ".shared";
  }

  MPI_Offset Offset(uint64_t i) const {
    const auto& c = bench::Ctx();
    return static_cast<MPI_Offset>((static_cast<uint64_t>(c.rank) * c.cfg.count + i) * c.cfg.size);
  }

  void Checkpoint(const std::string& dir, int ckpt) override {
    const auto& c = bench::Ctx();
    std::string path = FilePath(dir, ckpt);
    MPI_File fh;
    CheckMpi(MPI_File_open(c.comm, path.c_str(), MPI_MODE_CREATE | MPI_MODE_WRONLY,
                           MPI_INFO_NULL, &fh),
             "MPI_File_open", path);
    int n = static_cast<int>(c.cfg.size);
    for (uint64_t i = 0; i < c.cfg.count; ++i) {
      bench::Stamp(buf_.data(), c.cfg.size, c.rank, ckpt, i);
      MPI_Status st;
      int rc = collective_ ? MPI_File_write_at_all(fh, Offset(i), buf_.data(), n, MPI_BYTE, &st)
                           : MPI_File_write_at(fh, Offset(i), buf_.data(), n, MPI_BYTE, &st);
      CheckMpi(rc, "MPI_File_write_at", path);
    }
    CheckMpi(MPI_File_sync(fh), "MPI_File_sync", path);
    CheckMpi(MPI_File_close(&fh), "MPI_File_close", path);
  }

  // Every rank asks for the same number of objects, so the collective calls match.
  uint64_t ReadSome(const std::string& dir, int ckpt, const std::vector<uint64_t>& ids) override {
    const auto& c = bench::Ctx();
    std::vector<char>& buf = rbuf_;  // allocated before the timed phase
    std::string path = FilePath(dir, ckpt);
    MPI_File fh;
    CheckMpi(MPI_File_open(c.comm, path.c_str(), MPI_MODE_RDONLY, MPI_INFO_NULL, &fh),
             "MPI_File_open", path);
    int n = static_cast<int>(c.cfg.size);
    uint64_t bad = 0;
    for (uint64_t i : ids) {
      MPI_Status st;
      int rc = collective_ ? MPI_File_read_at_all(fh, Offset(i), buf.data(), n, MPI_BYTE, &st)
                           : MPI_File_read_at(fh, Offset(i), buf.data(), n, MPI_BYTE, &st);
      CheckMpi(rc, "MPI_File_read_at", path);
      int got = 0;
      MPI_Get_count(&st, MPI_BYTE, &got);
      bad += got != n || !bench::CheckStamp(buf.data(), c.cfg.size, c.rank, ckpt, i);
    }
    CheckMpi(MPI_File_close(&fh), "MPI_File_close", path);
    return bad;
  }

 private:
  bool collective_;
  // Filler made before the timed phase; stamped per object.
  std::vector<char> rbuf_ = std::vector<char>(bench::Ctx().cfg.size);
  std::vector<char> buf_ = bench::MakeFiller(bench::Ctx().cfg.size, bench::Ctx().rank);
};

}  // namespace

int main(int argc, char** argv) {
  return bench::RunMain(argc, argv, [] { return static_cast<bench::System*>(new MpiIo); });
}
