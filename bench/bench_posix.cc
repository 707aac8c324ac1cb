// POSIX, file per process (IOR's `-a POSIX -F`): every rank writes its own
// file per checkpoint, object i at offset i*size, one pwrite per object, then
// fsync and close. Reads: one pread per object.
//
// --verify=1 ("posix-xxh3"): the same files written by a careful hand, who
// wants corruption detected as cairn detects it. Every object's XXH3-64
// (over each 4 KiB grain of it, as cairn sums its array grains; one sum for
// a smaller object) is computed as it is written, and the sums follow the
// objects in the same file, written and fsynced with them. A read first
// reads the sums (one more pread, a dependent one, as cairn reads its index
// table), then checks every object it reads against them. The difference
// between posix and posix-xxh3 is the price of checking every byte on this
// machine; cairn pays it on every read (bench/README.md, "Known gaps").
#include <fcntl.h>
#include <unistd.h>
#include <xxhash.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "common.h"

namespace {

class Posix : public bench::System {
 public:
  Posix() : verify_(bench::Ctx().cfg.GetU64("verify", 0) != 0) {
    if (verify_) sums_.resize(bench::Ctx().cfg.count * Grains()), got_.resize(Grains());
  }
  const char* name() const override { return verify_ ? "posix-xxh3" : "posix"; }

  static constexpr uint64_t kGrain = 4096;
  // Sums per object: one per 4 KiB grain (the last one may be short).
  static uint64_t Grains() { return std::max<uint64_t>(1, (bench::Ctx().cfg.size + kGrain - 1) / kGrain); }
  static void Sum(const char* p, uint64_t size, uint64_t* out) {
    for (uint64_t off = 0, g = 0; off < size; off += kGrain, ++g)
      out[g] = XXH3_64bits(p + off, std::min(kGrain, size - off));
  }

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
      if (verify_) Sum(buf_.data(), c.cfg.size, &sums_[i * Grains()]);
    }
    if (verify_)
      bench::PWriteFull(fd, reinterpret_cast<const char*>(sums_.data()), sums_.size() * 8, c.cfg.count * c.cfg.size,
                        path);
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
    if (verify_)
      bench::PReadFull(fd, reinterpret_cast<char*>(sums_.data()), sums_.size() * 8, c.cfg.count * c.cfg.size, path);
    const uint64_t grains = Grains();
    for (uint64_t i : ids) {
      bench::PReadFull(fd, buf.data(), c.cfg.size, i * c.cfg.size, path);
      if (verify_) {
        Sum(buf.data(), c.cfg.size, got_.data());
        bad += memcmp(got_.data(), &sums_[i * grains], grains * 8) != 0;
      }
      bad += !bench::CheckStamp(buf.data(), c.cfg.size, c.rank, ckpt, i);
    }
    close(fd);
    return bad;
  }

 private:
  // Filler made before the timed phase; stamped per object.
  bench::ReadBuffer rbuf_{bench::Ctx().cfg.size};
  std::vector<char> buf_ = bench::MakeFiller(bench::Ctx().cfg.size, bench::Ctx().rank);
  bool verify_ = false;
  std::vector<uint64_t> sums_;  // --verify: every object's grain sums, in object order
  std::vector<uint64_t> got_;   // --verify: the sums of the object just read
};

}  // namespace

int main(int argc, char** argv) {
  return bench::RunMain(argc, argv, [] { return static_cast<bench::System*>(new Posix); });
}
