// Outside pass 5: MultiGet with the same key twice (overlapping ranges: one
// read into a bounce buffer), 40 MiB and small values, gap limits 0, 1 MiB
// and 64 MiB, intact and with one byte flipped in a 40 MiB value at a
// 16 MiB request boundary, in a small value, and in the last byte of a
// 16 MiB value: `DIR` made by `breaker_values16m write DIR`.
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>
#include <memory>
#include <fstream>
#include <sstream>
#include <fcntl.h>
#include <unistd.h>
#include "cairn/store.h"
using namespace cairn;
static uint32_t H(const std::string& k) { uint32_t h = 2166136261u; for (char c : k) h = (h ^ uint8_t(c)) * 16777619u; return h; }
static char B(const std::string& k, uint64_t o, uint32_t h) {
  uint64_t r = o % 4096;
  if (r < 32) { char m[33]; snprintf(m, sizeof m, "\x01MK:%s:%llu\x02", k.c_str(), (unsigned long long)(o - r)); size_t n = strlen(m); return r < n ? m[r] : '\x03'; }
  return char(uint8_t((o * 131 + h) >> 3));
}
static bool Same(const std::string& k, const char* p, uint64_t off, uint64_t n) { uint32_t h = H(k); for (uint64_t i = 0; i < n; i++) if (p[i] != B(k, off + i, h)) return false; return true; }
static long Pos(const std::string& file, const std::string& key, uint64_t off) {
  std::ifstream f(file, std::ios::binary); std::stringstream ss; ss << f.rdbuf(); std::string d = ss.str();
  char m[64]; snprintf(m, sizeof m, "\x01MK:%s:%llu\x02", key.c_str(), (unsigned long long)(off - off % 4096));
  size_t p = d.find(m); return p == std::string::npos ? -1 : long(p + off % 4096);
}
static void Flip(const std::string& file, long p) { int fd = open(file.c_str(), O_RDWR); char c; pread(fd, &c, 1, p); c ^= 0x5a; pwrite(fd, &c, 1, p); close(fd); }
int main(int argc, char** argv) {
  std::string dir = argv[1], file = dir + "/data.00000";
  std::vector<std::string> keys = {"v40m", "s000", "v40m", "s000", "s001", "v16m", "gap000"};
  std::vector<std::pair<std::string, uint64_t>> dmg = {{"", 0}, {"v40m", (16u << 20) + 5}, {"s000", 700}, {"v16m", (16u << 20) - 1}};
  int bad = 0;
  for (auto [dk, doff] : dmg) {
    long p = dk.empty() ? -1 : Pos(file, dk, doff);
    if (!dk.empty() && p < 0) { printf("no pos %s\n", dk.c_str()); continue; }
    if (p >= 0) Flip(file, p);
    Options o; o.read_only = true;
    std::unique_ptr<Store> st; Store::Open(o, dir, &st);
    for (int gl : {0, 1 << 20, 64 << 20}) {
      std::vector<std::string> mem(keys.size()); std::vector<Store::ValueBuffer> bufs(keys.size());
      for (size_t i = 0; i < keys.size(); i++) { uint64_t n; st->GetSize(keys[i], &n); mem[i].assign(n, '\x55'); bufs[i].data = mem[i].data(); bufs[i].capacity = n; }
      std::vector<Status> sts; ReadOptions ro; ro.gap_limit = gl; ro.max_block = 256 << 20; ro.max_read_amplification = 100;
      st->MultiGet(keys, &bufs, &sts, ro);
      std::string line;
      for (size_t i = 0; i < keys.size(); i++) {
        bool ok = sts[i].ok(), same = Same(keys[i], mem[i].data(), 0, mem[i].size());
        bool zero = true; for (char c : mem[i]) if (c) { zero = false; break; }
        const char* c = ok ? (same ? "ok" : "WRONG") : (sts[i].IsCorruption() ? (zero ? "corrupt" : "NOTZERO") : "err");
        bool expect_bad = keys[i] == dk;
        if ((expect_bad && strcmp(c, "corrupt")) || (!expect_bad && strcmp(c, "ok"))) bad++;
        line += keys[i] + "=" + c + " ";
      }
      printf("damage %s@%llu gap %d: %s\n", dk.c_str(), (unsigned long long)doff, gl, line.c_str());
    }
    if (p >= 0) Flip(file, p);
  }
  printf("bad=%d\n", bad);
  return bad != 0;
}
