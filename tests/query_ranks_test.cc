// QueryAll on a revision read by a different number of ranks than wrote it
// (issue 10, item 12). Run as:
//   mpiexec -n 4 query_ranks_test write DIR   (4 namespaces, 16 objects each)
//   mpiexec -n K query_ranks_test check DIR   (K = 1, 2, 3, 4, ...)
// `check` opens the store read-only and requires QueryAll to return every
// one of the 32 hot objects of all 4 namespaces, on every rank, ordered by
// namespace then key; it exits non-zero otherwise.
#include <mpi.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include <memory>

#include "cairn/store.h"

using namespace cairn;

namespace {
constexpr int kWriters = 4, kPerRank = 16;

int Fail(int rank, const std::string& what) {
  std::fprintf(stderr, "rank %d: FAIL: %s\n", rank, what.c_str());
  return 1;
}
}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  int rc = 0;
  if (argc != 3 || (std::strcmp(argv[1], "write") && std::strcmp(argv[1], "check"))) {
    if (rank == 0) std::fprintf(stderr, "usage: %s write|check DIR\n", argv[0]);
    MPI_Finalize();
    return 2;
  }
  std::string dir = argv[2];
  {
    Options o;
    o.extent_size = 1 << 20;
    std::unique_ptr<Store> s;
    if (!std::strcmp(argv[1], "write")) {
      if (size != kWriters) rc = Fail(rank, "write runs on 4 ranks");
      Status st = rc ? Status::OK() : Store::Open(o, dir, MPI_COMM_WORLD, &s);
      // Rank r: objects "o<r*16+i>", i < 16; "hot" when i is even (8 per rank).
      for (int i = 0; st.ok() && !rc && i < kPerRank; i++)
        st = s->Put("o" + std::to_string(rank * kPerRank + i), "v",
                    {{"hot", TagValue::Int(i % 2 == 0)}, {"id", TagValue::Int(rank * kPerRank + i)}});
      if (st.ok() && !rc) st = s->Commit();
      if (!st.ok()) rc = Fail(rank, st.ToString());
    } else {
      o.read_only = true;
      o.create_if_missing = false;
      Status st = Store::Open(o, dir, MPI_COMM_WORLD, &s);
      std::vector<QueryHit> hits;
      if (st.ok()) st = s->QueryAll({TagQuery::Equal("hot", TagValue::Int(1))}, &hits);
      if (!st.ok()) {
        rc = Fail(rank, st.ToString());
      } else {
        std::vector<QueryHit> want;
        for (int r = 0; r < kWriters; r++) {
          std::vector<std::string> keys;
          for (int i = 0; i < kPerRank; i += 2) keys.push_back("o" + std::to_string(r * kPerRank + i));
          std::sort(keys.begin(), keys.end());
          for (auto& k : keys) want.push_back(QueryHit{r, k});
        }
        if (hits != want)
          rc = Fail(rank, "QueryAll on " + std::to_string(size) + " ranks returned " + std::to_string(hits.size()) +
                              " hits, want " + std::to_string(want.size()) + " (every namespace of the 4-rank revision)");
        // An empty query matches every object of every namespace.
        if (!rc && (!s->QueryAll({}, &hits).ok() || hits.size() != size_t(kWriters * kPerRank)))
          rc = Fail(rank, "QueryAll({}) returned " + std::to_string(hits.size()) + " of 64 objects");
        if (!rc && rank == 0) std::printf("QueryAll on %d ranks: 32 of 32 hits\n", size);
      }
    }
  }
  int any = 0;
  MPI_Allreduce(&rc, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  MPI_Finalize();
  return any;
}
