// Probe 5: array names with NUL bytes and prefixes of each other.
#include "arrays8_common.h"
int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &g_rank);
  MPI_Comm_size(MPI_COMM_WORLD, &g_size);
  std::string path = argv[1];
  Options o; o.inline_value_limit = 16;
  std::unique_ptr<Store> s;
  OK(Store::Open(o, path, MPI_COMM_WORLD, &s));
  std::vector<std::string> names = {"x", std::string("x\0", 2), std::string("x\0y", 3), std::string("x\0\x01", 3),
                                    std::string("x\0\0", 3), "x\x01", std::string("\0x", 2)};
  std::vector<uint64_t> shape = {64};
  for (auto& n : names) {
    Status st;
    for (auto& b : Decompose(shape, g_size, g_rank, 1)) {
      auto buf = FillBox(DType::kInt32, n, 1, shape, b.start, b.count);
      st = s->PutArray(n, DType::kInt32, shape, b.start, b.count, buf.data());
    }
    if (g_rank == 0) { std::string p; for (char c : n) { char t[8]; snprintf(t, 8, c >= 32 ? "%c" : "\\%d", c); p += t; } printf("put '%s': %s\n", p.c_str(), st.ToString().c_str()); }
  }
  OK(s->Commit());
  // re-put only "x" (new gen): its round deletes its old blocks
  for (auto& b : Decompose(shape, g_size, g_rank, 2)) {
    auto buf = FillBox(DType::kInt32, "x", 2, shape, b.start, b.count);
    OK(s->PutArray("x", DType::kInt32, shape, b.start, b.count, buf.data()));
  }
  OK(s->Commit());
  std::vector<ArrayInfo> list; OK(s->ListArrays(&list));
  if (g_rank == 0) printf("%zu arrays listed\n", list.size());
  for (auto& n : names) {
    ArrayInfo info;
    if (!s->GetArrayInfo(n, &info).ok()) continue;
    CheckArray(s.get(), n, DType::kInt32, shape, n == "x" ? 2 : 1, "after re-put of x");
  }
  OK(s->DeleteArray("x"));
  OK(s->Commit());
  for (auto& n : names) {
    ArrayInfo info;
    if (n == "x" || !s->GetArrayInfo(n, &info).ok()) continue;
    CheckArray(s.get(), n, DType::kInt32, shape, 1, "after delete of x");
  }
  OK(s->Close());
  {
    Options r; r.read_only = true;
    OK(Store::Open(r, path, MPI_COMM_WORLD, &s));
    for (auto& n : names) {
      ArrayInfo info;
      if (n == "x" || !s->GetArrayInfo(n, &info).ok()) continue;
      CheckArray(s.get(), n, DType::kInt32, shape, 1, "reopened");
    }
  }
  long total = 0;
  MPI_Allreduce(&g_fail, &total, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
  if (g_rank == 0) printf("p5 on %d ranks: %ld failures\n", g_size, total);
  MPI_Finalize();
  return total ? 1 : 0;
}
