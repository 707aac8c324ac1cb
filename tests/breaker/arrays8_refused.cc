// Probe 4: a refused first commit after a restart on fewer ranks (arrays in
// dropped namespaces), with staging, an async commit, a stream open across
// it and object puts pending. usage: arrays8_refused w|m|r STORE STAGING ASYNC
#include <tuple>
#include "arrays8_common.h"

static std::string Obj(int gen, int rank, size_t n) {
  std::string s(n, 0);
  for (size_t i = 0; i < n; i++) s[i] = char(Mix(gen * 7777 + rank * 131 + i));
  return s;
}
static const std::vector<uint64_t> kShapeA = {29, 13}, kShapeB = {1001};

// The blocks GetArrayInfo lists are exactly Decompose's for `writers` ranks.
static void CheckBlocks(Store* s, const std::string& name, const std::vector<uint64_t>& shape, int writers, int variant,
                        const char* where) {
  ArrayInfo info;
  OK(s->GetArrayInfo(name, &info, true));
  std::vector<std::tuple<int, std::vector<uint64_t>, std::vector<uint64_t>>> want, got;
  for (int r = 0; r < writers; r++)
    for (auto& b : Decompose(shape, writers, r, variant)) want.push_back({r, b.start, b.count});
  for (auto& b : info.blocks) got.push_back({b.rank, b.start, b.count});
  std::sort(want.begin(), want.end());
  std::sort(got.begin(), got.end());
  CHECK(want == got && info.block_count == want.size(), "%s: blocks of %s: %zu listed, %zu expected (count %llu)", where,
        name.c_str(), got.size(), want.size(), (unsigned long long)info.block_count);
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &g_rank);
  MPI_Comm_size(MPI_COMM_WORLD, &g_size);
  std::string phase = argv[1], path = argv[2];
  Options o;
  o.staging_bytes = strtoull(argv[3], 0, 10);
  bool async = atoi(argv[4]);
  o.keep_revisions = 1;
  o.extent_size = 64 << 10; if (getenv("ARRAYS8_SUBFILES")) o.subfiles = atoi(getenv("ARRAYS8_SUBFILES"));
  if (phase == "w") {
    std::unique_ptr<Store> s;
    OK(Store::Open(o, path, MPI_COMM_WORLD, &s));
    PutWhole(s.get(), "A", DType::kFloat32, kShapeA, 1, 1);
    PutWhole(s.get(), "B", DType::kInt64, kShapeB, 2, 2);
    OK(s->Put("x", Obj(1, g_rank, 300000)));
    OK(s->Commit());
    OK(s->Close());
  } else if (phase == "m") {
    std::unique_ptr<Store> s;
    OK(Store::Open(o, path, MPI_COMM_WORLD, &s));
    int N = s->writer_ranks();
    // read what the old ranks wrote, every namespace
    CheckArray(s.get(), "A", DType::kFloat32, kShapeA, 1, "m-open");
    CheckBlocks(s.get(), "A", kShapeA, N, 1, "m-open");
    CheckBlocks(s.get(), "B", kShapeB, N, 2, "m-open");
    CheckArray(s.get(), "B", DType::kInt64, kShapeB, 2, "m-open");
    for (int r = 0; r < N; r++) {
      std::string v; ReadOptions ro; ro.rank = r;
      OK(s->Get("x", &v, ro));
      CHECK(v == Obj(1, r, 300000), "x of ns %d", r);
    }
    std::unique_ptr<StreamWriter> w;
    OK(s->OpenWriteStream("s", {}, &w));
    std::string sb = Obj(9, g_rank, 200000);
    OK(w->Write(sb.data(), 100000));
    OK(w->Flush());
    OK(s->Put("y", Obj(3, g_rank, 250000)));
    PutWhole(s.get(), "A", DType::kFloat32, kShapeA, 4, 4);   // A again, B left alone
    Status st;
    if (async) {
      AsyncCommit ac;
      st = s->CommitAsync(&ac);
      if (st.ok()) st = ac.Wait();
    } else {
      st = s->Commit();
    }
    if (g_rank == 0) printf("M=%d N=%d first commit: %s\n", g_size, N, st.ToString().substr(0, 90).c_str());
    // The view: still the old revision; A must still be generation 1.
    if (!st.ok()) CheckArray(s.get(), "A", DType::kFloat32, kShapeA, 1, "after-refusal");
    else CheckArray(s.get(), "A", DType::kFloat32, kShapeA, 4, "after-first-commit");
    OK(w->Write(sb.data() + 100000, 100000));
    OK(w->Close());
    PutWhole(s.get(), "A", DType::kFloat32, kShapeA, 5, 5);
    PutWhole(s.get(), "B", DType::kInt64, kShapeB, 6, 6);
    uint64_t rev = 0;
    if (async) {
      AsyncCommit ac;
      OK(s->CommitAsync(&ac));
      OK(ac.Wait(&rev));
    } else {
      OK(s->Commit(&rev));
    }
    std::string y;
    Status gy = s->Get("y", &y);
    if (g_rank == 0) printf("y after the refused round (staging %llu): %s\n", (unsigned long long)o.staging_bytes, gy.ToString().c_str());
    if (gy.ok()) CHECK(y == Obj(3, g_rank, 250000), "y wrong");
    OK(s->Close());
  }
  if (phase == "r" || phase == "m") {
    MPI_Barrier(MPI_COMM_WORLD);
    Options ro; ro.read_only = true;
    std::unique_ptr<Store> s;
    OK(Store::Open(ro, path, MPI_COMM_WORLD, &s));
    if (s) {
      CheckArray(s.get(), "A", DType::kFloat32, kShapeA, 5, "r");
      CheckBlocks(s.get(), "A", kShapeA, s->writer_ranks(), 5, "r");
      CheckBlocks(s.get(), "B", kShapeB, s->writer_ranks(), 6, "r");
      CheckArray(s.get(), "B", DType::kInt64, kShapeB, 6, "r");
      int W = s->writer_ranks();
      for (int r = 0; r < W; r++) {
        std::string v; ReadOptions rop; rop.rank = r;
        OK(s->Get("s", &v, rop));
        CHECK(v == Obj(9, r, 200000), "stream of ns %d (size %zu)", r, v.size());
        Status gy = s->Get("y", &v, rop);
        if (gy.ok()) CHECK(v == Obj(3, r, 250000), "y of ns %d", r);
        else CHECK(gy.IsNotFound(), "y: %s", gy.ToString().c_str());
      }
    }
  }
  long total = 0;
  MPI_Allreduce(&g_fail, &total, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
  if (g_rank == 0) printf("p4 %s on %d ranks: %ld failures\n", phase.c_str(), g_size, total);
  MPI_Finalize();
  return total ? 1 : 0;
}
