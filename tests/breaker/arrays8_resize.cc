// Probe 1: arrays written on N ranks, reopened read-write on M, with
// retention, async commits, streams open across commits, pins, deletes.
// usage: arrays8_resize w|m|r STORE KEEP
#include <algorithm>
#include <sstream>

#include "arrays8_common.h"

struct ArrDef { std::string name; DType t; std::vector<uint64_t> shape; };
static std::vector<ArrDef> kArrs = {
    {"A", DType::kFloat64, {37, 23}},
    {"B", DType::kInt16, {5, 7, 11}},
    {"C", DType::kUInt8, {1000}},
    {"D", DType::kUInt32, {3, 4, 5, 2}},
};
static const ArrDef& Def(const std::string& n) {
  for (auto& d : kArrs) if (d.name == n) return d;
  abort();
}

static std::string g_path;
using Model = std::map<std::string, int>;  // name -> gen
static std::map<uint64_t, Model> LoadModel() {
  std::map<uint64_t, Model> m;
  std::ifstream f(g_path + ".model");
  uint64_t rev; std::string name; int gen;
  while (f >> rev >> name >> gen) { if (name == "-") m[rev]; else m[rev][name] = gen; }
  return m;
}
static void SaveModel(uint64_t rev, const Model& cur) {
  if (g_rank != 0) return;
  std::ofstream f(g_path + ".model", std::ios::app);
  f << rev << " - 0\n";
  for (auto& [n, g] : cur) f << rev << " " << n << " " << g << "\n";
}

static std::string StreamBytes(uint64_t rev, int rank, size_t n) {
  std::string s(n, 0);
  for (size_t i = 0; i < n; i++) s[i] = char(Mix(rev * 1000003 + rank * 7919 + i) & 0xff);
  return s;
}

static void CheckRevModel(Store* s, const Model& m, const char* where) {
  std::vector<ArrayInfo> list;
  OK(s->ListArrays(&list));
  std::vector<std::string> names;
  for (auto& a : list) names.push_back(a.name);
  std::vector<std::string> want;
  for (auto& [n, g] : m) want.push_back(n);
  std::string a1, a2;
  for (auto& n : names) a1 += n + ",";
  for (auto& n : want) a2 += n + ",";
  CHECK(names == want, "%s rev %llu: arrays listed [%s] want [%s]", where, (unsigned long long)s->revision(), a1.c_str(), a2.c_str());
  for (auto& [n, g] : m) {
    auto& d = Def(n);
    CheckArray(s, n, d.t, d.shape, g, where);
    TagList tags;
    ArrayInfo info;
    if (s->GetArrayInfo(n, &info).ok()) {
      bool found = false;
      for (auto& t : info.tags) if (t.name == "gen") { found = true; CHECK(t.value.as_int() == g, "%s: tag gen %lld want %d", where, (long long)t.value.as_int(), g); }
      CHECK(found, "%s: no gen tag on %s", where, n.c_str());
    }
    std::vector<std::string> q;
    OK(s->QueryArrays({TagQuery::Equal("gen", TagValue::Int(g))}, &q));
    CHECK(std::find(q.begin(), q.end(), n) != q.end(), "%s: QueryArrays gen==%d misses %s", where, g, n.c_str());
  }
}

// Opens every retained revision read-only on all ranks and checks it.
static void CheckAllRetained(const char* where) {
  MPI_Barrier(MPI_COMM_WORLD);
  auto model = LoadModel();
  Options o; o.read_only = true; o.create_if_missing = false;
  std::unique_ptr<Store> s;
  OK(Store::Open(o, g_path, MPI_COMM_WORLD, &s));
  if (!s) return;
  std::vector<RevisionInfo> revs;
  OK(s->ListRevisions(&revs));
  s.reset();
  for (auto& ri : revs) {
    Options o2 = o; o2.revision = ri.revision;
    std::unique_ptr<Store> r;
    Status st = Store::Open(o2, g_path, MPI_COMM_WORLD, &r);
    if (!st.ok()) { CHECK(false, "%s: open rev %llu: %s", where, (unsigned long long)ri.revision, st.ToString().c_str()); continue; }
    if (!model.count(ri.revision)) { CHECK(false, "%s: rev %llu not in model", where, (unsigned long long)ri.revision); continue; }
    char w[128]; snprintf(w, sizeof w, "%s/ro rev %llu", where, (unsigned long long)ri.revision);
    CheckRevModel(r.get(), model[ri.revision], w);
    // the stream object, if the model says one was committed at rev (key "s", value written at rev close)
    std::string v;
    Status gs = r->Get("s", &v);
    if (gs.ok()) {
      // first 8 bytes: the revision of the stream's close, then rank, then content
      uint64_t at = 0; int rk = -1;
      if (v.size() >= 12) { memcpy(&at, v.data(), 8); memcpy(&rk, v.data() + 8, 4); }
      CHECK(rk == g_rank && v.size() == 12 + 70000 && v.substr(12) == StreamBytes(at, rk, 70000),
            "%s: stream s of rank %d wrong (size %zu, at %llu rk %d)", w, g_rank, v.size(), (unsigned long long)at, rk);
    }
    OK(r->Close());
  }
}

static std::unique_ptr<StreamWriter> g_stream;
static uint64_t g_stream_at = 0;
static void StreamOpen(Store* s, uint64_t tag_rev) {
  OK(s->OpenWriteStream("s", {}, &g_stream));
  g_stream_at = tag_rev;
  OK(g_stream->Write(&g_stream_at, 8));
  OK(g_stream->Write(&g_rank, 4));
  std::string b = StreamBytes(g_stream_at, g_rank, 70000);
  OK(g_stream->Write(b.data(), 30000));
  OK(g_stream->Flush());
}
static void StreamFinish() {
  std::string b = StreamBytes(g_stream_at, g_rank, 70000);
  OK(g_stream->Write(b.data() + 30000, 40000));
  OK(g_stream->Close());
  g_stream.reset();
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &g_rank);
  MPI_Comm_size(MPI_COMM_WORLD, &g_size);
  std::string phase = argv[1];
  g_path = argv[2];
  int keep = atoi(argv[3]);
  Options o;
  o.keep_revisions = keep;
  o.extent_size = 64 << 10; if (getenv("ARRAYS8_SUBFILES")) o.subfiles = atoi(getenv("ARRAYS8_SUBFILES"));
  o.inline_value_limit = 256;
  if (phase == "w") {
    std::unique_ptr<Store> s;
    OK(Store::Open(o, g_path, MPI_COMM_WORLD, &s));
    Model cur;
    uint64_t rev = 0;
    PutWhole(s.get(), "A", DType::kFloat64, Def("A").shape, 1, 1); cur["A"] = 1;
    PutWhole(s.get(), "B", DType::kInt16, Def("B").shape, 2, 2); cur["B"] = 2;
    PutWhole(s.get(), "C", DType::kUInt8, Def("C").shape, 3, 3); cur["C"] = 3;
    PutWhole(s.get(), "D", DType::kUInt32, Def("D").shape, 4, 4); cur["D"] = 4;
    OK(s->Commit(&rev)); SaveModel(rev, cur);
    CheckAllRetained("w1");
    StreamOpen(s.get(), 2);
    PutWhole(s.get(), "A", DType::kFloat64, Def("A").shape, 5, 5); cur["A"] = 5;
    AsyncCommit ac;
    OK(s->CommitAsync(&ac));
    Model next = cur;
    PutWhole(s.get(), "C", DType::kUInt8, Def("C").shape, 6, 6); next["C"] = 6;
    StreamFinish();
    OK(s->DeleteArray("B")); next.erase("B");
    OK(ac.Wait(&rev)); SaveModel(rev, cur);
    cur = next;
    OK(s->Commit(&rev)); SaveModel(rev, cur);
    PutWhole(s.get(), "B", DType::kInt16, Def("B").shape, 7, 7); cur["B"] = 7;
    OK(s->Commit(&rev)); SaveModel(rev, cur);
    OK(s->Close());
    CheckAllRetained("w-end");
  } else if (phase == "m") {
    o.create_if_missing = false;
    std::unique_ptr<Store> s;
    OK(Store::Open(o, g_path, MPI_COMM_WORLD, &s));
    auto model = LoadModel();
    Model cur = model[s->revision()];
    int N = s->writer_ranks();
    CheckRevModel(s.get(), cur, "m-open");
    CheckAllRetained("m-open");
    uint64_t rev = 0;
    // First: a commit with nothing put.
    Status st = s->Commit(&rev);
    if (g_rank == 0) printf("M=%d N=%d: empty commit: %s (rev %llu)\n", g_size, N, st.ToString().c_str(), (unsigned long long)rev);
    if (st.ok()) SaveModel(rev, cur);
    // Put the arrays the commit refused (all except D, which we delete).
    int gen = 100;
    if (!st.ok()) {
      for (auto& [n, g] : Model(cur)) {
        if (n == "D") { OK(s->DeleteArray("D")); cur.erase("D"); continue; }
        auto& d = Def(n);
        PutWhole(s.get(), n, d.t, d.shape, gen, gen + 1); cur[n] = gen; gen++;
      }
      OK(s->Commit(&rev)); SaveModel(rev, cur);
    }
    CheckRevModel(s.get(), cur, "m-after-first");
    CheckAllRetained("m-after-first");
    uint64_t pinned = rev;
    OK(s->Pin(pinned));
    Model pinned_model = cur;
    for (int round = 0; round < 10; round++) {
      bool async = round % 2 == 1;
      StreamOpen(s.get(), 1000 + round);
      PutWhole(s.get(), "A", DType::kFloat64, Def("A").shape, gen, gen * 3 + round); cur["A"] = gen++;
      if (round == 3) { if (cur.count("C")) { OK(s->DeleteArray("C")); cur.erase("C"); } }
      if (round == 6) { PutWhole(s.get(), "C", DType::kUInt8, Def("C").shape, gen, gen); cur["C"] = gen++; }
      if (round == 8) { PutWhole(s.get(), "D", DType::kUInt32, Def("D").shape, gen, gen); cur["D"] = gen++; }
      if (async) {
        AsyncCommit ac;
        OK(s->CommitAsync(&ac));
        StreamFinish();  // the stream was open across the commit start
        Model next = cur;
        PutWhole(s.get(), "B", DType::kInt16, Def("B").shape, gen, gen); next["B"] = gen++;
        // the handle's view: while in flight, GetArray reads view revision
        OK(ac.Wait(&rev)); SaveModel(rev, cur);
        CheckRevModel(s.get(), cur, "m-async-view");
        cur = next;
      } else {
        OK(s->Commit(&rev)); SaveModel(rev, cur);  // stream still open across this commit
        StreamFinish();
        CheckRevModel(s.get(), cur, "m-sync-view");
      }
      CheckAllRetained("m-round");
      // the pinned one, opened alone
      {
        Options op; op.read_only = true; op.revision = pinned; op.create_if_missing = false;
        std::unique_ptr<Store> p;
        OK(Store::Open(op, g_path, MPI_COMM_WORLD, &p));
        if (p) CheckRevModel(p.get(), pinned_model, "pinned");
      }
    }
    OK(s->Commit(&rev)); SaveModel(rev, cur);
    OK(s->Unpin(pinned));
    OK(s->Close());
    CheckAllRetained("m-end");
  } else if (phase == "r") {
    CheckAllRetained("r");
  }
  long total = 0;
  MPI_Allreduce(&g_fail, &total, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
  if (g_rank == 0) printf("phase %s on %d ranks: %ld failures\n", phase.c_str(), g_size, total);
  MPI_Finalize();
  return total ? 1 : 0;
}
