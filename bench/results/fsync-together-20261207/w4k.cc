// W2-4K checkpoint at one rank, split: open, puts, commit, close (cairn)
// against open, pwrites, fsync, close (POSIX); alternating, fresh dirs.
#include <fcntl.h>
#include <mpi.h>
#include <unistd.h>
#include <sys/stat.h>
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>
#include "cairn/store.h"
using clk = std::chrono::steady_clock;
static double ms(clk::time_point a, clk::time_point b) { return std::chrono::duration<double, std::milli>(b - a).count(); }
static double med(std::vector<double> v) { std::sort(v.begin(), v.end()); return v[v.size() / 2]; }
int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  const int reps = argc > 1 ? atoi(argv[1]) : 11, n = 1024, sz = 4096;
  std::string val(sz, 'x');
  std::vector<double> co, cp, cc, cx, ct, po, pw, pf, px, pt;
  for (int r = 0; r < reps; r++) {
    std::string d = "/tmp/w4kp/c" + std::to_string(r);
    auto t0 = clk::now();
    std::unique_ptr<cairn::Store> s;
    cairn::Options o;
    if (!cairn::Store::Open(o, d, MPI_COMM_SELF, &s).ok()) return 1;
    auto t1 = clk::now();
    for (int i = 0; i < n; i++) { val[0] = char(i); if (!s->Put("k" + std::to_string(i), val).ok()) return 2; }
    auto t2 = clk::now();
    if (!s->Commit().ok()) return 3;
    auto t3 = clk::now();
    if (!s->Close().ok()) return 4;
    auto t4 = clk::now();
    co.push_back(ms(t0, t1)); cp.push_back(ms(t1, t2)); cc.push_back(ms(t2, t3)); cx.push_back(ms(t3, t4)); ct.push_back(ms(t0, t4));
    std::string f = "/tmp/w4kp/p" + std::to_string(r);
    auto u0 = clk::now();
    int fd = open(f.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    auto u1 = clk::now();
    for (int i = 0; i < n; i++) { val[0] = char(i); if (pwrite(fd, val.data(), sz, off_t(i) * sz) != sz) return 5; }
    auto u2 = clk::now();
    fsync(fd);
    auto u3 = clk::now();
    close(fd);
    auto u4 = clk::now();
    po.push_back(ms(u0, u1)); pw.push_back(ms(u1, u2)); pf.push_back(ms(u2, u3)); px.push_back(ms(u3, u4)); pt.push_back(ms(u0, u4));
  }
  printf("cairn: open %.2f  puts %.2f  commit %.2f  close %.2f  total %.2f ms (medians of %d)\n", med(co), med(cp), med(cc), med(cx), med(ct), reps);
  printf("posix: open %.2f  writes %.2f  fsync %.2f  close %.2f  total %.2f ms\n", med(po), med(pw), med(pf), med(px), med(pt));
  MPI_Finalize();
}
