// Commit and open time against history (issue 11, goal 5). Makes N commits
// of one tiny value per rank with keep_revisions = 2 and sync off, and at
// each milestone (2K, 30K, 100K revisions by default) prints the median
// per-commit time of the next `window` commits, the time of a read-only
// open (min of 3) and the size of MANIFEST.
//
//   history_bench DIR [milestones, comma-separated] [window]
//   mpiexec -n 4 history_bench DIR 2000,30000,100000
#include <mpi.h>
#include <sys/stat.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <sstream>
#include <string>
#include <vector>

#include "cairn/store.h"

using Clock = std::chrono::steady_clock;

static double Us(Clock::time_point a, Clock::time_point b) {
  return std::chrono::duration<double, std::micro>(b - a).count();
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (argc < 2) {
    if (rank == 0) std::fprintf(stderr, "usage: history_bench DIR [milestones] [window]\n");
    MPI_Finalize();
    return 2;
  }
  std::string path = std::string(argv[1]) + "/store";
  std::vector<uint64_t> milestones = {2000, 30000, 100000};
  if (argc > 2) {
    milestones.clear();
    std::stringstream ss(argv[2]);
    std::string item;
    while (std::getline(ss, item, ',')) milestones.push_back(std::stoull(item));
  }
  uint64_t window = argc > 3 ? std::stoull(argv[3]) : 500;
  if (rank == 0) std::filesystem::remove_all(path);
  MPI_Barrier(MPI_COMM_WORLD);

  cairn::Options o;
  o.keep_revisions = 2;
  o.sync = false;
  std::unique_ptr<cairn::Store> s;
  cairn::Status st = cairn::Store::Open(o, path, MPI_COMM_WORLD, &s);
  if (!st.ok()) {
    std::fprintf(stderr, "open: %s\n", st.ToString().c_str());
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  if (rank == 0)
    std::printf("ranks %d, keep_revisions 2, sync off, window %llu\n%10s %12s %12s %12s %14s\n", size,
                (unsigned long long)window, "revisions", "commit_us", "commit_max", "open_ms", "manifest_B");
  uint64_t done = 0;
  std::string key = "k" + std::to_string(rank);
  auto commit = [&]() {
    std::string v = std::to_string(done);
    st = s->Put(key, v);
    if (st.ok()) st = s->Commit();
    if (!st.ok()) {
      std::fprintf(stderr, "rank %d commit %llu: %s\n", rank, (unsigned long long)done, st.ToString().c_str());
      MPI_Abort(MPI_COMM_WORLD, 1);
    }
    done++;
  };
  for (uint64_t m : milestones) {
    while (done < m) commit();
    std::vector<double> t;
    for (uint64_t i = 0; i < window; i++) {
      MPI_Barrier(MPI_COMM_WORLD);
      auto a = Clock::now();
      commit();
      t.push_back(Us(a, Clock::now()));
    }
    std::sort(t.begin(), t.end());
    double open_ms = 1e30;
    for (int k = 0; k < 3; k++) {
      cairn::Options ro;
      ro.read_only = true;
      std::unique_ptr<cairn::Store> r;
      MPI_Barrier(MPI_COMM_WORLD);
      auto a = Clock::now();
      st = cairn::Store::Open(ro, path, MPI_COMM_WORLD, &r);
      double ms = Us(a, Clock::now()) / 1000;
      if (!st.ok()) {
        std::fprintf(stderr, "read-only open: %s\n", st.ToString().c_str());
        MPI_Abort(MPI_COMM_WORLD, 1);
      }
      open_ms = std::min(open_ms, ms);
    }
    struct stat sb;
    uint64_t mbytes = ::stat((path + "/MANIFEST").c_str(), &sb) == 0 ? uint64_t(sb.st_size) : 0;
    if (rank == 0)
      std::printf("%10llu %12.1f %12.1f %12.2f %14llu\n", (unsigned long long)m, t[t.size() / 2], t.back(),
                  open_ms, (unsigned long long)mbytes);
    std::fflush(stdout);
  }
  s.reset();
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0) std::filesystem::remove_all(path);
  MPI_Finalize();
  return 0;
}
