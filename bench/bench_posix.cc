// POSIX, file per process (IOR's `-a POSIX -F`): every rank writes its own
// file per checkpoint, object i at offset i*size, one pwrite per object, then
// fsync and close. Reads: one pread per object.
#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "common.h"

namespace {

class Posix : public bench::System {
 public:
  const char* name() const override { return "posix"; }

  static std::string FilePath(const std::string& dir, int ckpt, int rank) {
    return dir + "/ckpt" + std::to_string(ckpt) + ".rank" + std::to_string(rank);
  }

  void Checkpoint(const std::string& dir, int ckpt) override {
    const auto& c = bench::Ctx();
    std::string path = FilePath(dir, ckpt, c.rank);
    int fd = open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    BENCH_CHECK(fd >= 0, "open %s: %s", path.c_str(), strerror(errno));
    for (uint64_t i = 0; i < c.cfg.count; ++i) {
      bench::Stamp(buf_.data(), c.cfg.size, c.rank, ckpt, i);
      bench::PWriteFull(fd, buf_.data(), c.cfg.size, i * c.cfg.size, path);
    }
    BENCH_CHECK(fsync(fd) == 0, "fsync %s: %s", path.c_str(), strerror(errno));
    BENCH_CHECK(close(fd) == 0, "close %s: %s", path.c_str(), strerror(errno));
  }

  uint64_t ReadSome(const std::string& dir, int ckpt, const std::vector<uint64_t>& ids) override {
    const auto& c = bench::Ctx();
    bench::ReadBuffer& buf = rbuf_;  // allocated before the timed phase
    std::string path = FilePath(dir, ckpt, c.rank);
    int fd = open(path.c_str(), O_RDONLY);
    BENCH_CHECK(fd >= 0, "open %s: %s", path.c_str(), strerror(errno));
    uint64_t bad = 0;
    for (uint64_t i : ids) {
      bench::PReadFull(fd, buf.data(), c.cfg.size, i * c.cfg.size, path);
      bad += !bench::CheckStamp(buf.data(), c.cfg.size, c.rank, ckpt, i);
    }
    close(fd);
    return bad;
  }

 private:
  // Filler made before the timed phase; stamped per object.
  bench::ReadBuffer rbuf_{bench::Ctx().cfg.size};
  std::vector<char> buf_ = bench::MakeFiller(bench::Ctx().cfg.size, bench::Ctx().rank);
};

}  // namespace

int main(int argc, char** argv) {
  return bench::RunMain(argc, argv, [] { return static_cast<bench::System*>(new Posix); });
}
