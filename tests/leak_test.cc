// Open/put/commit/get/close cycles must not grow memory (RSS) or the number
// of open file descriptors.
//   leak_test self CYCLES   single-process opens (no MPI communication)
//   leak_test mpi CYCLES    collective opens over MPI_COMM_WORLD (mpiexec -n 2)
// The counts after a warm-up of a tenth of the cycles are compared with the
// counts at the end: no descriptor may be left over, and RSS may not grow by
// more than 1 MiB (a leak of 1 KiB per cycle over 1,000 cycles would). Under
// ASan only descriptors are counted (LeakSanitizer checks the memory).
#include <dirent.h>
#include <mpi.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "cairn/store.h"
#include "mpi_main.h"
#include "test_util.h"

namespace {

// Under AddressSanitizer freed memory waits in a quarantine, so RSS grows
// without a leak; LeakSanitizer checks leaks there instead.
#if defined(__SANITIZE_ADDRESS__)
constexpr bool kAsan = true;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
constexpr bool kAsan = true;
#else
constexpr bool kAsan = false;
#endif
#else
constexpr bool kAsan = false;
#endif

int OpenFds() {
  int n = 0;
  DIR* d = opendir("/proc/self/fd");
  while (dirent* e = readdir(d)) n += e->d_name[0] != '.';
  closedir(d);
  return n - 1;  // the directory stream itself
}

long RssKiB() {
  std::ifstream in("/proc/self/statm");
  long pages = 0, resident = 0;
  in >> pages >> resident;
  return resident * (sysconf(_SC_PAGESIZE) / 1024);
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (argc != 3) {
    std::fprintf(stderr, "usage: leak_test self|mpi CYCLES\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  bool mpi = std::string(argv[1]) == "mpi";
  int cycles = std::atoi(argv[2]);
  if (const char* l = std::getenv("CAIRN_LONG_TESTS"); l && *l && std::string(l) != "0") cycles *= 10;
  std::string dir = cairn::test::SharedTempDir(MPI_COMM_WORLD);
  cairn::Options o;
  o.extent_size = 64 << 10;
  o.chunk_size = 16 << 10;
  o.write_buffer_size = 32 << 10;
  o.sync = false;  // durability is not what is measured; fsyncs would only cost time
  int warm = cycles / 10, fds0 = 0, fds_mid = 0;
  long rss0 = 0, rss_mid = 0;
  std::string err;
  for (int c = 0; c < cycles && err.empty(); c++) {
    if (c == warm) { fds0 = OpenFds(); rss0 = RssKiB(); }
    if (c == (warm + cycles) / 2) { fds_mid = OpenFds(); rss_mid = RssKiB(); }
    // A new store every 100 cycles: memory that grows with a store's number
    // of revisions (its manifest and revision list, read at each open) is
    // not a leak, and is kept out of the measure this way.
    std::string path = dir + "/s" + std::to_string(c / 100 % 2);
    if (c % 100 == 0) {
      MPI_Barrier(MPI_COMM_WORLD);
      if (rank == 0) std::filesystem::remove_all(path);
      MPI_Barrier(MPI_COMM_WORLD);
    }
    std::unique_ptr<cairn::Store> s;
    cairn::Status st = mpi ? cairn::Store::Open(o, path, MPI_COMM_WORLD, &s) : cairn::Store::Open(o, path, &s);
    // A value in the index, one in chunks, one rewritten each cycle.
    if (st.ok()) st = s->Put("small", "cycle " + std::to_string(c), {{"c", cairn::TagValue::Int(c)}});
    if (st.ok()) st = s->Put("big" + std::to_string(c % 7), cairn::test::Pattern(c, 40000));
    if (st.ok()) st = s->Commit();
    std::string v;
    if (st.ok()) st = s->Get("big" + std::to_string(c % 7), &v);
    if (st.ok() && v != cairn::test::Pattern(c, 40000)) err = "value differs";
    std::vector<cairn::ObjectInfo> objs;
    if (st.ok()) st = s->List(&objs);
    if (st.ok()) st = s->Close();
    if (!st.ok()) err = "cycle " + std::to_string(c) + ": " + st.ToString();
  }
  int fds1 = OpenFds();
  long rss1 = RssKiB();
  std::printf("rank %d, %d cycles (%s): fds %d -> %d -> %d, RSS %ld -> %ld -> %ld KiB%s\n", rank, cycles,
              mpi ? "collective" : "single process", fds0, fds_mid, fds1, rss0, rss_mid, rss1,
              kAsan ? " (not checked under ASan: its quarantine holds freed memory; LeakSanitizer checks leaks)" : "");
  if (err.empty() && fds1 != fds0) err = "file descriptors grew from " + std::to_string(fds0) + " to " + std::to_string(fds1);
  if (err.empty() && rss1 - rss0 > 1024 && !kAsan)
    err = "RSS grew by " + std::to_string(rss1 - rss0) + " KiB over " + std::to_string(cycles - warm) + " cycles";
  if (!err.empty()) std::fprintf(stderr, "FAIL rank %d: %s\n", rank, err.c_str());
  int bad = err.empty() ? 0 : 1, worst = 0;
  MPI_Allreduce(&bad, &worst, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0) std::filesystem::remove_all(dir);
  MPI_Finalize();
  return worst;
}
