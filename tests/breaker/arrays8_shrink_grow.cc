// Probe 8: N ranks -> N/2 -> N with keep K: the N/2 job and the second N job
// must not reuse extents of the first job's still-retained revisions (in the
// data files of ranks the N/2 job did not have). Arrays and big objects,
// async commits, a stream across commits. usage: arrays8_shrink_grow STORE KEEP (N = 4 or 2)
#include "arrays8_common.h"

static const std::vector<uint64_t> kShape = {64, 300};  // 150 KB as float64

static std::string Obj(int gen, int rank, size_t n) {
  std::string s(n, 0);
  for (size_t i = 0; i < n; i++) s[i] = char(Mix(gen * 7777 + rank * 131 + i));
  return s;
}

struct Rev { int gen; int writers; };

static void CheckRev(const std::string& path, uint64_t rev, Rev m, const char* where) {
  Options o; o.read_only = true; o.revision = rev;
  std::unique_ptr<Store> r;
  Status st = Store::Open(o, path, MPI_COMM_WORLD, &r);
  if (!st.ok()) { CHECK(false, "%s: open %llu: %s", where, (unsigned long long)rev, st.ToString().c_str()); return; }
  char w[96]; snprintf(w, sizeof w, "%s rev %llu", where, (unsigned long long)rev);
  CheckArray(r.get(), "A", DType::kFloat64, kShape, m.gen, w);
  CHECK(r->writer_ranks() == m.writers, "%s writers %d want %d", w, r->writer_ranks(), m.writers);
  for (int ns = 0; ns < r->writer_ranks(); ns++) {
    std::string v; ReadOptions ro; ro.rank = ns;
    Status gs = r->Get("big", &v, ro);
    CHECK(gs.ok() && v == Obj(m.gen, ns, 200000), "%s big of ns %d: %s", w, ns, gs.ToString().c_str());
  }
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &g_rank);
  MPI_Comm_size(MPI_COMM_WORLD, &g_size);
  std::string path = argv[1];
  int keep = atoi(argv[2]);
  std::map<uint64_t, Rev> model;
  int gen = 1;
  auto job = [&](MPI_Comm c, int commits, bool first_put_all) {
    int r, n; MPI_Comm_rank(c, &r); MPI_Comm_size(c, &n);
    Options o; o.keep_revisions = keep; o.extent_size = 64 << 10; if (getenv("ARRAYS8_SUBFILES")) o.subfiles = atoi(getenv("ARRAYS8_SUBFILES")); o.staging_bytes = (gen % 2) ? 0 : 1 << 20;
    std::unique_ptr<Store> s;
    OK(Store::Open(o, path, c, &s));
    std::unique_ptr<StreamWriter> w;
    OK(s->OpenWriteStream("st", {}, &w));
    for (int k = 0; k < commits; k++, gen++) {
      for (auto& b : Decompose(kShape, n, r, gen)) {
        auto buf = FillBox(DType::kFloat64, "A", gen, kShape, b.start, b.count);
        OK(s->PutArray("A", DType::kFloat64, kShape, b.start, b.count, buf.data()));
      }
      OK(s->Put("big", Obj(gen, r, 200000)));
      std::string junk = Obj(gen + 100, r, 100000);
      OK(w->Write(junk.data(), junk.size()));
      OK(w->Flush());
      uint64_t rev;
      if (k % 2) { AsyncCommit ac; OK(s->CommitAsync(&ac)); OK(ac.Wait(&rev)); }
      else OK(s->Commit(&rev));
      int rev_i = int(rev);
      MPI_Bcast(&rev_i, 1, MPI_INT, 0, c);
      (void)first_put_all;
      if (r == 0) model[rev] = {gen, n};
    }
    OK(w->Close());
    OK(s->Close());
  };
  auto share = [&]() {
    std::string enc;
    if (g_rank == 0) for (auto& [rv, m] : model) enc += std::to_string(rv) + " " + std::to_string(m.gen) + " " + std::to_string(m.writers) + "\n";
    int len = enc.size();
    MPI_Bcast(&len, 1, MPI_INT, 0, MPI_COMM_WORLD);
    enc.resize(len);
    MPI_Bcast(enc.data(), len, MPI_CHAR, 0, MPI_COMM_WORLD);
    model.clear();
    std::istringstream in(enc);
    uint64_t rv; int g, wr;
    while (in >> rv >> g >> wr) model[rv] = {g, wr};
    MPI_Bcast(&gen, 1, MPI_INT, 0, MPI_COMM_WORLD);
  };
  auto check_all = [&](const char* where) {
    Options o; o.read_only = true;
    std::unique_ptr<Store> s;
    OK(Store::Open(o, path, MPI_COMM_WORLD, &s));
    std::vector<RevisionInfo> revs;
    OK(s->ListRevisions(&revs));
    s.reset();
    for (auto& ri : revs) CheckRev(path, ri.revision, model[ri.revision], where);
  };
  job(MPI_COMM_WORLD, 2, true);
  share(); check_all("after N");
  MPI_Comm half;
  MPI_Comm_split(MPI_COMM_WORLD, g_rank < g_size / 2 ? 0 : MPI_UNDEFINED, g_rank, &half);
  if (half != MPI_COMM_NULL) { job(half, 1, true); MPI_Comm_free(&half); }
  share(); check_all("after N/2");
  for (int round = 0; round < 4; round++) {
    job(MPI_COMM_WORLD, 1, true);
    share(); check_all("after N again");
  }
  long total = 0;
  MPI_Allreduce(&g_fail, &total, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
  if (g_rank == 0) printf("p8 on %d ranks keep %d: %ld failures\n", g_size, keep, total);
  MPI_Finalize();
  return total ? 1 : 0;
}
