// Probe (not built by CMake): open a catalogue store, then 20 x (SetTag of one object + Commit), printing each
// commit's seconds. Built by hand: mpicxx -O2 -g -std=c++20 -Iinclude upd.cc build/internal/libcairn.a $(pkg-config --libs libxxhash) -lpthread
#include <mpi.h>
#include <chrono>
#include <cstdio>
#include <string>
#include "cairn/store.h"
int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  std::unique_ptr<cairn::Store> s;
  cairn::Options o;
  auto st = cairn::Store::Open(o, argv[1], MPI_COMM_WORLD, &s);
  if (!st.ok()) { std::printf("%s\n", st.ToString().c_str()); return 1; }
  int n = std::atoi(argv[2]);
  for (int i = 0; i < n; i++) {
    auto t0 = std::chrono::steady_clock::now();
    cairn::Tag t{"count_0", cairn::TagValue::Int(i)};
    st = s->SetTag("obj0000000007", t);
    if (st.ok()) st = s->Commit();
    if (!st.ok()) { std::printf("%s\n", st.ToString().c_str()); return 1; }
    double dt = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    std::printf("%.4f ", dt);
  }
  std::printf("\n");
  s->Close();
  MPI_Finalize();
}
