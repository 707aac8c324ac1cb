// The device limit: one process writes the bytes that `scale` ranks would
// write, sequentially into one file in large blocks (--block, 1 MiB by
// default, rounded to a multiple of the object size), fsyncs and closes it;
// reads it back in the same blocks. Why 1 MiB: on the development VM,
// pwrite() calls of 4 or 16 MiB into the page cache fell into a slow mode
// (~300 MiB/s instead of ~1300) in about 1 run of 8, 1 MiB calls in none
// of 16 (bench/README.md); the limit should be the best the device does. The sparse read asks for 1 % of the scale*count
// objects with one pread each. Run with one MPI rank.
#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "common.h"

namespace {

class Device : public bench::System {
 public:
  const char* name() const override { return "device"; }

  Device() {
    const auto& c = bench::Ctx();
    BENCH_CHECK(c.nranks == 1, "the device limit runs on one rank (use --scale=N)");
    uint64_t block = c.cfg.GetU64("block", 1ull << 20);
    per_block_ = std::max<uint64_t>(1, block / c.cfg.size);
    total_ = c.cfg.count * static_cast<uint64_t>(c.cfg.scale);
    per_block_ = std::min(per_block_, total_);
    // Filler for a whole block, made before the timed phase; the object
    // stamps are rewritten per block.
    const uint64_t size = c.cfg.size;
    std::vector<char> one = bench::MakeFiller(size, 0);
    buf_.resize(per_block_ * size);
    rbuf_.resize(per_block_ * size);
    for (uint64_t k = 0; k < per_block_; ++k) memcpy(&buf_[k * size], one.data(), size);
  }

  static std::string FilePath(const std::string& dir, int ckpt) {
    return dir + "/device.ckpt" + std::to_string(ckpt);
  }

  void Checkpoint(const std::string& dir, int ckpt) override {
    const uint64_t size = bench::Ctx().cfg.size;
    std::string path = FilePath(dir, ckpt);
    int fd = open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    BENCH_CHECK(fd >= 0, "open %s: %s", path.c_str(), strerror(errno));
    for (uint64_t first = 0; first < total_; first += per_block_) {
      uint64_t n = std::min(per_block_, total_ - first);
      for (uint64_t k = 0; k < n; ++k) bench::Stamp(&buf_[k * size], size, 0, ckpt, first + k);
      bench::PWriteFull(fd, buf_.data(), n * size, first * size, path);
    }
    BENCH_CHECK(fsync(fd) == 0, "fsync %s: %s", path.c_str(), strerror(errno));
    BENCH_CHECK(close(fd) == 0, "close %s: %s", path.c_str(), strerror(errno));
  }

  uint64_t ReadAll(const std::string& dir, int ckpt) override {
    const uint64_t size = bench::Ctx().cfg.size;
    std::vector<char>& buf = rbuf_;  // allocated before the timed phase
    std::string path = FilePath(dir, ckpt);
    int fd = open(path.c_str(), O_RDONLY);
    BENCH_CHECK(fd >= 0, "open %s: %s", path.c_str(), strerror(errno));
    uint64_t bad = 0;
    for (uint64_t first = 0; first < total_; first += per_block_) {
      uint64_t n = std::min(per_block_, total_ - first);
      bench::PReadFull(fd, buf.data(), n * size, first * size, path);
      for (uint64_t k = 0; k < n; ++k) bad += !bench::CheckStamp(&buf[k * size], size, 0, ckpt, first + k);
    }
    close(fd);
    return bad;
  }

  uint64_t ReadSome(const std::string& dir, int ckpt, const std::vector<uint64_t>& ids) override {
    const uint64_t size = bench::Ctx().cfg.size;
    char* buf = rbuf_.data();
    std::string path = FilePath(dir, ckpt);
    int fd = open(path.c_str(), O_RDONLY);
    BENCH_CHECK(fd >= 0, "open %s: %s", path.c_str(), strerror(errno));
    uint64_t bad = 0;
    for (uint64_t i : ids) {
      bench::PReadFull(fd, buf, size, i * size, path);
      bad += !bench::CheckStamp(buf, size, 0, ckpt, i);
    }
    close(fd);
    return bad;
  }

 private:
  uint64_t per_block_ = 1;  // objects per I/O block
  uint64_t total_ = 0;      // objects in the file
  std::vector<char> buf_, rbuf_;
};

}  // namespace

int main(int argc, char** argv) {
  return bench::RunMain(argc, argv, [] { return static_cast<bench::System*>(new Device); });
}
