// What a store does with the communicator it is given, in two cases a
// test script runs (tests/comm_errors_test.sh):
//   comm_errors_writer DIR null   every rank of an odd index opens with the
//                                 MPI_COMM_NULL that MPI_Comm_split gives a rank
//                                 left out; it must get InvalidArgument at once,
//                                 while the others open, commit and close over
//                                 their own communicator. Prints "null ok" per rank.
//   comm_errors_writer DIR leave  over a communicator with MPI_ERRORS_RETURN
//                                 (what mpi4py gives its communicators), rank 1
//                                 leaves the store (closes it, then finalizes)
//                                 while the others commit: the job must end with
//                                 cairn's message (an MPI error, or at 3 ranks the
//                                 5 s collective timeout), not a crash or a hang.
//   comm_errors_writer DIR commit|open  (tests/comm_scratch_test.sh) a commit,
//                                 or a commit then a read-only open: under the
//                                 test hooks the script sets, one rank can hold
//                                 neither the commit's plan (or its table at the
//                                 read-only open) nor the 1 MiB a receiver without
//                                 room discards the pieces into; the job must end
//                                 with cairn's message naming that rank, not hang.
//                                 Prints "<mode> returned" per rank that got past.
#include <mpi.h>

#include <cstdio>
#include <cstring>
#include <memory>
#include <string>

#include "cairn/store.h"

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  if (argc != 3) {
    std::fprintf(stderr, "usage: comm_errors_writer DIR null|leave|commit|open\n");
    return 2;
  }
  std::string dir = argv[1], mode = argv[2];
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  cairn::Options o;
  o.sync = false;
  if (mode == "null") {
    MPI_Comm part;
    MPI_Comm_split(MPI_COMM_WORLD, rank % 2 == 1 ? MPI_UNDEFINED : 0, rank, &part);
    std::unique_ptr<cairn::Store> s;
    cairn::Status st = cairn::Store::Open(o, dir + "/s", part, &s);
    bool ok;
    if (part == MPI_COMM_NULL) {
      ok = st.IsInvalidArgument() && std::strstr(st.message().c_str(), "MPI_COMM_NULL") && !s;
      if (!ok) std::printf("rank %d: Open over MPI_COMM_NULL gave %s\n", rank, st.ToString().c_str());
    } else {
      ok = st.ok() && s->Put("k", "v").ok() && s->Commit().ok() && s->Close().ok();
      if (!ok) std::printf("rank %d: Open/commit over the split communicator: %s\n", rank, st.ToString().c_str());
      MPI_Comm_free(&part);
    }
    if (ok) std::printf("null ok %d\n", rank);
    std::fflush(stdout);
    MPI_Finalize();
    return ok ? 0 : 1;
  }
  if (mode == "commit" || mode == "open") {
    std::unique_ptr<cairn::Store> s;
    cairn::Status st = cairn::Store::Open(o, dir + "/s", MPI_COMM_WORLD, &s);
    if (st.ok()) st = s->Put("k" + std::to_string(rank), std::string(100, 'v'));
    if (st.ok()) st = s->Commit();
    if (st.ok()) st = s->Close();
    if (st.ok() && mode == "open") {
      o.read_only = true;
      st = cairn::Store::Open(o, dir + "/s", MPI_COMM_WORLD, &s);
      if (st.ok()) st = s->Close();
    }
    std::printf("rank %d: %s returned %s\n", rank, mode.c_str(), st.ToString().c_str());
    std::fflush(stdout);
    MPI_Finalize();
    return 0;
  }
  o.collective_timeout_s = 5;
  MPI_Comm c;
  MPI_Comm_dup(MPI_COMM_WORLD, &c);
  MPI_Comm_set_errhandler(c, MPI_ERRORS_RETURN);
  std::unique_ptr<cairn::Store> s;
  if (!cairn::Store::Open(o, dir + "/s", c, &s).ok()) return 1;
  if (rank == 1) {
    // Leaves without the commit the others make.
    s->Close();
    s.reset();
    std::printf("rank 1 left\n");
    std::fflush(stdout);
    MPI_Finalize();
    return 0;
  }
  (void)s->Put("k", "v");
  cairn::Status st = s->Commit();
  // Reaching here means the store went on past a broken collective.
  std::printf("rank %d: commit returned %s\n", rank, st.ToString().c_str());
  std::fflush(stdout);
  MPI_Finalize();
  return 0;
}
