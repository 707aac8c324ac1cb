// The size of the data files of a store under rounds of writes and
// commits, printed every N commits: does the store level off or grow for
// ever (doc/interactions.md, "A combinations pass from the public API")?
// One shared data file (subfiles = 1; SUBFILES=n for another count), keep
// 2, 64 KiB extents, sync off. Each round puts "k" (50-250 KB) and "small"
// (3-8 KB) (p), writes a stream through cairn::ostream (30-150 KB) (s)
// and a block of 4,096 doubles of a global array (a); with IN_FLIGHT 1
// while the previous asynchronous commit is in flight (then Wait,
// CommitAsync), with 0 before it (Wait right after CommitAsync).
//   mpiexec -np 2 space_growth DIR COMMITS EVERY OPS [IN_FLIGHT=1]
// Environment: SYNC=1 (Commit instead), FIXED=1 (every size the middle of
// its range), PHASE=n ("k": every n commits rank 0 puts 600 KB and
// the others 50 KB, then the other way round), SUBFILES=n.
// Prints "COMMITS BYTES" lines (rank 0). Built on request:
//   cmake --build build --target space_growth
#include <mpi.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <random>
#include <string>
#include <vector>

#include "cairn/array.h"
#include "cairn/iostream.h"
#include "cairn/store.h"

using namespace cairn;

namespace {
std::string Pattern(uint64_t seed, size_t n) {
  std::string s(n, '\0');
  std::mt19937_64 g(seed);
  for (size_t i = 0; i < n; i++) s[i] = char(g());
  return s;
}
uint64_t DataBytes(const std::string& d) {
  uint64_t n = 0;
  for (auto& e : std::filesystem::directory_iterator(d))
    if (e.path().filename().string().rfind("data.", 0) == 0) n += std::filesystem::file_size(e.path());
  return n;
}
bool fixed_sizes = false;
// base + var, or with FIXED the middle of [base, base + range).
size_t Size(size_t base, size_t var, size_t range) { return fixed_sizes ? base + range / 2 : base + var; }
void Check(const Status& s, int line) {
  if (s.ok()) return;
  fprintf(stderr, "space_growth.cc:%d: %s\n", line, s.ToString().c_str());
  MPI_Abort(MPI_COMM_WORLD, 1);
}
#define CHECK(x) Check((x), __LINE__)
}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (argc < 5) {
    if (rank == 0) fprintf(stderr, "usage: space_growth DIR COMMITS EVERY OPS(p,s,a) [IN_FLIGHT=1]\n");
    MPI_Finalize();
    return 2;
  }
  const std::string dir = argv[1];
  const int commits = atoi(argv[2]), every = atoi(argv[3]);
  const std::string ops = argv[4];
  const bool in_flight = argc > 5 ? atoi(argv[5]) != 0 : true;
  const bool sync_commits = getenv("SYNC") != nullptr;
  const int phase = getenv("PHASE") ? atoi(getenv("PHASE")) : 0;
  fixed_sizes = getenv("FIXED") != nullptr;
  if (rank == 0) std::filesystem::remove_all(dir);
  MPI_Barrier(MPI_COMM_WORLD);
  Options o;
  o.extent_size = 64 * 1024;
  o.chunk_size = 16 * 1024;
  o.subfiles = getenv("SUBFILES") ? uint32_t(atoi(getenv("SUBFILES"))) : 1;
  o.keep_revisions = 2;
  o.sync = false;
  std::unique_ptr<Store> s;
  CHECK(Store::Open(o, dir, MPI_COMM_WORLD, &s));
  const bool puts = ops.find('p') != std::string::npos, stream = ops.find('s') != std::string::npos,
             array = ops.find('a') != std::string::npos;
  const uint64_t block = 4096, me = uint64_t(rank), n = uint64_t(size);
  std::vector<double> values(block);
  AsyncCommit h;
  bool pending = false;
  for (int i = 1; i <= commits; i++) {
    const size_t u = size_t(i);
    if (!in_flight && pending) {
      CHECK(h.Wait());
      pending = false;
    }
    if (puts) {
      size_t k = Size(50000, (u * 7919) % 200000, 200000);
      if (phase > 0) k = ((i / phase) % 2 == 0) == (rank == 0) ? 600000 : 50000;
      CHECK(s->Put("k", Pattern(me * 100000 + u, k)));
      CHECK(s->Put("small", Pattern(me * 100000 + u + 7, Size(3000, (u * 131) % 5000, 5000))));
    }
    if (stream) {
      cairn::ostream out(*s, "stream");
      std::string b = Pattern(me * 7777 + u, Size(30000, (u * 104729) % 120000, 120000));
      out.write(b.data(), std::streamsize(b.size()));
      CHECK(out.close());
    }
    if (array) {
      for (uint64_t j = 0; j < block; j++) values[j] = double(i) + double(j) * 1e-3 + double(me);
      CHECK(s->PutArray("field", DType::kFloat64, {block * n}, {block * me}, {block}, values.data()));
    }
    if (pending) {
      CHECK(h.Wait());
      pending = false;
    }
    if (sync_commits) {
      CHECK(s->Commit());
    } else {
      CHECK(s->CommitAsync(&h));
      pending = true;
    }
    if (i % every == 0) {
      if (pending) CHECK(h.Wait());
      pending = false;
      MPI_Barrier(MPI_COMM_WORLD);  // no rank writes while the file is measured
      if (rank == 0) printf("%d %llu\n", i, (unsigned long long)DataBytes(dir));
      fflush(stdout);
      MPI_Barrier(MPI_COMM_WORLD);
    }
  }
  if (pending) CHECK(h.Wait());
  CHECK(s->Close());
  MPI_Finalize();
  return 0;
}
