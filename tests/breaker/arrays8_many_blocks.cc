// Probe: many tiny irregular blocks per rank (B each, 1-3 elements, 2-D
// cells), re-put with keep 1, read on another rank count, boxes checked
// element by element. usage: arrays8_many_blocks w|r STORE B
#include <chrono>

#include "arrays8_common.h"

static const uint64_t kCols = 3;

// Rank r's blocks: rows split in runs of 1-3 rows, runs dealt round-robin.
static std::vector<Box> Blocks(uint64_t rows, int size, int rank, int gen) {
  std::vector<Box> out;
  uint64_t r = 0;
  for (uint64_t k = 0; r < rows; k++) {
    uint64_t n = 1 + Mix(k * 31 + gen) % 3;
    if (r + n > rows) n = rows - r;
    if (int(k % size) == rank) out.push_back({{r, (k / size) % 2 ? 1u : 0u}, {n, (k / size) % 2 ? 2u : 1u}});
    if (int(k % size) == rank) out.push_back({{r, (k / size) % 2 ? 0u : 1u}, {n, (k / size) % 2 ? 1u : 2u}});
    r += n;
  }
  return out;
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &g_rank);
  MPI_Comm_size(MPI_COMM_WORLD, &g_size);
  std::string phase = argv[1], path = argv[2];
  uint64_t B = strtoull(argv[3], 0, 10);
  std::vector<uint64_t> shape = {B * 2 * 4, kCols};  // about B blocks per rank of 4
  Options o;
  o.keep_revisions = 1;
  auto t0 = std::chrono::steady_clock::now();
  auto secs = [&]() { return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(); };
  if (phase == "w") {
    std::unique_ptr<Store> s;
    OK(Store::Open(o, path, MPI_COMM_WORLD, &s));
    for (int gen = 1; gen <= 2; gen++) {
      size_t nb = 0;
      for (auto& b : Blocks(shape[0], g_size, g_rank, gen)) {
        auto buf = FillBox(DType::kInt16, "m", gen, shape, b.start, b.count);
        OK(s->PutArray("m", DType::kInt16, shape, b.start, b.count, buf.data()));
        nb++;
      }
      double tp = secs();
      AsyncCommit ac;
      OK(s->CommitAsync(&ac));
      OK(ac.Wait());
      if (g_rank == 0) printf("gen %d: %zu blocks on rank 0, put %.2f s, commit %.2f s\n", gen, nb, tp, secs() - tp);
      t0 = std::chrono::steady_clock::now();
    }
    OK(s->Close());
  }
  {
    Options ro; ro.read_only = true;
    std::unique_ptr<Store> s;
    t0 = std::chrono::steady_clock::now();
    OK(Store::Open(ro, path, MPI_COMM_WORLD, &s));
    ArrayInfo info;
    OK(s->GetArrayInfo("m", &info));
    if (g_rank == 0) printf("open %.2f s, %llu blocks, regular %d\n", secs(), (unsigned long long)info.block_count, info.regular);
    t0 = std::chrono::steady_clock::now();
    CheckArray(s.get(), "m", DType::kInt16, shape, 2, "many");
    for (int k = 0; k < 50; k++) {
      uint64_t a = Mix(k + 100 * g_rank) % shape[0], n = 1 + Mix(k * 7) % std::min<uint64_t>(50, shape[0] - a);
      uint64_t c0 = Mix(k) % kCols, c1 = 1 + Mix(k * 3) % (kCols - c0);
      auto want = FillBox(DType::kInt16, "m", 2, shape, {a, c0}, {n, c1});
      std::vector<unsigned char> got(want.size());
      OK(s->GetArray("m", {a, c0}, {n, c1}, got.data()));
      CHECK(got == want, "box %llu+%llu differs", (unsigned long long)a, (unsigned long long)n);
    }
    auto st = s->array_read_stats();
    if (g_rank == 0) printf("reads %.2f s: %llu blocks examined, %llu nodes\n", secs(), (unsigned long long)st.blocks_examined,
                            (unsigned long long)st.index_nodes);
  }
  long total = 0;
  MPI_Allreduce(&g_fail, &total, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
  if (g_rank == 0) printf("many_blocks %s on %d ranks: %ld failures\n", phase.c_str(), g_size, total);
  MPI_Finalize();
  return total ? 1 : 0;
}
