// A job that holds a store open for writing, for lock_test.sh:
//   lock_holder STORE SECONDS
// opens STORE read-write, puts a value, and when every rank is in, rank 0
// writes the pids of all ranks into STORE.held. Then it waits until the
// file STORE.release exists (or SECONDS pass), commits and closes. Exit 0
// only if all of that succeeded.
#include <mpi.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>
#include <vector>

#include "cairn/store.h"

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (argc != 3) {
    if (rank == 0) std::fprintf(stderr, "usage: lock_holder STORE SECONDS\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  std::string path = argv[1];
  int seconds = std::atoi(argv[2]);
  cairn::Options o;
  o.extent_size = 1 << 20;
  o.write_buffer_size = 256 << 10;
  std::unique_ptr<cairn::Store> s;
  cairn::Status st = cairn::Store::Open(o, path, MPI_COMM_WORLD, &s);
  if (st.ok()) st = s->Put("held", "by lock_holder rank " + std::to_string(rank));
  int bad = st.ok() ? 0 : 1, worst = 0;
  if (bad) std::fprintf(stderr, "rank %d: %s\n", rank, st.ToString().c_str());
  MPI_Allreduce(&bad, &worst, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  if (worst) {
    MPI_Finalize();
    return 1;
  }
  int pid = int(getpid());
  std::vector<int> pids(size);
  MPI_Gather(&pid, 1, MPI_INT, pids.data(), 1, MPI_INT, 0, MPI_COMM_WORLD);
  if (rank == 0) {
    std::ofstream f(path + ".held.tmp");
    for (int p : pids) f << p << " ";
    f << "\n";
    f.close();
    std::rename((path + ".held.tmp").c_str(), (path + ".held").c_str());
  }
  int go = 0;
  for (int i = 0; i < seconds * 10 && !go; i++) {
    if (rank == 0) go = access((path + ".release").c_str(), F_OK) == 0;
    MPI_Bcast(&go, 1, MPI_INT, 0, MPI_COMM_WORLD);
    if (!go) usleep(100000);
  }
  uint64_t rev = 0;
  st = s->Commit(&rev);
  if (st.ok()) st = s->Close();
  bad = st.ok() ? 0 : 1;
  if (bad) std::fprintf(stderr, "rank %d: %s\n", rank, st.ToString().c_str());
  else if (rank == 0) std::printf("committed rev %lu\n", (unsigned long)rev);
  MPI_Allreduce(&bad, &worst, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  MPI_Finalize();
  return worst;
}
