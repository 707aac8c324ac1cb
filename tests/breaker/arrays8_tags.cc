// Probe 10: array tags across ranks and rounds, QueryArrays, and listings
// that must not show array internals. usage: arrays8_tags STORE
#include "arrays8_common.h"

static std::string Names(const std::vector<std::string>& v) { std::string s; for (auto& x : v) s += x + ","; return s; }

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &g_rank);
  MPI_Comm_size(MPI_COMM_WORLD, &g_size);
  std::string path = argv[1];
  std::unique_ptr<Store> s;
  OK(Store::Open(Options(), path, MPI_COMM_WORLD, &s));
  std::vector<uint64_t> shape = {uint64_t(g_size) * 4};
  std::vector<int32_t> d(4, g_rank);
  // T1: every rank gives tag "who" = its rank and "r<rank>" = 1; rank 0 first.
  ArrayPutOptions po;
  po.tags = {{"who", TagValue::Int(g_rank)}, {"r" + std::to_string(g_rank), TagValue::Int(1)}};
  OK(s->PutArray("T1", DType::kInt32, shape, {uint64_t(g_rank) * 4}, {4}, d.data(), po));
  // T2: rank 0 puts only an empty box carrying tags; others put data with other tag values.
  ArrayPutOptions p2;
  p2.tags = {{"who", TagValue::Int(100 + g_rank)}};
  if (g_rank == 0) OK(s->PutArray("T2", DType::kInt32, shape, {0}, {0}, nullptr, p2));
  else OK(s->PutArray("T2", DType::kInt32, shape, {uint64_t(g_rank) * 4}, {4}, d.data(), p2));
  if (g_size == 1) OK(s->PutArray("T2", DType::kInt32, shape, {0}, {4}, d.data(), p2));
  // T3: tag with different types on different ranks
  ArrayPutOptions p3;
  p3.tags = {{"x", g_rank % 2 ? TagValue::Float64(2.5) : TagValue::Int(2)}};
  OK(s->PutArray("T3", DType::kInt32, shape, {uint64_t(g_rank) * 4}, {4}, d.data(), p3));
  OK(s->Put("obj", "v", {{"who", TagValue::Int(0)}}));
  OK(s->Commit());
  ArrayInfo i1, i2;
  OK(s->GetArrayInfo("T1", &i1));
  OK(s->GetArrayInfo("T2", &i2));
  if (g_rank == 0) {
    printf("T1 tags:"); for (auto& t : i1.tags) printf(" %s=%s", t.name.c_str(), t.value.ToString().c_str()); printf("\n");
    printf("T2 tags:"); for (auto& t : i2.tags) printf(" %s=%s", t.name.c_str(), t.value.ToString().c_str()); printf("\n");
    ArrayInfo i3; OK(s->GetArrayInfo("T3", &i3));
    printf("T3 tags:"); for (auto& t : i3.tags) printf(" %s=%s", t.name.c_str(), t.value.ToString().c_str()); printf("\n");
  }
  std::vector<std::string> q;
  OK(s->QueryArrays({TagQuery::Equal("who", TagValue::Int(0))}, &q));
  if (g_rank == 0) printf("QueryArrays who==0: %s\n", Names(q).c_str());
  OK(s->QueryArrays({TagQuery::Range("x", TagValue::Float64(1.5), TagValue::Float64(3.0))}, &q));
  if (g_rank == 0) printf("QueryArrays 1.5<=x<=3: %s\n", Names(q).c_str());
  OK(s->QueryArrays({TagQuery::Exists("r1")}, &q));
  if (g_rank == 0) printf("QueryArrays exists r1: %s\n", Names(q).c_str());
  // Object listings/queries must not show array internals
  std::vector<std::string> keys;
  ReadOptions ro;
  for (int ns = -2; ns < g_size; ns++) {
    if (ns == -1) continue;
    ro.rank = ns;
    OK(s->Query({}, &keys, ro));
    for (auto& k : keys) CHECK(!k.empty() && k[0] != 0, "Query ns %d shows an internal key", ns);
    std::vector<ObjectInfo> objs;
    OK(s->List(&objs, ro));
    for (auto& o : objs) CHECK(!o.key.empty() && o.key[0] != 0, "List ns %d shows an internal key", ns);
  }
  std::vector<QueryHit> hits;
  OK(s->QueryAll({TagQuery::Exists("who")}, &hits));
  CHECK(hits.size() == size_t(g_size), "QueryAll who: %zu hits (want the objects only, one per rank)", hits.size());
  // Re-put T1 without tags: the tags must go (the put starts it anew).
  OK(s->PutArray("T1", DType::kInt32, shape, {uint64_t(g_rank) * 4}, {4}, d.data()));
  OK(s->Commit());
  OK(s->GetArrayInfo("T1", &i1));
  if (g_rank == 0) printf("T1 re-put without tags: %zu tags\n", i1.tags.size());
  OK(s->QueryArrays({TagQuery::Exists("who")}, &q));
  if (g_rank == 0) printf("QueryArrays exists who after re-put: %s\n", Names(q).c_str());
  // Delete T2: gone from QueryArrays
  OK(s->DeleteArray("T2"));
  OK(s->Commit());
  OK(s->QueryArrays({TagQuery::Exists("who")}, &q));
  CHECK(std::find(q.begin(), q.end(), "T2") == q.end(), "deleted T2 still found by QueryArrays");
  // An object and an array of the same name
  OK(s->Put("T3", "object T3"));
  OK(s->Commit());
  std::string v; OK(s->Get("T3", &v));
  CHECK(v == "object T3", "object T3");
  OK(s->GetArrayInfo("T3", &i1));
  OK(s->Close());
  long total = 0;
  MPI_Allreduce(&g_fail, &total, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
  if (g_rank == 0) printf("p10 on %d ranks: %ld failures\n", g_size, total);
  MPI_Finalize();
  return total ? 1 : 0;
}
