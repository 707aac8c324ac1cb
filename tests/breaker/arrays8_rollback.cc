// Probe 6: rollback (a read-write open of an older revision) with arrays,
// retention and rank-count changes. usage: arrays8_rollback STORE KEEP (run at any N; it
// reopens on sub-communicators itself)
#include "arrays8_common.h"

static const std::vector<uint64_t> kShape = {41, 7};

static std::unique_ptr<Store> OpenAt(const std::string& path, uint64_t rev, int keep, MPI_Comm c, bool ro = false) {
  Options o;
  o.revision = rev;
  o.keep_revisions = keep;
  o.read_only = ro;
  o.extent_size = 64 << 10;
  std::unique_ptr<Store> s;
  OK(Store::Open(o, path, c, &s));
  return s;
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &g_rank);
  MPI_Comm_size(MPI_COMM_WORLD, &g_size);
  std::string path = argv[1];
  int keep = atoi(argv[2]);
  std::map<uint64_t, std::map<std::string, int>> model;  // rev -> name -> gen
  {
    auto s = OpenAt(path, 0, keep, MPI_COMM_WORLD);
    uint64_t rev;
    PutWhole(s.get(), "P", DType::kFloat64, kShape, 1, 1);
    PutWhole(s.get(), "Q", DType::kInt32, kShape, 2, 2);
    OK(s->Commit(&rev)); model[rev] = {{"P", 1}, {"Q", 2}};
    OK(s->Pin(rev));
    for (int g = 3; g < 7; g++) {
      PutWhole(s.get(), "P", DType::kFloat64, kShape, g, g);
      OK(s->Commit(&rev)); model[rev] = {{"P", g}, {"Q", 2}};
    }
    OK(s->Close());
  }
  // Roll back to revision 1 (pinned) on half the ranks (or all at 1), re-put
  // P there, commit several times with retention.
  int half = g_size > 1 ? g_size / 2 : 1;
  MPI_Comm sub;
  MPI_Comm_split(MPI_COMM_WORLD, g_rank < half ? 0 : MPI_UNDEFINED, g_rank, &sub);
  if (sub != MPI_COMM_NULL) {
    auto s = OpenAt(path, 1, keep, sub);
    CHECK(s->revision() == 1, "rollback view %llu", (unsigned long long)s->revision());
    CheckArray(s.get(), "P", DType::kFloat64, kShape, 1, "rollback-open");
    CheckArray(s.get(), "Q", DType::kInt32, kShape, 2, "rollback-open");
    uint64_t rev;
    Status st = s->Commit(&rev);
    if (g_rank == 0) printf("rollback to 1 on %d ranks (written by %d): first commit: %s\n", half, g_size, st.ToString().substr(0, 100).c_str());
    if (!st.ok()) {
      // Q must be put again on fewer ranks
      int r, n; MPI_Comm_rank(sub, &r); MPI_Comm_size(sub, &n);
      for (auto& b : Decompose(kShape, n, r, 9)) {
        auto buf = FillBox(DType::kInt32, "Q", 20, kShape, b.start, b.count);
        ArrayPutOptions po; po.tags = {{"gen", TagValue::Int(20)}};
        OK(s->PutArray("Q", DType::kInt32, kShape, b.start, b.count, buf.data(), po));
      }
      for (auto& b : Decompose(kShape, n, r, 10)) {
        auto buf = FillBox(DType::kFloat64, "P", 21, kShape, b.start, b.count);
        ArrayPutOptions po; po.tags = {{"gen", TagValue::Int(21)}};
        OK(s->PutArray("P", DType::kFloat64, kShape, b.start, b.count, buf.data(), po));
      }
      OK(s->Commit(&rev)); model[rev] = {{"P", 21}, {"Q", 20}};
    } else {
      model[rev] = model[1];
    }
    int r, n; MPI_Comm_rank(sub, &r); MPI_Comm_size(sub, &n);
    for (int g = 30; g < 36; g++) {
      for (auto& b : Decompose(kShape, n, r, g)) {
        auto buf = FillBox(DType::kFloat64, "P", g, kShape, b.start, b.count);
        OK(s->PutArray("P", DType::kFloat64, kShape, b.start, b.count, buf.data()));
      }
      OK(s->Commit(&rev));
      auto m = model.rbegin()->second; m["P"] = g; model[rev] = m;
      CheckArray(s.get(), "P", DType::kFloat64, kShape, g, "after-rollback-commit");
      CheckArray(s.get(), "Q", DType::kInt32, kShape, model[rev]["Q"], "after-rollback-commit");
    }
    OK(s->Close());
    MPI_Comm_free(&sub);
  }
  // Share the model: rank 0 was in the sub-communicator.
  std::string enc;
  if (g_rank == 0) for (auto& [rv, m] : model) enc += std::to_string(rv) + " " + std::to_string(m["P"]) + " " + std::to_string(m["Q"]) + "\n";
  int len = enc.size();
  MPI_Bcast(&len, 1, MPI_INT, 0, MPI_COMM_WORLD);
  enc.resize(len);
  MPI_Bcast(enc.data(), len, MPI_CHAR, 0, MPI_COMM_WORLD);
  {
    model.clear();
    std::istringstream in(enc);
    uint64_t rv; int p, q;
    while (in >> rv >> p >> q) model[rv] = {{"P", p}, {"Q", q}};
  }
  // Every retained revision, read on all ranks.
  auto s = OpenAt(path, 0, 0, MPI_COMM_WORLD, true);
  std::vector<RevisionInfo> revs;
  OK(s->ListRevisions(&revs));
  s.reset();
  if (g_rank == 0) { printf("retained:"); for (auto& r : revs) printf(" %llu%s", (unsigned long long)r.revision, r.pinned ? "*" : ""); printf("\n"); }
  for (auto& ri : revs) {
    auto r = OpenAt(path, ri.revision, 0, MPI_COMM_WORLD, true);
    if (!r) continue;
    char w[64]; snprintf(w, sizeof w, "final rev %llu", (unsigned long long)ri.revision);
    CheckArray(r.get(), "P", DType::kFloat64, kShape, model[ri.revision]["P"], w);
    CheckArray(r.get(), "Q", DType::kInt32, kShape, model[ri.revision]["Q"], w);
  }
  long total = 0;
  MPI_Allreduce(&g_fail, &total, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
  if (g_rank == 0) printf("p6 on %d ranks keep %d: %ld failures\n", g_size, keep, total);
  MPI_Finalize();
  return total ? 1 : 0;
}
