// The timed read of bench_cairn (open read-only, one MultiGet of 16 values
// of 16 MiB into the caller's memory, close) on a store bench_cairn wrote,
// into memory of a chosen kind, printing per rank the MultiGet's wall and
// process CPU time and the AnonHugePages of the memory. With read_memory.py
// (the same read from Python) it separates the memory read into from the
// language that reads (bench/python/README.md, 25 Nov 2026).
//
// usage: mpiexec -n N read_memory STORE_DIR KIND
//   KIND: vector  (a std::vector, zero-filled: bench_cairn's read buffer)
//         4k, 4k16, huge, huge16  (an anonymous mapping, madvise NOHUGEPAGE
//         or HUGEPAGE, the buffer at a 2 MiB boundary or 16 bytes past it)
// build: c++ -std=c++20 -O2 -DOMPI_SKIP_MPICXX -Iinclude $(mpicxx --showme:compile) \
//          bench/python/probe/read_memory.cc build/internal/libcairn.a $(mpicxx --showme:link) -lxxhash
#include <fcntl.h>
#include <mpi.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include "cairn/store.h"

namespace {

constexpr uint64_t kCount = 16, kSize = 16ull << 20, kTotal = kCount * kSize;

// KiB of AnonHugePages over the mappings that overlap [p, p + n).
long AnonHugeKiB(const char* p, uint64_t n) {
  std::ifstream f("/proc/self/smaps");
  std::string line;
  bool in = false;
  long kib = 0;
  const unsigned long a = reinterpret_cast<unsigned long>(p), b = a + n;
  while (std::getline(f, line)) {
    unsigned long lo, hi;
    if (sscanf(line.c_str(), "%lx-%lx ", &lo, &hi) == 2 && line.find(':') > line.find(' ')) {
      in = lo < b && a < hi;
    } else if (in && line.rfind("AnonHugePages:", 0) == 0) {
      kib += atol(line.c_str() + 14);
    }
  }
  return kib;
}

// bench_cairn's EvictTree: write back and drop every file from the page cache.
void Evict(const std::string& path) {
  for (const auto& e : std::filesystem::recursive_directory_iterator(path)) {
    if (!e.is_regular_file()) continue;
    int fd = open(e.path().c_str(), O_RDONLY);
    fdatasync(fd);
    posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
    close(fd);
  }
}

double CpuSeconds() {
  timespec t;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return t.tv_sec + t.tv_nsec * 1e-9;
}

}  // namespace

int main(int argc, char** argv) {
  int provided = 0, rank = 0, n = 0;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_SERIALIZED, &provided);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &n);
  if (argc != 3) {
    if (rank == 0) fprintf(stderr, "usage: read_memory STORE_DIR vector|4k|4k16|huge|huge16\n");
    MPI_Finalize();
    return 1;
  }
  const std::string dir = argv[1], kind = argv[2];
  std::vector<char> v;
  char* buf = nullptr;
  if (kind == "vector") {
    v.assign(kTotal, '\0');
    buf = v.data();
  } else {
    char* m = static_cast<char*>(mmap(nullptr, kTotal + (4ull << 20), PROT_READ | PROT_WRITE,
                                      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0));
    buf = reinterpret_cast<char*>((reinterpret_cast<uintptr_t>(m) + (2 << 20) - 1) &
                                  ~uintptr_t((2 << 20) - 1));
    madvise(buf, kTotal + (2 << 20), kind.rfind("huge", 0) == 0 ? MADV_HUGEPAGE : MADV_NOHUGEPAGE);
    if (kind.size() > 2 && kind.compare(kind.size() - 2, 2, "16") == 0) buf += 16;
    memset(buf, 0, kTotal);
  }
  std::vector<std::string> keys;
  std::vector<cairn::Store::ValueBuffer> bufs;
  for (uint64_t i = 0; i < kCount; ++i) {
    char k[48];
    snprintf(k, sizeof k, "c%04d/%012llu", 0, static_cast<unsigned long long>(i));
    keys.push_back(k);
    bufs.push_back({buf + i * kSize, kSize, 0});
  }
  if (rank == 0) Evict(dir);
  MPI_Barrier(MPI_COMM_WORLD);
  const double t0 = MPI_Wtime();
  cairn::Options o;
  o.read_only = true;
  std::unique_ptr<cairn::Store> st;
  cairn::Status s = cairn::Store::Open(o, dir, MPI_COMM_WORLD, &st);
  const double m0 = MPI_Wtime(), c0 = CpuSeconds();
  std::vector<cairn::Status> statuses;
  if (s.ok()) s = st->MultiGet(keys, &bufs, &statuses);
  const double c1 = CpuSeconds(), m1 = MPI_Wtime();
  if (s.ok()) s = st->Close();
  const double t1 = MPI_Wtime();
  if (!s.ok()) {
    fprintf(stderr, "rank %d: %s\n", rank, s.ToString().c_str());
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  double tmin = 0, tmax = 0;
  MPI_Reduce(&t0, &tmin, 1, MPI_DOUBLE, MPI_MIN, 0, MPI_COMM_WORLD);
  MPI_Reduce(&t1, &tmax, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
  char line[256];
  snprintf(line, sizeof line, "  rank %d multiget_s %.3f multiget_cpu_s %.4f anon_huge_kib %ld addr_mod_4096 %lu\n",
           rank, m1 - m0, c1 - c0, AnonHugeKiB(buf, kTotal), reinterpret_cast<unsigned long>(buf) % 4096);
  std::vector<char> all(rank == 0 ? sizeof line * n : 1);
  MPI_Gather(line, sizeof line, MPI_CHAR, all.data(), sizeof line, MPI_CHAR, 0, MPI_COMM_WORLD);
  if (rank == 0) {
    printf("cxx-%s span %.3f\n", kind.c_str(), tmax - tmin);
    for (int i = 0; i < n; ++i) fputs(&all[sizeof line * i], stdout);
    fflush(stdout);
  }
  MPI_Finalize();
  return 0;
}
