// Outside pass 5 (FINDINGS5.md): values of 16 MiB +- 1 and 40 MiB, small
// values between unwanted ones (so MultiGet merges requests across them);
// `write DIR [keep]` commits them (and `rewrite DIR n` makes n more
// revisions of other data with keep_revisions 1, reusing the space);
// `read DIR [REV]` reads every way (Get, MultiGet into strings and into
// buffers, GetRange across 16 MiB, streams) and prints one line per
// (op, key): ok | corrupt | WRONG | ...; exit 1 on any WRONG. RD_WAIT=FILE:
// open, then wait until FILE exists before reading (a reader left on an old
// revision while a writer reuses its space). Driven by values16m_damage.py.
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>
#include <memory>
#include <unistd.h>
#include "cairn/store.h"
#include "cairn/stream.h"
using namespace cairn;
static uint32_t H(const std::string& k) { uint32_t h = 2166136261u; for (char c : k) h = (h ^ uint8_t(c)) * 16777619u; return h; }
static char B(const std::string& k, uint64_t o, uint32_t h) {
  uint64_t r = o % 4096;
  if (r < 32) {
    char m[33]; snprintf(m, sizeof m, "\x01MK:%s:%llu\x02", k.c_str(), (unsigned long long)(o - r));
    size_t n = strlen(m); return r < n ? m[r] : '\x03';
  }
  return char(uint8_t((o * 131 + h) >> 3));
}
static std::string Val(const std::string& k, uint64_t n) { std::string v(n, 0); uint32_t h = H(k); for (uint64_t i = 0; i < n; i++) v[i] = B(k, i, h); return v; }
static bool Same(const std::string& k, const char* p, uint64_t off, uint64_t n) { uint32_t h = H(k); for (uint64_t i = 0; i < n; i++) if (p[i] != B(k, off + i, h)) return false; return true; }
struct KV { std::string k; uint64_t n; bool wanted; };
static std::vector<KV> Keys(int gen) {
  std::vector<KV> v;
  std::string g = gen ? "g" + std::to_string(gen) + "_" : "";
  for (auto [k, n] : std::vector<std::pair<std::string, uint64_t>>{{"v16m-1", (16u << 20) - 1}, {"v16m", 16u << 20}, {"v16m+1", (16u << 20) + 1}, {"v40m", 40u << 20}})
    v.push_back({g + k, n, true});
  for (int i = 0; i < 120; i++) {
    char a[32]; snprintf(a, sizeof a, "%ss%03d", g.c_str(), i); v.push_back({a, uint64_t(1000 + (i * 977) % 9000), true});
    snprintf(a, sizeof a, "%sgap%03d", g.c_str(), i); v.push_back({a, uint64_t(3000 + (i * 313) % 60000), false});
  }
  return v;
}
static const char* Cls(const Status& s, const std::string& k) {
  if (s.ok()) return "ok";
  if (s.IsCorruption()) return s.message().find(k) != std::string::npos ? "corrupt" : "corrupt-unnamed";
  return "err";
}
int main(int argc, char** argv) {
  std::string cmd = argv[1], dir = argv[2];
  Options o; o.inline_value_limit = 512;
  if (cmd == "write" || cmd == "rewrite") {
    if (argc > 3 && cmd == "write") o.keep_revisions = atoi(argv[3]);
    if (cmd == "rewrite") o.keep_revisions = 1;
    std::unique_ptr<Store> st; Status s = Store::Open(o, dir, &st); if (!s.ok()) { puts(s.ToString().c_str()); return 2; }
    int rounds = cmd == "rewrite" ? atoi(argv[3]) : 1;
    for (int r = 0; r < rounds; r++) {
      int gen = cmd == "rewrite" ? 100 + r : 0;
      for (auto& kv : Keys(0)) if (gen) st->Delete(kv.k);
      for (auto& kv : Keys(gen)) if (!(s = st->Put(kv.k, Val(kv.k, kv.n))).ok()) { puts(s.ToString().c_str()); return 2; }
      uint64_t rev; if (!(s = st->Commit(&rev)).ok()) { puts(s.ToString().c_str()); return 2; }
      fprintf(stderr, "committed %llu\n", (unsigned long long)rev);
    }
    return st->Close().ok() ? 0 : 2;
  }
  // read
  o.read_only = true; if (argc > 3) o.revision = strtoull(argv[3], 0, 10);
  std::unique_ptr<Store> st; Status s = Store::Open(o, dir, &st); if (!s.ok()) { printf("open %s\n", s.ToString().c_str()); return 2; }
  int gen = argc > 4 ? atoi(argv[4]) : 0;
  if (const char* w = getenv("RD_WAIT")) { fprintf(stderr, "opened\n"); while (access(w, F_OK) != 0) usleep(20000); }
  auto keys = Keys(gen);
  int wrong = 0;
  auto out = [&](const char* op, const std::string& k, const char* c) { printf("%s %s %s\n", op, k.c_str(), c); if (!strcmp(c, "WRONG")) wrong++; };
  for (auto& kv : keys) {
    std::string v; s = st->Get(kv.k, &v);
    out("get", kv.k, s.ok() ? (v.size() == kv.n && Same(kv.k, v.data(), 0, kv.n) ? "ok" : "WRONG") : Cls(s, kv.k));
  }
  // MultiGet of the wanted ones (gaps between them not asked for), strings and buffers
  for (int variant = 0; variant < 2; variant++) {
    std::vector<std::string> ks; std::vector<uint64_t> ns;
    for (auto& kv : keys) if (kv.wanted) { ks.push_back(kv.k); ns.push_back(kv.n); }
    std::vector<Status> sts; ReadOptions ro;
    if (variant == 0) {
      std::vector<std::string> vals; s = st->MultiGet(ks, &vals, &sts, ro);
      for (size_t i = 0; i < ks.size(); i++) out("mget", ks[i], sts[i].ok() ? (vals[i].size() == ns[i] && Same(ks[i], vals[i].data(), 0, ns[i]) ? "ok" : "WRONG") : Cls(sts[i], ks[i]));
    } else {
      std::vector<std::string> mem(ks.size()); std::vector<Store::ValueBuffer> bufs(ks.size());
      for (size_t i = 0; i < ks.size(); i++) { mem[i].assign(ns[i], '\x55'); bufs[i].data = mem[i].data(); bufs[i].capacity = ns[i]; }
      ro.gap_limit = 1 << 20;
      s = st->MultiGet(ks, &bufs, &sts, ro);
      for (size_t i = 0; i < ks.size(); i++) {
        const char* c = sts[i].ok() ? (bufs[i].size == ns[i] && Same(ks[i], mem[i].data(), 0, ns[i]) ? "ok" : "WRONG") : Cls(sts[i], ks[i]);
        if (!sts[i].ok()) { for (char ch : mem[i]) if (ch != 0) { c = "NOT-ZEROED"; wrong++; break; } }
        out("mgetbuf", ks[i], c);
      }
    }
  }
  // GetRange: head, a piece across 16 MiB, the tail
  for (auto& kv : keys) {
    std::vector<std::pair<uint64_t, uint64_t>> rs = {{0, std::min<uint64_t>(kv.n, 100)}, {kv.n - std::min<uint64_t>(kv.n, 10), std::min<uint64_t>(kv.n, 10)}};
    if (kv.n > (16u << 20) + 100) rs.push_back({(16u << 20) - 50, 100});
    if (kv.n > 5000) rs.push_back({kv.n / 2, kv.n / 3});
    int ri = 0;
    for (auto [off, len] : rs) {
      std::string b(len, 0); s = st->GetRange(kv.k, off, b.data(), len);
      std::string op = "range" + std::to_string(ri++) + "@" + std::to_string(off) + "+" + std::to_string(len);
      out(op.c_str(), kv.k, s.ok() ? (Same(kv.k, b.data(), off, len) ? "ok" : "WRONG") : Cls(s, kv.k));
    }
  }
  // streams: whole read in 3 MiB pieces, and ReadAt
  for (auto& kv : keys) {
    std::unique_ptr<StreamReader> r; s = st->OpenReadStream(kv.k, &r);
    if (!s.ok()) { out("stream", kv.k, Cls(s, kv.k)); continue; }
    std::string b(3 << 20, 0); uint64_t pos = 0; const char* c = "ok";
    while (pos < kv.n) { size_t got = 0; s = r->Read(b.data(), b.size(), &got); if (!s.ok()) { c = Cls(s, kv.k); break; } if (!got) { c = "SHORT"; wrong++; break; } if (!Same(kv.k, b.data(), pos, got)) { c = "WRONG"; break; } pos += got; }
    out("stream", kv.k, c);
  }
  fprintf(stderr, "wrong=%d\n", wrong);
  return wrong ? 1 : 0;
}
