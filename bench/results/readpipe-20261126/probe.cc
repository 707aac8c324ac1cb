// Times GetArray of a whole 1-block array (warm or cold cache), with batches and rusage.
#include <mpi.h>
#include <fcntl.h>
#include <sys/resource.h>
#include <unistd.h>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>
#include <filesystem>
#include "cairn/store.h"
#include "io/verify_pipeline.h"
using namespace cairn;
static double cpu(int who) { rusage u; getrusage(who, &u); return u.ru_utime.tv_sec + u.ru_utime.tv_usec * 1e-6 + u.ru_stime.tv_sec + u.ru_stime.tv_usec * 1e-6; }
int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  std::string dir = argv[1];
  int mib = atoi(argv[2]); bool cold = atoi(argv[3]);
  std::vector<uint64_t> shape = {uint64_t(mib) * 16, 128, 64};
  size_t bytes = size_t(mib) << 20;
  if (!std::filesystem::exists(dir)) {
    std::unique_ptr<Store> s; Options o;
    if (!Store::Open(o, dir, MPI_COMM_WORLD, &s).ok()) return 1;
    std::vector<double> a(bytes / 8); for (size_t i = 0; i < a.size(); i++) a[i] = double(i);
    if (!s->PutArray("a", DType::kFloat64, shape, {0,0,0}, shape, a.data()).ok()) return 2;
    if (!s->Commit().ok() || !s->Close().ok()) return 3;
  }
  std::unique_ptr<Store> s; Options o; o.read_only = true;
  Status st = Store::Open(o, dir, MPI_COMM_WORLD, &s);
  if (!st.ok()) { fprintf(stderr, "%s\n", st.ToString().c_str()); return 4; }
  std::vector<char> out(bytes);
  memset(out.data(), 1, bytes);
  for (int rep = 0; rep < 5; rep++) {
    if (cold) for (auto& e : std::filesystem::directory_iterator(dir)) { int fd = open(e.path().c_str(), O_RDONLY); if (fd >= 0) { fdatasync(fd); posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED); close(fd);} }
    uint64_t b0 = VerifyPipeline::batches(); double c0 = cpu(RUSAGE_SELF), c1t = cpu(RUSAGE_THREAD);
    auto t0 = std::chrono::steady_clock::now();
    st = s->GetArray("a", {0,0,0}, shape, out.data());
    double sec = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    printf("%s %.0f MiB/s  proc cpu %.0f ms  main-thread cpu %.0f ms  batches %lu\n", st.ok() ? "ok" : st.ToString().c_str(), mib / sec, (cpu(RUSAGE_SELF) - c0) * 1e3, (cpu(RUSAGE_THREAD) - c1t) * 1e3, (unsigned long)(VerifyPipeline::batches() - b0));
  }
  s.reset();
  MPI_Finalize();
}
