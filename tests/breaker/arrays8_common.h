// Probe helpers: deterministic array contents, irregular decompositions, checks.
#pragma once
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <algorithm>
#include <cstdint>
#include <fstream>
#include <sstream>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "cairn/array.h"
#include "cairn/store.h"
#include "cairn/stream.h"

using namespace cairn;

static int g_rank = 0, g_size = 1;
static long g_fail = 0;
#define CHECK(c, ...)                                                   \
  do {                                                                  \
    if (!(c)) {                                                         \
      g_fail++;                                                         \
      fprintf(stderr, "[r%d] FAIL %s:%d: %s: ", g_rank, __FILE__, __LINE__, #c); \
      fprintf(stderr, __VA_ARGS__);                                     \
      fprintf(stderr, "\n");                                            \
    }                                                                   \
  } while (0)
#define OK(expr)                                                                              \
  do {                                                                                        \
    Status _s = (expr);                                                                       \
    if (!_s.ok()) {                                                                           \
      g_fail++;                                                                               \
      fprintf(stderr, "[r%d] FAIL %s:%d: %s -> %s\n", g_rank, __FILE__, __LINE__, #expr,      \
              _s.ToString().c_str());                                                         \
    }                                                                                         \
  } while (0)

static inline uint64_t Mix(uint64_t x) {
  x ^= x >> 33; x *= 0xff51afd7ed558ccdULL; x ^= x >> 33; x *= 0xc4ceb9fe1a85ec53ULL; x ^= x >> 33;
  return x;
}

// The bytes of element i of array `name`, generation gen, dtype t.
static inline void ElemBytes(DType t, const std::string& name, int gen, uint64_t i, unsigned char* out) {
  uint64_t h = Mix(i * 1315423911ULL + uint64_t(gen) * 2654435761ULL + std::hash<std::string>()(name));
  size_t n = DTypeSize(t);
  if (t == DType::kFloat32) { float f = float(int64_t(h % 2000003) - 1000000) / 7.0f; memcpy(out, &f, 4); return; }
  if (t == DType::kFloat64) { double d = double(int64_t(h % 200000003) - 100000000) / 3.0; memcpy(out, &d, 8); return; }
  memcpy(out, &h, n);
}

static inline uint64_t Prod(const std::vector<uint64_t>& v) { uint64_t p = 1; for (auto x : v) p *= x; return p; }

// Fills a row-major box (start,count) of array `name` gen.
static inline std::vector<unsigned char> FillBox(DType t, const std::string& name, int gen,
                                                 const std::vector<uint64_t>& shape,
                                                 const std::vector<uint64_t>& start,
                                                 const std::vector<uint64_t>& count) {
  size_t es = DTypeSize(t), nd = shape.size();
  uint64_t n = Prod(count);
  std::vector<unsigned char> buf(n * es);
  std::vector<uint64_t> idx(nd, 0);
  for (uint64_t k = 0; k < n; k++) {
    uint64_t lin = 0;
    for (size_t d = 0; d < nd; d++) lin = lin * shape[d] + start[d] + idx[d];
    ElemBytes(t, name, gen, lin, &buf[k * es]);
    for (int d = int(nd) - 1; d >= 0; d--) { if (++idx[d] < count[d]) break; idx[d] = 0; }
  }
  return buf;
}

struct Box { std::vector<uint64_t> start, count; };

// An irregular decomposition along dim 0 (plus a split of dim 1 when present):
// pieces assigned to ranks; at >= 3 ranks the last rank gets none.
static inline std::vector<Box> Decompose(const std::vector<uint64_t>& shape, int size, int rank, int variant) {
  std::vector<uint64_t> cuts = {0, shape[0]};
  for (int k = 0; k < 2 * size; k++) cuts.push_back(Mix(uint64_t(variant) * 31 + k) % (shape[0] + 1));
  std::sort(cuts.begin(), cuts.end());
  cuts.erase(std::unique(cuts.begin(), cuts.end()), cuts.end());
  std::vector<Box> out;
  int piece = 0;
  for (size_t j = 0; j + 1 < cuts.size(); j++) {
    int halves = shape.size() > 1 ? 2 : 1;
    for (int h = 0; h < halves; h++, piece++) {
      int owner = piece % size;
      if (size >= 3 && owner == size - 1) owner = 0;
      if (owner != rank) continue;
      Box b;
      b.start = std::vector<uint64_t>(shape.size(), 0);
      b.count = shape;
      b.start[0] = cuts[j];
      b.count[0] = cuts[j + 1] - cuts[j];
      if (halves == 2) {
        uint64_t mid = shape[1] / 2 + (variant % 3);
        if (mid > shape[1]) mid = shape[1];
        b.start[1] = h == 0 ? 0 : mid;
        b.count[1] = h == 0 ? mid : shape[1] - mid;
      }
      if (Prod(b.count) == 0) continue;
      out.push_back(b);
    }
  }
  return out;
}

static inline void PutWhole(Store* s, const std::string& name, DType t, const std::vector<uint64_t>& shape, int gen,
                            int variant, const TagList& extra = {}) {
  for (auto& b : Decompose(shape, s->size(), s->rank(), variant)) {
    auto buf = FillBox(t, name, gen, shape, b.start, b.count);
    ArrayPutOptions o;
    o.tags = extra;
    o.tags.push_back({"gen", TagValue::Int(gen)});
    OK(s->PutArray(name, t, shape, b.start, b.count, buf.data(), o));
  }
}

// Reads the whole array and 3 pseudo-random boxes, checks every byte.
static inline void CheckArray(Store* s, const std::string& name, DType t, const std::vector<uint64_t>& shape, int gen,
                              const char* where) {
  ArrayInfo info;
  Status st = s->GetArrayInfo(name, &info);
  if (!st.ok()) { CHECK(false, "%s: info %s rev %llu: %s", where, name.c_str(), (unsigned long long)s->revision(), st.ToString().c_str()); return; }
  CHECK(info.dtype == t && info.shape == shape, "%s: %s dtype/shape", where, name.c_str());
  for (int k = 0; k < 4; k++) {
    Box b;
    for (size_t d = 0; d < shape.size(); d++) {
      if (k == 0) { b.start.push_back(0); b.count.push_back(shape[d]); continue; }
      uint64_t h = Mix(uint64_t(k) * 977 + d + uint64_t(g_rank) * 13 + s->revision() * 7);
      uint64_t a = h % (shape[d] + 1), c = (h >> 20) % (shape[d] - a + 1);
      b.start.push_back(a); b.count.push_back(c);
    }
    auto want = FillBox(t, name, gen, shape, b.start, b.count);
    std::vector<unsigned char> got(want.size() + 1, 0xEE);
    st = s->GetArray(name, b.start, b.count, got.data());
    if (!st.ok()) { CHECK(false, "%s: get %s rev %llu box %d: %s", where, name.c_str(), (unsigned long long)s->revision(), k, st.ToString().c_str()); continue; }
    CHECK(memcmp(want.data(), got.data(), want.size()) == 0, "%s: %s gen %d rev %llu box %d differs", where, name.c_str(), gen,
          (unsigned long long)s->revision(), k);
    CHECK(got[want.size()] == 0xEE, "%s: %s wrote past the box", where, name.c_str());
  }
}
