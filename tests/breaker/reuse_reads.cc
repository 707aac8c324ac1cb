// Outside pass 5 (FINDINGS5.md). Writer (`write DIR`, under mpiexec, until
// DIR.stop exists): revisions of 16 MiB +- 1 values and small ones, content seeded by
// the revision, keep_revisions 1. Reader: opens the newest revision R, then
// reads it many times while the writer reuses its space (`read DIR N`):
// every read must be R's bytes or Corruption (exit 1 on any other bytes).
#include <mpi.h>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>
#include <memory>
#include <random>
#include <unistd.h>
#include "cairn/store.h"
#include "cairn/stream.h"
using namespace cairn;
static char Byte(uint64_t seed, const std::string& k, uint64_t o) { uint64_t h = seed * 0x9E3779B97F4A7C15ull ^ (k.size() * 7919 + uint8_t(k.back())); return char(uint8_t(((o + 1) * (h | 1)) >> 13)); }
static std::string Val(uint64_t seed, const std::string& k, uint64_t n) { std::string v(n, 0); for (uint64_t i = 0; i < n; i++) v[i] = Byte(seed, k, i); return v; }
static bool Same(uint64_t seed, const std::string& k, const char* p, uint64_t off, uint64_t n) { for (uint64_t i = 0; i < n; i++) if (p[i] != Byte(seed, k, off + i)) return false; return true; }
static std::vector<std::pair<std::string, uint64_t>> Keys() {
  std::vector<std::pair<std::string, uint64_t>> v = {{"a", (16u << 20) - 1}, {"b", 16u << 20}, {"c", (16u << 20) + 1}};
  for (int i = 0; i < 60; i++) v.push_back({"s" + std::to_string(i), uint64_t(700 + i * 1500)});
  return v;
}
int main(int argc, char** argv) {
  std::string mode = argv[1], dir = argv[2];
  if (mode == "write") {
    MPI_Init(&argc, &argv);
    Options o; o.keep_revisions = 1; o.sync = false; o.extent_size = 1 << 20;
    std::unique_ptr<Store> st; Status s = Store::Open(o, dir, MPI_COMM_WORLD, &st);
    if (!s.ok()) { fprintf(stderr, "%s\n", s.ToString().c_str()); return 2; }
    for (;;) {
      uint64_t next = st->revision() + 1;
      for (auto& [k, n] : Keys()) st->Put(k, Val(next * 16 + st->rank(), k, n));
      uint64_t rev; s = st->Commit(&rev);
      if (!s.ok() || rev != next) { fprintf(stderr, "commit %s\n", s.ToString().c_str()); break; }
      int stop = st->rank() == 0 && access((dir + ".stop").c_str(), F_OK) == 0;
      MPI_Bcast(&stop, 1, MPI_INT, 0, MPI_COMM_WORLD);
      if (stop) break;
    }
    st->Close(); MPI_Finalize(); return 0;
  }
  int iters = atoi(argv[3]);
  long ok = 0, corrupt = 0, wrong = 0, other = 0;
  std::mt19937_64 rng(getpid());
  for (int it = 0; it < iters; it++) {
    Options o; o.read_only = true;
    std::unique_ptr<Store> st; Status s = Store::Open(o, dir, &st);
    if (!s.ok()) { other++; continue; }
    uint64_t R = st->revision();
    usleep(rng() % 300000);  // let the writer move on
    int ns = st->writer_ranks();
    for (int rep = 0; rep < 3; rep++) {
      int r = int(rng() % ns);
      ReadOptions ro; ro.rank = r;
      uint64_t seed = R * 16 + r;
      auto keys = Keys();
      std::vector<std::string> ks; for (auto& [k, n] : keys) ks.push_back(k);
      std::vector<std::string> vals; std::vector<Status> sts;
      st->MultiGet(ks, &vals, &sts, ro);
      for (size_t i = 0; i < ks.size(); i++) {
        if (sts[i].ok()) { if (vals[i].size() == keys[i].second && Same(seed, ks[i], vals[i].data(), 0, keys[i].second)) ok++; else { wrong++; fprintf(stderr, "WRONG mget rev %llu rank %d key %s\n", (unsigned long long)R, r, ks[i].c_str()); } }
        else if (sts[i].IsCorruption()) corrupt++; else { other++; fprintf(stderr, "other: %s\n", sts[i].ToString().c_str()); }
      }
      for (auto& [k, n] : keys) {
        uint64_t off = rng() % n, len = std::min<uint64_t>(n - off, 1 + rng() % (3 << 20));
        std::string b(len, 0); s = st->GetRange(k, off, b.data(), len, ro);
        if (s.ok()) { if (Same(seed, k, b.data(), off, len)) ok++; else { wrong++; fprintf(stderr, "WRONG range rev %llu key %s\n", (unsigned long long)R, k.c_str()); } }
        else if (s.IsCorruption()) corrupt++; else { other++; fprintf(stderr, "other: %s\n", s.ToString().c_str()); }
      }
      std::unique_ptr<StreamReader> rd; s = st->OpenReadStream("b", &rd, ro);
      if (s.ok()) { std::string b(1 << 20, 0); uint64_t pos = 0; size_t got;
        while ((s = rd->Read(b.data(), b.size(), &got)).ok() && got) { if (!Same(seed, "b", b.data(), pos, got)) { wrong++; fprintf(stderr, "WRONG stream\n"); break; } pos += got; }
        if (s.ok()) ok++; else if (s.IsCorruption()) corrupt++; else other++; }
      else if (s.IsCorruption()) corrupt++; else other++;
    }
  }
  printf("ok %ld corrupt %ld wrong %ld other %ld\n", ok, corrupt, wrong, other);
  return wrong ? 1 : 0;
}
