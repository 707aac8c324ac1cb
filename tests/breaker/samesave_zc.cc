// Seventh pass: unchanged re-saves through PutZeroCopy with staging, the
// next round's puts (zero-copy, Delete + put back, SetTag to the same value,
// a changed value in a new buffer) made while a CommitAsync is in flight.
//
// mpiexec -n N breaker_samesave_zc DIR ROUNDS KEEP
// After each commit finishes, the revision is opened read-only (collective)
// and every rank's namespace checked against the model of that revision
// (values, sizes, tags, Query by tag); prints "samesave_zc np N: R
// revisions, C checks, B bad" and the tables reused.
#include <cairn/store.h>
#include <mpi.h>

#include <cstdio>
#include <cstdlib>
#include <map>
#include <memory>
#include <string>
#include <vector>

using namespace cairn;

namespace {
struct Obj {
  std::shared_ptr<std::string> buf;  // zero-copy: lives until the commit that holds it finished
  TagList tags;
};
using Model = std::map<std::string, Obj>;

std::shared_ptr<std::string> Value(int rank, int i, int ver) {
  size_t n = i < 30 ? size_t(20 + i * 30) : size_t(3000 + i * 100);
  auto s = std::make_shared<std::string>(n, char('a' + (rank * 7 + i + ver) % 26));
  (*s)[0] = char(ver);
  return s;
}

int CheckRevision(const std::string& dir, uint64_t rev, const std::vector<Model>& want_all_mine,
                  long* checks) {
  // want_all_mine: this rank's model only (each rank checks its own namespace).
  Options o;
  o.read_only = true;
  o.revision = rev;
  std::unique_ptr<Store> ro;
  Status s = Store::Open(o, dir, MPI_COMM_WORLD, &ro);
  if (!s.ok()) {
    std::printf("open %llu: %s\n", (unsigned long long)rev, s.ToString().c_str());
    return 1;
  }
  int bad = 0;
  const Model& want = want_all_mine[0];
  std::vector<ObjectInfo> objs;
  ro->List(&objs);
  if (objs.size() != want.size()) bad++;
  for (const ObjectInfo& oi : objs) {
    auto it = want.find(oi.key);
    std::string v;
    if (it == want.end() || !ro->Get(oi.key, &v).ok() || v != *it->second.buf || oi.tags != it->second.tags) {
      if (bad < 3) std::printf("rev %llu key %s bad\n", (unsigned long long)rev, oi.key.c_str());
      bad++;
    }
    (*checks)++;
  }
  std::vector<std::string> keys;
  ro->Query({TagQuery::Range("i", TagValue::Int(0), TagValue::Int(9))}, &keys);
  if (keys.size() != 10) bad++;
  ro->Close();
  return bad;
}
}  // namespace

int main(int argc, char** argv) {
  int prov;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &prov);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  std::string dir = argv[1];
  int rounds = std::atoi(argv[2]);
  Options o;
  o.keep_revisions = uint64_t(std::atoi(argv[3]));
  o.staging_bytes = 2ull << 20;
  std::unique_ptr<Store> st;
  Status s = Store::Open(o, dir, MPI_COMM_WORLD, &st);
  if (!s.ok()) { std::printf("%s\n", s.ToString().c_str()); return 2; }
  Model cur;
  for (int i = 0; i < 40; i++)
    cur["k" + std::to_string(i)] = {Value(rank, i, 0), {{"i", TagValue::Int(i)}, {"r", TagValue::Int(rank)}}};
  auto put_all = [&](const Model& m) {
    for (const auto& [k, ob] : m) {
      Status ps = st->PutZeroCopy(k, *ob.buf, ob.tags);
      if (!ps.ok()) std::printf("put %s: %s\n", k.c_str(), ps.ToString().c_str());
    }
  };
  put_all(cur);
  int bad = 0;
  long checks = 0;
  uint64_t rev = 0;
  std::vector<std::shared_ptr<std::string>> graveyard;
  st->Commit(&rev);
  bad += CheckRevision(dir, rev, {cur}, &checks);
  for (int r = 1; r <= rounds; r++) {
    AsyncCommit h;
    Model snap = cur;  // what this commit holds (buffers kept alive by it)
    s = st->CommitAsync(&h);
    if (!s.ok()) { std::printf("async: %s\n", s.ToString().c_str()); bad++; break; }
    // the next round's changes, made while it is in flight
    put_all(cur);
    if (r % 3 == 0) {
      std::string k = "k" + std::to_string((r * 7 + rank) % 40);
      st->Delete(k);
      st->PutZeroCopy(k, *cur[k].buf, cur[k].tags);
    }
    if (r % 4 == 1) st->SetTag("k5", {"i", TagValue::Int(5)});
    if (r % 5 == 2 && rank == r % size) {
      int i = 30 + r % 10;
      std::string k = "k" + std::to_string(i);
      graveyard.push_back(cur[k].buf);  // a superseded zero-copy put's memory stays valid
      cur[k].buf = Value(rank, i, r);
      st->PutZeroCopy(k, *cur[k].buf, cur[k].tags);
    }
    uint64_t got = 0;
    s = h.Wait(&got);
    if (!s.ok()) { std::printf("wait: %s\n", s.ToString().c_str()); bad++; break; }
    bad += CheckRevision(dir, got, {snap}, &checks);
  }
  uint64_t last = 0;
  st->Commit(&last);
  bad += CheckRevision(dir, last, {cur}, &checks);
  IoStats io = st->stats();
  st->Close();
  int all_bad = 0;
  long all_checks = 0;
  MPI_Reduce(&bad, &all_bad, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
  MPI_Reduce(&checks, &all_checks, 1, MPI_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
  if (rank == 0)
    std::printf("samesave_zc np %d keep %s: %d revisions, %ld checks, %d bad, tables reused (rank 0) %llu\n", size,
                argv[3], rounds + 2, all_checks, all_bad, (unsigned long long)io.index_tables_reused);
  MPI_Finalize();
  return all_bad ? 1 : 0;
}
