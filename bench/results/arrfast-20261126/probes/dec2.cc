// Decode cost of a block's chunk list: DecodeEntryBody + GrainEnds for N grains of 4 KiB (median of 21).
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <vector>
#include "array/array_grains.h"
#include "format/index_format.h"
using namespace cairn;
int main(int argc, char** argv) {
  size_t n = strtoull(argv[1], 0, 10);
  std::vector<ChunkRef> c(n);
  for (size_t i = 0; i < n; i++) {
    c[i].subfile = 3; c[i].offset = (16ull << 20) + i * 4096; c[i].length = c[i].raw_length = 4096;
    c[i].checksum = 0x9e3779b97f4a7c15ull * (i + 1);
  }
  std::string body;
  EncodeEntryBody("\x01" "a\x00\x00\x00\x00\x00\x00\x00\x01", ValueKind::kChunked, n * 4096, {}, c, {}, &body);
  std::vector<double> d, g;
  for (int r = 0; r < 21; r++) {
    auto a = std::chrono::steady_clock::now();
    EntryView e;
    if (!DecodeEntryBody(body, &e).ok()) return 1;
    auto m = std::chrono::steady_clock::now();
    std::vector<uint64_t> ends;
    GrainEnds(e.chunks, &ends);
    auto z = std::chrono::steady_clock::now();
    d.push_back(std::chrono::duration<double>(m - a).count() * 1e3);
    g.push_back(std::chrono::duration<double>(z - m).count() * 1e3);
  }
  std::sort(d.begin(), d.end()); std::sort(g.begin(), g.end());
  printf("%zu grains (%zu bytes encoded): decode min %.3f median %.3f max %.3f ms; ends min %.3f median %.3f ms\n", n,
         body.size(), d[0], d[10], d[20], g[0], g[10]);
}
