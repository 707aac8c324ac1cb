// The C++ API from an outside project: what the C and Fortran APIs are
// compared against (iostreams, array statistics, IoStats, read stats).
#include <cairn/iostream.h>
#include <cairn/store.h>
#include <cairn/stream.h>

#include <cstdio>
#include <string>
#include <vector>

static int fails = 0;
#define CHECK(c)                                                              \
  do {                                                                        \
    if (!(c)) {                                                               \
      std::fprintf(stderr, "FAIL %s:%d: %s\n", __FILE__, __LINE__, #c);       \
      fails++;                                                                \
    }                                                                         \
  } while (0)

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int me = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &me);
  cairn::Options o;
  std::unique_ptr<cairn::Store> st;
  cairn::Status s = cairn::Store::Open(o, argv[1], MPI_COMM_WORLD, &st);
  CHECK(s.ok());
  if (!st) return 1;
  {
    cairn::ostream out(*st, "particles.txt", {{"step", cairn::TagValue::Int(3, cairn::TagType::kInt16)}});
    out << 42 << ' ' << 3.5 << '\n';
    CHECK(out.close().ok());
  }
  std::vector<double> blk(10, me + 1.0);
  cairn::ArrayPutOptions po;
  po.statistics = true;
  CHECK(st->PutArray("v", cairn::DType::kFloat64, {10ull * st->size()}, {10ull * me}, {10}, blk.data(), po).ok());
  uint64_t rev = 0;
  CHECK(st->Commit(&rev).ok());
  cairn::istream in(*st, "particles.txt");
  int n = 0;
  double x = 0;
  in >> n >> x;
  CHECK(n == 42 && x == 3.5);
  cairn::ArrayInfo info;
  CHECK(st->GetArrayInfo("v", &info, true).ok());
  CHECK(info.blocks.size() == (size_t)st->size() && info.blocks[0].has_statistics && info.blocks[0].max == 1.0);
  std::vector<double> all(10 * st->size());
  CHECK(st->GetArray("v", {0}, {all.size()}, all.data()).ok());
  CHECK(st->array_read_stats().calls == 1);
  CHECK(st->stats().fsyncs > 0);
  CHECK(st->Close().ok());
  int worst = 0;
  MPI_Allreduce(&fails, &worst, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  if (me == 0) std::printf("nu_cpp: %s\n", worst ? "FAILED" : "passed");
  MPI_Finalize();
  return worst != 0;
}
