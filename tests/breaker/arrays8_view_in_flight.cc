// Probe 11: keep 1, async commit g expires g-1 (the view of ranks that have
// not seen g finish); rank 0 finishes, re-puts the arrays (into reused space)
// and flushes; the other ranks read the whole arrays at their view.
// usage: arrays8_view_in_flight STORE STAGING
#include <unistd.h>

#include "arrays8_common.h"

static const std::vector<uint64_t> kShape = {256, 1024};  // 2 MiB float64
static const std::vector<uint64_t> kShape2 = {3000};

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &g_rank);
  MPI_Comm_size(MPI_COMM_WORLD, &g_size);
  Options o;
  o.keep_revisions = 1;
  o.sync = false;
  o.extent_size = 64 << 10;
  o.staging_bytes = strtoull(argv[2], 0, 10);
  std::unique_ptr<Store> w;
  OK(Store::Open(o, argv[1], MPI_COMM_WORLD, &w));
  PutWhole(w.get(), "A", DType::kFloat64, kShape, 1, 1);
  PutWhole(w.get(), "S", DType::kInt16, kShape2, 1, 1);
  OK(w->Commit());
  long in_flight = 0;
  for (int g = 2; g <= 20; g++) {
    PutWhole(w.get(), "A", DType::kFloat64, kShape, g, g);
    PutWhole(w.get(), "S", DType::kInt16, kShape2, g, g + 50);
    AsyncCommit h;
    OK(w->CommitAsync(&h));
    if (g_rank == 0) {
      OK(h.Wait());
      std::string junk(3 << 20, char(g));
      OK(w->Put("junk", junk));
      OK(w->Flush());
    } else {
      usleep(50000);
      h.Test();
    }
    MPI_Barrier(MPI_COMM_WORLD);
    if (g_rank != 0) {
      uint64_t view = w->revision();
      if (view == uint64_t(g - 1)) in_flight++;
      char where[64]; snprintf(where, sizeof where, "view %llu in flight %d", (unsigned long long)view, g);
      CheckArray(w.get(), "A", DType::kFloat64, kShape, int(view), where);
      CheckArray(w.get(), "S", DType::kInt16, kShape2, int(view), where);
    }
    OK(h.Wait());
    if (g_rank == 0) {  // the pending re-put of rank 0 must be dropped/overwritten by the next round's put
    }
  }
  long tot = 0;
  MPI_Allreduce(&in_flight, &tot, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
  OK(w->Close());
  long total = 0;
  MPI_Allreduce(&g_fail, &total, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
  if (g_rank == 0) printf("p11 on %d ranks: %ld reads in flight, %ld failures\n", g_size, tot, total);
  MPI_Finalize();
  return total ? 1 : 0;
}
