// Writes global arrays for the tests of the cairn tool and of the
// independent reader (cli_test.sh, reader_test.sh): one commit, on any
// number of ranks, of
//   temp  float64 (7, 10, 4): rank r of N holds rows [7r/N, 7(r+1)/N), cut
//         into two blocks at column 3 (irregular blocks, two per rank);
//         element (i, j, k) = i*10000 + j*100 + k + 0.5; tags units="K",
//         step=42 (int64)
//   mask  int16 (5, 9): columns cut among ranks 0..N-2 (the last rank of
//         a multi-rank job puts nothing); element (i, j) = 7*i*j - 100
//   grid  uint8 (8, 8): a regular grid of 4x4 blocks dealt round-robin
//         over the ranks; element (i, j) = i*8 + j
// and one object "note" (value "arrays") on every rank. The tests compute
// the expected values from these formulas.
//   usage: array_tool_writer STORE
// With --empty instead: one array "void" float32 (3, 5) that no rank put a
// block of (rank 0 puts an empty box), and nothing else:
//   usage: array_tool_writer STORE --empty
#include <mpi.h>

#include <cstdio>
#include <string>
#include <vector>

#include "cairn/store.h"

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const bool empty = argc == 3 && std::string(argv[2]) == "--empty";
  if (argc != 2 && !empty) {
    if (rank == 0) std::fprintf(stderr, "usage: array_tool_writer STORE [--empty]\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  std::unique_ptr<cairn::Store> st;
  cairn::Status s = cairn::Store::Open(cairn::Options(), argv[1], MPI_COMM_WORLD, &st);
  auto check = [&](const cairn::Status& x, const char* what) {
    if (x.ok()) return;
    std::fprintf(stderr, "rank %d: %s: %s\n", rank, what, x.ToString().c_str());
    MPI_Abort(MPI_COMM_WORLD, 1);
  };
  check(s, "open");

  if (empty) {
    if (rank == 0) check(st->PutArray("void", cairn::DType::kFloat32, {3, 5}, {0, 0}, {0, 0}, nullptr), "put void");
    check(st->Commit(), "commit");
    check(st->Close(), "close");
    st.reset();
    MPI_Finalize();
    return 0;
  }

  cairn::ArrayPutOptions topt;
  topt.tags = {{"units", cairn::TagValue::String("K")}, {"step", cairn::TagValue::Int(42)}};
  const uint64_t r0 = 7ull * rank / size, r1 = 7ull * (rank + 1) / size;
  for (auto [c0, c1] : {std::pair<uint64_t, uint64_t>{0, 3}, {3, 10}}) {
    if (r1 == r0) break;
    std::vector<double> v;
    for (uint64_t i = r0; i < r1; i++)
      for (uint64_t j = c0; j < c1; j++)
        for (uint64_t k = 0; k < 4; k++) v.push_back(double(i * 10000 + j * 100 + k) + 0.5);
    check(st->PutArray("temp", cairn::DType::kFloat64, {7, 10, 4}, {r0, c0, 0}, {r1 - r0, c1 - c0, 4}, v.data(),
                       topt),
          "put temp");
  }

  const int mask_ranks = size > 1 ? size - 1 : 1;
  if (rank < mask_ranks) {
    const uint64_t c0 = 9ull * rank / mask_ranks, c1 = 9ull * (rank + 1) / mask_ranks;
    if (c1 > c0) {
      std::vector<int16_t> v;
      for (uint64_t i = 0; i < 5; i++)
        for (uint64_t j = c0; j < c1; j++) v.push_back(int16_t(7 * i * j) - 100);
      cairn::ArrayPutOptions mopt;
      mopt.statistics = rank == 0;  // statistics on rank 0's block only (cli_array_test)
      check(st->PutArray("mask", cairn::DType::kInt16, {5, 9}, {0, c0}, {5, c1 - c0}, v.data(), mopt), "put mask");
    }
  }

  for (int b = rank; b < 4; b += size) {
    const uint64_t bi = b / 2 * 4, bj = b % 2 * 4;
    std::vector<uint8_t> v;
    for (uint64_t i = bi; i < bi + 4; i++)
      for (uint64_t j = bj; j < bj + 4; j++) v.push_back(uint8_t(i * 8 + j));
    check(st->PutArray("grid", cairn::DType::kUInt8, {8, 8}, {bi, bj}, {4, 4}, v.data()), "put grid");
  }

  check(st->Put("note", "arrays"), "put note");
  check(st->Commit(), "commit");
  check(st->Close(), "close");
  st.reset();
  MPI_Finalize();
  return 0;
}
