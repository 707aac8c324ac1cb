// Probe 12: a random model of array rounds: re-puts (dtype and shape may
// change), deletes, carries, sync/async commits, keep, pins, restarts on
// sub-communicators of random size; every retained revision checked.
// usage: arrays8_model STORE SEED ROUNDS
#include <random>

#include "arrays8_common.h"

struct Def { DType t; std::vector<uint64_t> shape; int gen; };
using Model = std::map<std::string, Def>;

static const DType kT[] = {DType::kInt8, DType::kUInt16, DType::kInt32, DType::kFloat32, DType::kFloat64, DType::kUInt64};

static void CheckModel(Store* s, const Model& m, const char* where) {
  std::vector<ArrayInfo> list;
  OK(s->ListArrays(&list));
  CHECK(list.size() == m.size(), "%s rev %llu: %zu arrays, model %zu", where, (unsigned long long)s->revision(), list.size(), m.size());
  for (auto& [n, d] : m) CheckArray(s, n, d.t, d.shape, d.gen, where);
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &g_rank);
  MPI_Comm_size(MPI_COMM_WORLD, &g_size);
  std::string path = argv[1];
  std::mt19937_64 rng(atoi(argv[2]));  // same on every rank
  int rounds = atoi(argv[3]);
  std::map<uint64_t, Model> models;
  Model cur;
  int gen = 1;
  int keep = 1 + int(rng() % 3);
  MPI_Comm comm = MPI_COMM_WORLD;
  std::unique_ptr<Store> s;
  auto open = [&](int n) {
    if (comm != MPI_COMM_WORLD && comm != MPI_COMM_NULL) MPI_Comm_free(&comm);
    MPI_Comm_split(MPI_COMM_WORLD, g_rank < n ? 0 : MPI_UNDEFINED, g_rank, &comm);
    bool staged = rng() % 2;
    if (comm == MPI_COMM_NULL) return;
    Options o;
    o.keep_revisions = keep;
    o.extent_size = 64 << 10; if (getenv("ARRAYS8_SUBFILES")) o.subfiles = atoi(getenv("ARRAYS8_SUBFILES"));
    o.inline_value_limit = 300;
    o.staging_bytes = staged ? 1 << 20 : 0;
    OK(Store::Open(o, path, comm, &s));
  };
  open(g_size);
  for (int round = 0; round < rounds; round++) {
    // Every rank draws the same numbers; the ranks outside the job draw too.
    uint64_t r_restart = rng() % 6;
    int new_n = 1 + int(rng() % g_size);
    std::vector<uint64_t> draws(16);
    for (auto& x : draws) x = rng();
    if (r_restart == 0) {
      if (s) { OK(s->Close()); s.reset(); }
      open(new_n);
      if (g_rank == 0) printf("round %d: restart on %d ranks\n", round, new_n);
    }
    if (s) {
      Model next = cur;
      const char* names[] = {"a", "b", "c", "d"};
      for (int i = 0; i < 4; i++) {
        uint64_t x = draws[i];
        std::string n = names[i];
        if (x % 10 < 5 || (!cur.count(n) && x % 10 < 8)) {
          Def d;
          if (cur.count(n) && x % 7 != 0) d = cur[n];
          else { d.t = kT[(x >> 8) % 6]; d.shape = {1 + (x >> 12) % 40}; if ((x >> 20) % 2) d.shape.push_back(1 + (x >> 24) % 9); }
          if (!(cur.count(n) && x % 7 != 0 && (x >> 40) % 3 == 0)) d.gen = gen++;  // else: the same again, unchanged
          int rr, nn; MPI_Comm_rank(comm, &rr); MPI_Comm_size(comm, &nn);
          for (auto& b : Decompose(d.shape, nn, rr, d.gen)) {
            auto buf = FillBox(d.t, n, d.gen, d.shape, b.start, b.count);
            ArrayPutOptions po; po.tags = {{"gen", TagValue::Int(d.gen)}}; po.checksum_grain = (x >> 30) % 2 ? 4096 : 0;
            OK(s->PutArray(n, d.t, d.shape, b.start, b.count, buf.data(), po));
          }
          next[n] = d;
        } else if (cur.count(n) && x % 10 == 9) {
          OK(s->DeleteArray(n));
          next.erase(n);
        }
      }
      uint64_t rev = 0;
      Status st;
      bool async = draws[5] % 2;
      if (async) { AsyncCommit ac; st = s->CommitAsync(&ac); if (st.ok()) st = ac.Wait(&rev); }
      else st = s->Commit(&rev);
      if (!st.ok()) {
        CHECK(st.IsInvalidArgument() && s->writer_ranks() > s->size(), "round %d commit: %s", round, st.ToString().c_str());
        // after a shrink: put every array again
        next = cur;
        int rr, nn; MPI_Comm_rank(comm, &rr); MPI_Comm_size(comm, &nn);
        for (auto& [n, d] : next) {
          d.gen = gen++;
          for (auto& b : Decompose(d.shape, nn, rr, d.gen)) {
            auto buf = FillBox(d.t, n, d.gen, d.shape, b.start, b.count);
            ArrayPutOptions po; po.tags = {{"gen", TagValue::Int(d.gen)}};
            OK(s->PutArray(n, d.t, d.shape, b.start, b.count, buf.data(), po));
          }
        }
        OK(s->Commit(&rev));
      }
      cur = next;
      models[rev] = cur;
      CheckModel(s.get(), cur, "own view");
      if (draws[6] % 5 == 0) OK(s->Pin(rev));
      if (draws[7] % 4 == 0) {
        std::vector<RevisionInfo> revs; OK(s->ListRevisions(&revs));
        for (auto& ri : revs) if (ri.pinned && draws[8] % 2) { OK(s->Unpin(ri.revision)); break; }
      }
    }
    {
      std::string enc;
      if (g_rank == 0) for (auto& [n, d] : cur) {
        enc += n + " " + std::to_string(int(d.t)) + " " + std::to_string(d.gen) + " " + std::to_string(d.shape.size());
        for (auto x : d.shape) enc += " " + std::to_string(x);
        enc += "\n";
      }
      int len = enc.size(); MPI_Bcast(&len, 1, MPI_INT, 0, MPI_COMM_WORLD); enc.resize(len);
      MPI_Bcast(enc.data(), len, MPI_CHAR, 0, MPI_COMM_WORLD);
      MPI_Bcast(&gen, 1, MPI_INT, 0, MPI_COMM_WORLD);
      cur.clear();
      std::istringstream in(enc);
      std::string n; int t, g, nd;
      while (in >> n >> t >> g >> nd) { Def d; d.t = DType(t); d.gen = g; d.shape.resize(nd); for (auto& x : d.shape) in >> x; cur[n] = d; }
    }
    // Every retained revision on every rank of the world, read-only.
    if (draws[9] % 3 == 0 || round == rounds - 1) {
      if (s) { OK(s->Close()); s.reset(); }
      // models live on the job's rank 0 = world rank 0
      std::string enc;
      if (g_rank == 0) for (auto& [rv, m] : models) for (auto& [n, d] : m) {
        enc += std::to_string(rv) + " " + n + " " + std::to_string(int(d.t)) + " " + std::to_string(d.gen) + " " + std::to_string(d.shape.size());
        for (auto x : d.shape) enc += " " + std::to_string(x);
        enc += "\n";
      }
      int len = enc.size(); MPI_Bcast(&len, 1, MPI_INT, 0, MPI_COMM_WORLD); enc.resize(len);
      MPI_Bcast(enc.data(), len, MPI_CHAR, 0, MPI_COMM_WORLD);
      std::map<uint64_t, Model> ms;
      std::istringstream in(enc);
      uint64_t rv; std::string n; int t, g, nd;
      while (in >> rv >> n >> t >> g >> nd) { Def d; d.t = DType(t); d.gen = g; d.shape.resize(nd); for (auto& x : d.shape) in >> x; ms[rv][n] = d; }
      Options ro; ro.read_only = true;
      std::unique_ptr<Store> r;
      OK(Store::Open(ro, path, MPI_COMM_WORLD, &r));
      std::vector<RevisionInfo> revs; OK(r->ListRevisions(&revs)); r.reset();
      for (auto& ri : revs) {
        Options o2 = ro; o2.revision = ri.revision;
        OK(Store::Open(o2, path, MPI_COMM_WORLD, &r));
        if (!r) continue;
        Model m = ms.count(ri.revision) ? ms[ri.revision] : Model();  // revisions with no array have no entry
        char w[64]; snprintf(w, sizeof w, "round %d retained rev %llu", round, (unsigned long long)ri.revision);
        CheckModel(r.get(), m, w);
        r.reset();
      }
      if (comm != MPI_COMM_NULL) {
        Options o; o.keep_revisions = keep; o.extent_size = 64 << 10; if (getenv("ARRAYS8_SUBFILES")) o.subfiles = atoi(getenv("ARRAYS8_SUBFILES")); o.inline_value_limit = 300;
        OK(Store::Open(o, path, comm, &s));
      }
    }
  }
  if (s) OK(s->Close());
  long total = 0;
  MPI_Allreduce(&g_fail, &total, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
  if (g_rank == 0) printf("p12 seed %s on %d ranks, keep %d: %ld failures\n", argv[2], g_size, keep, total);
  MPI_Finalize();
  return total ? 1 : 0;
}
