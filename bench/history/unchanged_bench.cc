// Unchanged namespaces at commit (issue 11, goal 5): every rank puts
// OBJECTS small tagged objects and commits; then, COMMITS times, only the
// last rank changes one object and all commit; then COMMITS commits with
// no change at all. Prints, per kind of commit, what rank 0 gathered
// (IoStats::index_bytes_gathered), what it wrote, the tables reused
// (summed over ranks) and the median commit time. Before table reuse every
// commit gathered and wrote what the first ("all ranks changed") one does.
//
//   mpiexec -n 4 unchanged_bench DIR [objects per rank] [commits]
#include <mpi.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include "cairn/store.h"

using Clock = std::chrono::steady_clock;

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (argc < 2) {
    if (rank == 0) std::fprintf(stderr, "usage: unchanged_bench DIR [objects] [commits]\n");
    MPI_Finalize();
    return 2;
  }
  std::string path = std::string(argv[1]) + "/store";
  int objects = argc > 2 ? std::atoi(argv[2]) : 1000;
  int commits = argc > 3 ? std::atoi(argv[3]) : 20;
  if (rank == 0) std::filesystem::remove_all(path);
  MPI_Barrier(MPI_COMM_WORLD);
  cairn::Options o;
  o.keep_revisions = 2;
  std::unique_ptr<cairn::Store> s;
  cairn::Status st = cairn::Store::Open(o, path, MPI_COMM_WORLD, &s);
  if (!st.ok()) {
    std::fprintf(stderr, "%s\n", st.ToString().c_str());
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  auto put = [&](int i, int gen) {
    char key[32];
    std::snprintf(key, sizeof key, "obj%08d", i);
    cairn::TagList tags = {{"gen", cairn::TagValue::Int(gen)}, {"rank", cairn::TagValue::Int(rank)},
                           {"label", cairn::TagValue::String("object " + std::to_string(i))}};
    st = s->Put(key, "", tags);
    if (!st.ok()) MPI_Abort(MPI_COMM_WORLD, 1);
  };
  struct Row { const char* what; uint64_t gathered = 0, written = 0, reused = 0; std::vector<double> us; };
  auto commit = [&](Row* row) {
    cairn::IoStats a = s->stats();
    MPI_Barrier(MPI_COMM_WORLD);
    auto t0 = Clock::now();
    st = s->Commit();
    double us = std::chrono::duration<double, std::micro>(Clock::now() - t0).count(), max_us;
    if (!st.ok()) MPI_Abort(MPI_COMM_WORLD, 1);
    cairn::IoStats b = s->stats();
    uint64_t reused = b.index_tables_reused - a.index_tables_reused, all_reused;
    MPI_Reduce(&us, &max_us, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    MPI_Reduce(&reused, &all_reused, 1, MPI_UINT64_T, MPI_SUM, 0, MPI_COMM_WORLD);
    row->gathered += b.index_bytes_gathered - a.index_bytes_gathered;
    row->written += b.write_bytes - a.write_bytes;
    row->reused += all_reused;
    row->us.push_back(max_us);
  };
  Row first{"all ranks changed (first commit)"}, one{"1 rank of N changed"}, none{"no rank changed"};
  for (int i = 0; i < objects; i++) put(i, 0);
  commit(&first);
  for (int c = 0; c < commits; c++) {
    if (rank == size - 1) put(c % objects, c + 1);
    commit(&one);
  }
  for (int c = 0; c < commits; c++) commit(&none);
  if (rank == 0) {
    std::printf("ranks %d, %d objects x 3 tags per rank, keep_revisions 2, sync on\n", size, objects);
    std::printf("| commit | commits | rank 0 index bytes gathered per commit | rank 0 bytes written per commit | tables reused per commit (all ranks) | median commit (us) |\n|---|---|---|---|---|---|\n");
    for (Row* r : {&first, &one, &none}) {
      std::vector<double> v = r->us;
      std::sort(v.begin(), v.end());
      double n = double(v.size());
      std::printf("| %s | %zu | %.0f | %.0f | %.1f | %.0f |\n", r->what, v.size(), double(r->gathered) / n,
                  double(r->written) / n, double(r->reused) / n, v[v.size() / 2]);
    }
  }
  s->Close();
  MPI_Finalize();
  return 0;
}
