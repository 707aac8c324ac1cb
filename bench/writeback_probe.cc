// What early writeback (cairn's Options::writeback_bytes) buys on this
// machine's file system, measured without cairn: one process writes N MiB in
// 1 MiB pwrites into a new file, then fsyncs and closes it; variant K also
// calls sync_file_range(SYNC_FILE_RANGE_WRITE) on every K MiB written
// (K = 0: never, what POSIX file-per-process does). In each iteration every
// variant runs once, one after the other, so that a loaded machine's drift
// hits them alike; it prints, per variant, the median of its time divided
// by the K = 0 time of the same iteration, and the times themselves.
//
//   writeback_probe DIR ITERATIONS MIB K1 [K2 ...]     e.g. /tmp 21 64 0 8
//
// doc/design.md, "Early writeback", has the results.
#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

namespace {

double Now() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

double Quantile(std::vector<double> v, double q) {
  std::sort(v.begin(), v.end());
  return v[size_t(q * double(v.size() - 1) + 0.5)];
}

// Writes `total` bytes to `path` and fsyncs it; returns the seconds taken.
double WriteOnce(const std::string& path, size_t total, size_t every, std::vector<char>& buf) {
  const size_t block = buf.size();
  unlink(path.c_str());
  double t0 = Now();
  int fd = open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  if (fd < 0) { perror(path.c_str()); std::exit(1); }
  size_t pending = 0, start = 0;
  for (size_t off = 0; off < total; off += block) {
    if (pwrite(fd, buf.data(), block, off_t(off)) != ssize_t(block)) { perror("pwrite"); std::exit(1); }
    pending += block;
    if (every > 0 && pending >= every) {
      sync_file_range(fd, off64_t(start), off64_t(pending), SYNC_FILE_RANGE_WRITE);
      start += pending;
      pending = 0;
    }
  }
  if (fsync(fd) != 0) { perror("fsync"); std::exit(1); }
  close(fd);
  double t = Now() - t0;
  unlink(path.c_str());
  return t;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 5) {
    std::fprintf(stderr, "usage: %s DIR ITERATIONS MIB K_MIB [K_MIB ...]\n", argv[0]);
    return 2;
  }
  std::string dir = argv[1];
  int iters = std::atoi(argv[2]);
  size_t total = size_t(std::atoll(argv[3])) << 20;
  std::vector<size_t> ks;
  for (int i = 4; i < argc; i++) ks.push_back(size_t(std::atoll(argv[i])) << 20);
  std::vector<char> buf(1 << 20, 'x');
  std::vector<std::vector<double>> t(ks.size());
  for (int it = 0; it < iters; it++)
    for (size_t k = 0; k < ks.size(); k++) {
      buf[0] = char(it + int(k));
      t[k].push_back(WriteOnce(dir + "/writeback_probe." + std::to_string(k), total, ks[k], buf));
    }
  for (size_t k = 0; k < ks.size(); k++) {
    std::vector<double> ratio;
    for (int it = 0; it < iters; it++) ratio.push_back(t[k][size_t(it)] / t[0][size_t(it)]);
    std::printf("K=%zu MiB: seconds min %.3f median %.3f max %.3f; time / K=%zu MiB's, same iteration: "
                "q1 %.2f median %.2f q3 %.2f\n",
                ks[k] >> 20, Quantile(t[k], 0), Quantile(t[k], 0.5), Quantile(t[k], 1), ks[0] >> 20,
                Quantile(ratio, 0.25), Quantile(ratio, 0.5), Quantile(ratio, 0.75));
  }
  return 0;
}
