// Outside pass 5 (FINDINGS5.md 8): a live writer for `cairn verify --all`.
// `DIR [PIN [keep]]`: revision 1 holds "old" (1 MiB per rank, pinned unless
// PIN is 0; deleted from later revisions unless `keep` is given, then
// carried into every one), DIR.ready names it; then rounds of new values
// with keep_revisions 2 until DIR.stop exists. Flip a byte of "old"
// (OLDVALUE-r1-8192| marks it) and `cairn verify --all` must exit 2.
#include <mpi.h>
#include <cstdio>
#include <string>
#include <memory>
#include <unistd.h>
#include "cairn/store.h"
using namespace cairn;
int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  std::string dir = argv[1];
  int pin = argc > 2 ? atoi(argv[2]) : 1;
  Options o; o.keep_revisions = 2; o.sync = false; o.extent_size = 1 << 20;
  std::unique_ptr<Store> st;
  Status s = Store::Open(o, dir, MPI_COMM_WORLD, &st);
  if (!s.ok()) { fprintf(stderr, "%s\n", s.ToString().c_str()); MPI_Abort(MPI_COMM_WORLD, 2); }
  std::string old(1 << 20, 'O');
  for (size_t i = 0; i < old.size(); i += 4096) {
    std::string m = "OLDVALUE-r" + std::to_string(st->rank()) + "-" + std::to_string(i) + "|";
    old.replace(i, m.size(), m);
  }
  st->Put("old", old);
  uint64_t rev; st->Commit(&rev);
  if (pin) st->Pin(rev);
  if (st->rank() == 0) { FILE* f = fopen((dir + ".ready").c_str(), "w"); fprintf(f, "%llu\n", (unsigned long long)rev); fclose(f); }
  if (argc <= 3) st->Delete("old");
  for (int r = 0;; r++) {
    int stop = st->rank() == 0 && access((dir + ".stop").c_str(), F_OK) == 0;
    MPI_Bcast(&stop, 1, MPI_INT, 0, MPI_COMM_WORLD);
    if (stop) break;
    for (int k = 0; k < 4; k++) st->Put("k" + std::to_string(k), std::string(512 << 10, char('a' + (r + k) % 26)));
    s = st->Commit(&rev);
    if (!s.ok()) { fprintf(stderr, "commit %s\n", s.ToString().c_str()); break; }
  }
  if (st->rank() == 0) fprintf(stderr, "last revision %llu\n", (unsigned long long)rev);
  st->Close();
  MPI_Finalize();
}
