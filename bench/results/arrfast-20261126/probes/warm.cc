// warm STORE D0 D1 D2 REPS: GetArray of the whole array, cache warm; times each call.
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <sys/resource.h>
#include "cairn/store.h"
#include "cairn/array.h"
int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  std::vector<uint64_t> shape = {strtoull(argv[2], 0, 10), strtoull(argv[3], 0, 10), strtoull(argv[4], 0, 10)};
  int reps = atoi(argv[5]);
  uint64_t n = shape[0] * shape[1] * shape[2];
  std::vector<double> buf(n, -1.0);
  for (int r = 0; r < reps; r++) {
    cairn::Options o;
    o.read_only = true;
    o.create_if_missing = false;
    std::unique_ptr<cairn::Store> st;
    auto t0 = std::chrono::steady_clock::now();
    cairn::Status s = cairn::Store::Open(o, argv[1], MPI_COMM_WORLD, &st);
    if (!s.ok()) { printf("%s\n", s.ToString().c_str()); return 1; }
    struct rusage u0, u1;
    getrusage(RUSAGE_SELF, &u0);
    auto t1 = std::chrono::steady_clock::now();
    cairn::ArrayReadOptions ro;
    ro.read_threads = getenv("THREADS") ? atoi(getenv("THREADS")) : 2;
    s = st->GetArray("a", {0, 0, 0}, shape, buf.data(), ro);
    auto t2 = std::chrono::steady_clock::now();
    getrusage(RUSAGE_SELF, &u1);
    auto tv = [](timeval a, timeval b) { return (b.tv_sec - a.tv_sec) * 1e3 + (b.tv_usec - a.tv_usec) * 1e-3; };
    printf("user %.1f sys %.1f ms  ", tv(u0.ru_utime, u1.ru_utime), tv(u0.ru_stime, u1.ru_stime));
    if (!s.ok()) { printf("%s\n", s.ToString().c_str()); return 1; }
    st->Close();
    printf("open %.2f ms get %.2f ms (%.0f MiB/s)\n", std::chrono::duration<double>(t1 - t0).count() * 1e3,
           std::chrono::duration<double>(t2 - t1).count() * 1e3, n * 8 / 1048576.0 / std::chrono::duration<double>(t2 - t1).count());
  }
  MPI_Finalize();
}
