// The device limit: one process writes the bytes that `scale` ranks would
// write, in large blocks (--block, 1 MiB by default, rounded to a multiple
// of the object size), fsyncs and closes; reads them back in the same
// blocks. --streams=K splits the bytes over K threads, each with its own
// file (K parallel streams, each fsyncing its file, as K ranks of POSIX
// file-per-process would); bench/run.py runs it with 1 and with N streams
// and takes the better as the limit, so that no system passes 1.0x merely
// by writing in parallel where the single stream could not (issue 11,
// goal 2). Why 1 MiB: on the development VM, pwrite() calls of 4 or 16 MiB
// into the page cache fell into a slow mode (~300 MiB/s instead of ~1300)
// in about 1 run of 8, 1 MiB calls in none of 16 (bench/README.md); the
// limit should be the best the device does. The sparse read asks for 1 %
// of the scale*count objects with one pread each (one stream). Run with
// one MPI rank. --direct=1 reads with O_DIRECT (past the page cache, into
// page-aligned memory; writes as without it): the reads cairn makes of
// cold, aligned requests (Options::direct_read_bytes), so that the limit
// is the best of reading through the cache and past it, and no system
// passes 1.0x merely by reading past the cache (bench/HISTORY.md, "Direct reads").
#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <thread>

#include "common.h"

namespace {

class Device : public bench::System {
 public:
  Device() {
    const auto& c = bench::Ctx();
    BENCH_CHECK(c.nranks == 1, "the device limit runs on one rank (use --scale=N)");
    uint64_t block = c.cfg.GetU64("block", 1ull << 20);
    per_block_ = std::max<uint64_t>(1, block / c.cfg.size);
    total_ = c.cfg.count * static_cast<uint64_t>(c.cfg.scale);
    per_block_ = std::min(per_block_, total_);
    streams_ = std::clamp<uint64_t>(c.cfg.GetU64("streams", 1), 1, total_);
    direct_ = c.cfg.GetU64("direct", 0) != 0;
    label_ = streams_ > 1 ? "device-" + std::to_string(streams_) : "device";
    if (direct_) label_ += "-direct";
    // Filler for a whole block per stream, made before the timed phase;
    // the object stamps are rewritten per block.
    const uint64_t size = c.cfg.size;
    std::vector<char> one = bench::MakeFiller(size, 0);
    buf_.assign(streams_, std::vector<char>(per_block_ * size));
    rbuf_.resize(streams_);
    for (auto& b : rbuf_) b.assign(per_block_ * size);  // page-aligned (--buffer-offset aside)
    for (auto& b : buf_)
      for (uint64_t k = 0; k < per_block_; ++k) memcpy(&b[k * size], one.data(), size);
  }
  const char* name() const override { return label_.c_str(); }

  std::string FilePath(const std::string& dir, int ckpt, uint64_t stream) const {
    std::string p = dir + "/device.ckpt" + std::to_string(ckpt);
    return streams_ > 1 ? p + ".s" + std::to_string(stream) : p;
  }
  // Objects [first, end) of stream k: the objects split evenly.
  void Range(uint64_t k, uint64_t* first, uint64_t* end) const {
    *first = total_ * k / streams_;
    *end = total_ * (k + 1) / streams_;
  }

  // Runs fn(k) for every stream, on threads when there are several.
  template <typename F>
  void Each(F fn) {
    if (streams_ == 1) return fn(0);
    std::vector<std::thread> t;
    for (uint64_t k = 0; k < streams_; ++k) t.emplace_back(fn, k);
    for (auto& x : t) x.join();
  }

  void Checkpoint(const std::string& dir, int ckpt) override {
    Each([&](uint64_t k) { WriteStream(dir, ckpt, k); });
  }

  void WriteStream(const std::string& dir, int ckpt, uint64_t stream) {
    const uint64_t size = bench::Ctx().cfg.size;
    std::vector<char>& buf = buf_[stream];
    std::string path = FilePath(dir, ckpt, stream);
    int fd = open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    BENCH_CHECK(fd >= 0, "open %s: %s", path.c_str(), strerror(errno));
    uint64_t lo, hi;
    Range(stream, &lo, &hi);
    for (uint64_t first = lo; first < hi; first += per_block_) {
      uint64_t n = std::min(per_block_, hi - first);
      for (uint64_t k = 0; k < n; ++k) bench::Stamp(&buf[k * size], size, 0, ckpt, first + k);
      bench::PWriteFull(fd, buf.data(), n * size, (first - lo) * size, path);
    }
    BENCH_CHECK(fsync(fd) == 0, "fsync %s: %s", path.c_str(), strerror(errno));
    BENCH_CHECK(close(fd) == 0, "close %s: %s", path.c_str(), strerror(errno));
  }

  uint64_t ReadAll(const std::string& dir, int ckpt) override {
    std::vector<uint64_t> bad(streams_, 0);
    Each([&](uint64_t k) { bad[k] = ReadStream(dir, ckpt, k); });
    uint64_t sum = 0;
    for (uint64_t b : bad) sum += b;
    return sum;
  }

  uint64_t ReadStream(const std::string& dir, int ckpt, uint64_t stream) {
    const uint64_t size = bench::Ctx().cfg.size;
    bench::ReadBuffer& buf = rbuf_[stream];  // allocated before the timed phase
    std::string path = FilePath(dir, ckpt, stream);
    int fd = open(path.c_str(), O_RDONLY | (direct_ ? O_DIRECT : 0));
    BENCH_CHECK(fd >= 0, "open %s: %s", path.c_str(), strerror(errno));
    uint64_t bad = 0, lo, hi;
    Range(stream, &lo, &hi);
    for (uint64_t first = lo; first < hi; first += per_block_) {
      uint64_t n = std::min(per_block_, hi - first);
      bench::PReadFull(fd, buf.data(), n * size, (first - lo) * size, path);
      for (uint64_t k = 0; k < n; ++k) bad += !bench::CheckStamp(buf.data() + k * size, size, 0, ckpt, first + k);
    }
    close(fd);
    return bad;
  }

  uint64_t ReadSome(const std::string& dir, int ckpt, const std::vector<uint64_t>& ids) override {
    const uint64_t size = bench::Ctx().cfg.size;
    char* buf = rbuf_[0].data();
    uint64_t bad = 0;
    int fd = -1;
    uint64_t open_stream = ~0ull, lo = 0, hi = 0;
    std::string path;
    for (uint64_t i : ids) {
      uint64_t k = streams_ == 1 ? 0 : std::min(streams_ - 1, i * streams_ / total_);
      while (k > 0 && (Range(k, &lo, &hi), i < lo)) --k;
      while (Range(k, &lo, &hi), i >= hi) ++k;
      if (k != open_stream) {
        if (fd >= 0) close(fd);
        path = FilePath(dir, ckpt, k);
        fd = open(path.c_str(), O_RDONLY | (direct_ ? O_DIRECT : 0));
        BENCH_CHECK(fd >= 0, "open %s: %s", path.c_str(), strerror(errno));
        open_stream = k;
      }
      bench::PReadFull(fd, buf, size, (i - lo) * size, path);
      bad += !bench::CheckStamp(buf, size, 0, ckpt, i);
    }
    if (fd >= 0) close(fd);
    return bad;
  }

 private:
  uint64_t per_block_ = 1;  // objects per I/O block
  uint64_t total_ = 0;      // objects in all files
  uint64_t streams_ = 1;    // parallel streams (threads), one file each
  bool direct_ = false;     // reads with O_DIRECT
  std::string label_;
  std::vector<std::vector<char>> buf_;  // per stream
  std::vector<bench::ReadBuffer> rbuf_;
};

}  // namespace

int main(int argc, char** argv) {
  return bench::RunMain(argc, argv, [] { return static_cast<bench::System*>(new Device); });
}
