// The retention measurement: N checkpoints of every rank with
// keep_revisions = K, objects rewritten at every checkpoint beside objects
// written once, and the data files' size (logical and on disk) against
// (K + 1) revisions. Every retained revision is verified at the end.
//
//   mpiexec -n 4 retention_soak DIR [checkpoints=1000] [keep=2] [--nosync]
//
// Prints one summary line per tenth of the run and a final JSON line. Exit
// code 0 only if every value of every retained revision reads back intact
// and the files stayed within the stated bound: static bytes + (K + 1) x
// rewritten bytes per revision (the largest) + slack, where slack is
// (K + 3) extents per rank + 1: space is reused in whole extents, and a
// rank's data of one revision starts and ends inside extents it shares with
// the revisions before and after it (one partial extent per retained
// revision and one for its objects written once), plus the run each rank is
// filling and rank 0's index block.
#include <mpi.h>
#include <sys/stat.h>

#include <cstdio>
#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

#include "cairn/store.h"
#include "test_util.h"

using cairn::Options;
using cairn::Status;
using cairn::Store;
using cairn::test::Pattern;

namespace {
constexpr uint64_t kExtent = 1 << 20;
// Per rank: two objects written once (2.5 MiB), two rewritten at every
// checkpoint (1 MiB fixed + 0..1 MiB varying), and a small inline one.
constexpr uint64_t kStatic = (2 << 20) + (512 << 10);
uint64_t HotA() { return 1 << 20; }
uint64_t HotB(uint64_t rev, int rank) { return ((rev * 7919 + uint64_t(rank) * 104729) % 1024) << 10; }
std::string ValA(uint64_t rev, int rank) { return Pattern(rev * 1000 + rank, HotA()); }
std::string ValB(uint64_t rev, int rank) { return Pattern(rev * 1000 + rank + 500, HotB(rev, rank)); }

void Sizes(const std::string& dir, uint64_t* logical, uint64_t* disk) {
  *logical = *disk = 0;
  for (const auto& e : std::filesystem::directory_iterator(dir)) {
    std::string name = e.path().filename();
    if (name.rfind("data.", 0) != 0) continue;
    struct stat st;
    if (::stat(e.path().c_str(), &st) != 0) continue;
    *logical += uint64_t(st.st_size);
    *disk += uint64_t(st.st_blocks) * 512;
  }
}
}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, n;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &n);
  if (argc < 2) {
    if (rank == 0) std::fprintf(stderr, "usage: retention_soak DIR [checkpoints] [keep] [--nosync]\n");
    MPI_Finalize();
    return 2;
  }
  std::string dir = argv[1];
  uint64_t checkpoints = argc > 2 ? std::stoull(argv[2]) : 1000;
  uint64_t keep = argc > 3 ? std::stoull(argv[3]) : 2;
  bool sync = !(argc > 4 && std::strcmp(argv[4], "--nosync") == 0);
  std::string path = dir + "/store";
  Options o;
  o.extent_size = kExtent;
  o.chunk_size = 256 << 10;
  o.write_buffer_size = 1 << 20;
  o.keep_revisions = keep;
  o.sync = sync;
  std::unique_ptr<Store> s;
  Status st = Store::Open(o, path, MPI_COMM_WORLD, &s);
  int bad = 0;
  auto fail = [&](const std::string& what) {
    std::fprintf(stderr, "rank %d: %s\n", rank, what.c_str());
    bad = 1;
  };
  if (!st.ok()) fail(st.ToString());
  double t0 = MPI_Wtime();
  uint64_t max_logical = 0, max_disk = 0, hot_max = 0;
  if (!bad) {
    s->Put("static1", Pattern(rank + 77, 2 << 20));
    s->Put("static2", Pattern(rank + 88, 512 << 10));
  }
  for (uint64_t c = 1; c <= checkpoints && !bad; c++) {
    uint64_t rev = 0;
    st = s->Put("hotA", ValA(c, rank));
    if (st.ok()) st = s->Put("hotB", ValB(c, rank));
    if (st.ok()) st = s->Put("step", std::to_string(c));
    if (st.ok()) st = s->Commit(&rev);
    if (!st.ok()) { fail(st.ToString()); break; }
    if (rev != c) fail("unexpected revision number");
    uint64_t hot = 0, hot_all = 0;
    hot = HotA() + HotB(c, rank);
    MPI_Allreduce(&hot, &hot_all, 1, MPI_UINT64_T, MPI_SUM, MPI_COMM_WORLD);
    hot_max = std::max(hot_max, hot_all);
    if (rank == 0) {
      uint64_t lg, dk;
      Sizes(path, &lg, &dk);
      max_logical = std::max(max_logical, lg);
      max_disk = std::max(max_disk, dk);
      if (c % std::max<uint64_t>(1, checkpoints / 10) == 0)
        std::printf("checkpoint %5lu  %6.1f s  data files: %8.2f MiB logical, %8.2f MiB on disk\n", c,
                    MPI_Wtime() - t0, lg / 1048576.0, dk / 1048576.0);
      std::fflush(stdout);
    }
  }
  double secs = MPI_Wtime() - t0;
  // Every retained revision, every value.
  std::vector<cairn::RevisionInfo> revs;
  if (!bad) s->ListRevisions(&revs);
  if (s) s->Close();
  s.reset();
  MPI_Barrier(MPI_COMM_WORLD);
  for (const auto& ri : revs) {
    Options ro = o;
    ro.read_only = true;
    ro.revision = ri.revision;
    std::unique_ptr<Store> r;
    st = Store::Open(ro, path, MPI_COMM_WORLD, &r);
    if (!st.ok()) { fail(st.ToString()); break; }
    std::string v;
    auto check = [&](const char* key, const std::string& want) {
      Status g = r->Get(key, &v);
      if (!g.ok() || v != want) fail("revision " + std::to_string(ri.revision) + " key " + key + ": " +
                                     (g.ok() ? "wrong bytes" : g.ToString()));
    };
    check("hotA", ValA(ri.revision, rank));
    check("hotB", ValB(ri.revision, rank));
    check("static1", Pattern(rank + 77, 2 << 20));
    check("static2", Pattern(rank + 88, 512 << 10));
    r->Close();
  }
  int any_bad = 0;
  MPI_Allreduce(&bad, &any_bad, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  if (rank == 0) {
    uint64_t lg, dk;
    Sizes(path, &lg, &dk);
    uint64_t statics = kStatic * uint64_t(n);
    uint64_t revision_bytes = statics + hot_max;               // one whole revision (largest)
    uint64_t k1_revisions = (keep + 1) * revision_bytes;       // (K + 1) whole revisions
    uint64_t k1_new = statics + (keep + 1) * hot_max;          // statics once + (K + 1) x rewritten
    uint64_t slack = ((keep + 3) * uint64_t(n) + 1) * kExtent;
    bool within = keep == 0 || max_logical <= k1_new + slack;
    std::printf("{\"ranks\": %d, \"checkpoints\": %lu, \"keep\": %lu, \"sync\": %s, \"seconds\": %.1f, "
                "\"retained\": %zu, \"final_logical\": %lu, \"final_disk\": %lu, \"max_logical\": %lu, "
                "\"max_disk\": %lu, \"revision_bytes\": %lu, \"k_plus_1_revisions\": %lu, "
                "\"static_plus_k_plus_1_rewritten\": %lu, \"slack_allowed\": %lu, \"within_bound\": %s, "
                "\"values_intact\": %s}\n",
                n, checkpoints, keep, sync ? "true" : "false", secs, revs.size(), lg, dk, max_logical,
                max_disk, revision_bytes, k1_revisions, k1_new, slack, within ? "true" : "false",
                any_bad ? "false" : "true");
    if (!within) any_bad = 1;
  }
  MPI_Bcast(&any_bad, 1, MPI_INT, 0, MPI_COMM_WORLD);
  MPI_Finalize();
  return any_bad;
}
