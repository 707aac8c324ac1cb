// Probe 2: odd selections, every dtype, up to 16 dims, empty blocks/arrays,
// column-major, overflow-y shapes and boxes. usage: arrays8_selections STORE
#include "arrays8_common.h"

static const DType kAll[] = {DType::kInt8, DType::kInt16, DType::kInt32, DType::kInt64, DType::kUInt8,
                             DType::kUInt16, DType::kUInt32, DType::kUInt64, DType::kFloat32, DType::kFloat64};

static std::vector<uint64_t> Rev(std::vector<uint64_t> v) { std::reverse(v.begin(), v.end()); return v; }

// Transposes a row-major box buffer to column-major (reverse all axes).
static std::vector<unsigned char> ToColMajor(const std::vector<unsigned char>& rm, const std::vector<uint64_t>& count, size_t es) {
  size_t nd = count.size();
  uint64_t n = Prod(count);
  std::vector<unsigned char> cm(rm.size());
  std::vector<uint64_t> idx(nd, 0);
  for (uint64_t k = 0; k < n; k++) {
    // column-major offset: first index fastest
    uint64_t off = 0;
    for (int d = int(nd) - 1; d >= 0; d--) off = off * count[d] + idx[d];
    memcpy(&cm[off * es], &rm[k * es], es);
    for (int d = int(nd) - 1; d >= 0; d--) { if (++idx[d] < count[d]) break; idx[d] = 0; }
  }
  return cm;
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &g_rank);
  MPI_Comm_size(MPI_COMM_WORLD, &g_size);
  std::string path = argv[1];
  Options o;
  o.inline_value_limit = 64;
  std::unique_ptr<Store> s;
  OK(Store::Open(o, path, MPI_COMM_WORLD, &s));
  std::vector<std::vector<uint64_t>> shapes = {
      {17}, {4, 9}, {3, 1, 5}, {2, 3, 1, 2, 3, 2, 1, 2}, {1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 3},
      {2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2}};
  int gen = 1;
  // every dtype x shape, row-major puts, irregular blocks
  for (auto t : kAll) {
    for (size_t si = 0; si < shapes.size(); si++) {
      std::string name = std::string("a_") + DTypeName(t) + "_" + std::to_string(si);
      auto& shape = shapes[si];
      auto blocks = Decompose(shape, g_size, g_rank, int(si) + 3);
      bool col = (si % 2) == 1;
      for (auto& b : blocks) {
        auto buf = FillBox(t, name, gen, shape, b.start, b.count);
        ArrayPutOptions po;
        po.statistics = true;
        if (col) {
          po.order = ArrayOrder::kColumnMajor;
          auto& cm = buf;  // Fortran a(c_k..c_0) has C's a[c_0]..[c_k] layout
          OK(s->PutArray(name, t, Rev(shape), Rev(b.start), Rev(b.count), cm.data(), po));
        } else {
          OK(s->PutArray(name, t, shape, b.start, b.count, buf.data(), po));
        }
      }
      // an empty block too, with a null pointer, on every rank
      std::vector<uint64_t> zs(shape.size(), 0), zc = shape;
      zc[0] = 0;
      Status st = s->PutArray(name, t, shape, zs, zc, nullptr);
      if (!st.ok() && si == 0 && t == DType::kInt8) printf("[r%d] empty block put: %s\n", g_rank, st.ToString().c_str());
    }
  }
  // An array put only as empty boxes (no data at all)
  Status st = s->PutArray("empty_only", DType::kFloat32, {5, 5}, {2, 2}, {0, 3}, nullptr);
  if (g_rank == 0) printf("empty_only put: %s\n", st.ToString().c_str());
  // A shape with a zero dimension
  st = s->PutArray("zero_shape", DType::kFloat32, {0, 5}, {0, 0}, {0, 5}, nullptr);
  if (g_rank == 0) printf("zero_shape put: %s\n", st.ToString().c_str());
  // overflow shapes
  st = s->PutArray("ovf", DType::kInt8, {1ull << 62, 8}, {0, 0}, {1, 1}, "x");
  if (g_rank == 0) printf("shape 2^62 x 8 int8 (2^65 bytes): %s\n", st.ToString().c_str());
  CHECK(!st.ok(), "shape with 2^65 bytes accepted");
  st = s->PutArray("ovf2", DType::kInt64, {1ull << 61, 1}, {0, 0}, {1, 1}, "xxxxxxxx");
  if (g_rank == 0) printf("shape 2^61 int64 (2^64 bytes): %s\n", st.ToString().c_str());
  st = s->PutArray("ovf3", DType::kInt8, {10}, {~0ull}, {2}, "xx");
  if (g_rank == 0) printf("start 2^64-1 count 2 in shape 10: %s\n", st.ToString().c_str());
  CHECK(!st.ok(), "wrapping box accepted");
  st = s->PutArray("ovf4", DType::kInt8, {1ull << 32, 1ull << 32}, {0, 0}, {1, 1}, "x");
  if (g_rank == 0) printf("shape 2^32 x 2^32 int8 (2^64 bytes): %s\n", st.ToString().c_str());
  CHECK(!st.ok(), "2^64 bytes accepted (passes 2^64?)");
  uint64_t rev;
  st = s->Commit(&rev);
  if (g_rank == 0) printf("commit: %s\n", st.ToString().c_str());
  OK(st);

  // Reads, on a fresh read-only handle too.
  for (int pass = 0; pass < 2; pass++) {
    std::unique_ptr<Store> ro;
    Store* r = s.get();
    if (pass == 1) {
      Options oo; oo.read_only = true;
      OK(Store::Open(oo, path, MPI_COMM_WORLD, &ro));
      r = ro.get();
      if (!r) break;
    }
    for (auto t : kAll) {
      for (size_t si = 0; si < shapes.size(); si++) {
        std::string name = std::string("a_") + DTypeName(t) + "_" + std::to_string(si);
        auto& shape = shapes[si];
        size_t es = DTypeSize(t), nd = shape.size();
        ArrayInfo info;
        OK(r->GetArrayInfo(name, &info, true));
        CHECK(info.shape == shape && info.dtype == t, "%s info", name.c_str());
        for (auto& b : info.blocks) {
          CHECK(Prod(b.count) > 0 || true, "");
          if (Prod(b.count) == 0) { CHECK(!b.has_statistics || true, ""); }
        }
        // many boxes, both orders, including edges and zero counts
        for (int k = 0; k < 40; k++) {
          std::vector<uint64_t> start(nd), count(nd);
          for (size_t d = 0; d < nd; d++) {
            uint64_t h = Mix(uint64_t(k) * 1009 + d * 17 + si * 3 + uint64_t(t) + g_rank);
            switch (k % 5) {
              case 0: start[d] = 0; count[d] = shape[d]; break;
              case 1: start[d] = shape[d]; count[d] = 0; break;                // at the very edge
              case 2: start[d] = shape[d] - 1; count[d] = 1; break;            // last element
              default: start[d] = h % shape[d]; count[d] = 1 + (h >> 16) % (shape[d] - start[d]); break;
            }
          }
          if (k % 5 == 3) count[nd - 1] = 0;  // a zero count in the last dim
          auto want = FillBox(t, name, gen, shape, start, count);
          for (int ord = 0; ord < 2; ord++) {
            std::vector<unsigned char> got(want.size() + 8, 0xEE);
            ArrayReadOptions ro2;
            ro2.gap_limit = (k % 3) ? 0 : 1 << 20;
            Status gs;
            if (ord == 0) {
              gs = r->GetArray(name, start, count, want.empty() ? nullptr : got.data(), ro2);
            } else {
              ro2.order = ArrayOrder::kColumnMajor;
              gs = r->GetArray(name, Rev(start), Rev(count), want.empty() ? nullptr : got.data(), ro2);
            }
            if (!gs.ok()) { CHECK(false, "%s k=%d ord=%d: %s", name.c_str(), k, ord, gs.ToString().c_str()); continue; }
            auto& w = want; (void)es;
            CHECK(memcmp(w.data(), got.data(), w.size()) == 0, "%s k=%d ord=%d differs", name.c_str(), k, ord);
            CHECK(got[w.size()] == 0xEE, "%s k=%d wrote past", name.c_str(), k);
          }
        }
        // boxes past the edge must fail
        std::vector<uint64_t> start(nd, 0), count = shape;
        count[nd - 1] += 1;
        std::vector<unsigned char> big(Prod(count) * es + 8);
        CHECK(!r->GetArray(name, start, count, big.data()).ok(), "%s box past shape accepted", name.c_str());
        start.assign(nd, 0); count = shape; start[0] = ~0ull; count[0] = 2;
        Status ws = r->GetArray(name, start, count, big.data());
        CHECK(!ws.ok(), "%s wrapping box accepted", name.c_str());
        start.assign(nd, 0); count = shape; start[0] = shape[0] + 1; count[0] = 0;
        ws = r->GetArray(name, start, count, nullptr);
        CHECK(!ws.ok(), "%s empty box starting past the edge accepted", name.c_str());
        std::vector<uint64_t> wrongnd(nd + 1, 0);
        CHECK(!r->GetArray(name, wrongnd, wrongnd, big.data()).ok(), "%s wrong ndims accepted", name.c_str());
      }
    }
    ArrayInfo info;
    Status is = r->GetArrayInfo("empty_only", &info, true);
    if (is.ok()) {
      float f[15]; for (auto& x : f) x = 7;
      OK(r->GetArray("empty_only", {0, 0}, {3, 5}, f));
      bool z = true; for (auto x : f) z &= x == 0;
      CHECK(z, "empty_only: elements no block covers are not zero");
      if (g_rank == 0 && pass == 0) printf("empty_only: %llu blocks\n", (unsigned long long)info.block_count);
    } else if (g_rank == 0 && pass == 0) printf("empty_only info: %s\n", is.ToString().c_str());
    is = r->GetArrayInfo("zero_shape", &info, true);
    if (g_rank == 0 && pass == 0) printf("zero_shape info: %s blocks %llu\n", is.ToString().c_str(), (unsigned long long)info.block_count);
    if (is.ok()) OK(r->GetArray("zero_shape", {0, 0}, {0, 5}, nullptr));
    std::vector<std::string> names;
    OK(r->QueryArrays({}, &names));
    if (g_rank == 0 && pass == 0) printf("arrays: %zu\n", names.size());
  }
  OK(s->Close());
  long total = 0;
  MPI_Allreduce(&g_fail, &total, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
  if (g_rank == 0) printf("p2 on %d ranks: %ld failures\n", g_size, total);
  MPI_Finalize();
  return total ? 1 : 0;
}
