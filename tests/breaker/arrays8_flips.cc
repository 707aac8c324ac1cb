// Probe 9: byte flips in a store of global arrays (odd grains, inline and
// chunked blocks, column-major puts, statistics): every read is exact or an
// error, never other bytes. usage: arrays8_flips STORE TRIALS SEED
#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <random>

#include "arrays8_common.h"

struct A { std::string name; DType t; std::vector<uint64_t> shape; uint64_t grain; };
static std::vector<A> kA = {
    {"g4k", DType::kFloat64, {96, 70}, 4096},
    {"g0", DType::kInt32, {50, 33, 5}, 0},
    {"g8k", DType::kUInt16, {300, 41}, 8192},
    {"gbig", DType::kFloat32, {10000}, 1ull << 40},
    {"small", DType::kInt8, {3, 5}, 4096},
};

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  std::string path = argv[1];
  int trials = atoi(argv[2]);
  std::mt19937_64 rng(atoi(argv[3]));
  Options o;
  o.inline_value_limit = 512;
  o.chunk_size = 64 << 10;
  {
    std::unique_ptr<Store> s;
    OK(Store::Open(o, path, MPI_COMM_SELF, &s));
    for (auto& a : kA) {
      // "ranks" simulated as 3 decompositions' worth of blocks from one process
      int v = 0;
      for (int r = 0; r < 3; r++) {
        for (auto& b : Decompose(a.shape, 3, r, 7)) {
          auto buf = FillBox(a.t, a.name, 1, a.shape, b.start, b.count);
          ArrayPutOptions po; po.checksum_grain = a.grain; po.statistics = true;
          po.order = (v++ % 2) ? ArrayOrder::kColumnMajor : ArrayOrder::kRowMajor;
          std::vector<uint64_t> sh = a.shape, st = b.start, ct = b.count;
          if (po.order == ArrayOrder::kColumnMajor) {
            std::reverse(sh.begin(), sh.end()); std::reverse(st.begin(), st.end()); std::reverse(ct.begin(), ct.end());
          }
          Status ps = s->PutArray(a.name, a.t, sh, st, ct, buf.data(), po);
          if (!ps.ok()) { printf("put %s: %s\n", a.name.c_str(), ps.ToString().c_str()); }
        }
      }
    }
    OK(s->Commit());
    OK(s->Close());
  }
  // The written segments of every file (SEEK_DATA/SEEK_HOLE), before any flip.
  struct Seg { std::string f; off_t a, b; };
  std::vector<Seg> segs;
  off_t total_len = 0;
  DIR* d = opendir(path.c_str());
  while (dirent* e = readdir(d)) {
    std::string n = e->d_name;
    if (n == "." || n == ".." || n == "LOCK") continue;
    std::string f = path + "/" + n;
    int fd = open(f.c_str(), O_RDONLY);
    struct stat sb; fstat(fd, &sb);
    for (off_t o2 = 0; o2 < sb.st_size;) {
      off_t a = lseek(fd, o2, SEEK_DATA); if (a < 0) break;
      off_t b = lseek(fd, a, SEEK_HOLE); if (b <= a) break;
      segs.push_back({f, a, b}); total_len += b - a; o2 = b;
    }
    close(fd);
  }
  closedir(d);
  printf("%zu segments, %lld bytes\n", segs.size(), (long long)total_len);
  long wrong = 0, errors = 0, clean = 0;
  std::map<std::string, int> codes;
  for (int t = 0; t < trials; t++) {
    off_t pick = rng() % total_len, off = 0;
    std::string f;
    for (auto& sg : segs) { if (pick < sg.b - sg.a) { f = sg.f; off = sg.a + pick; break; } pick -= sg.b - sg.a; }
    int fd = open(f.c_str(), O_RDWR);
    unsigned char c; pread(fd, &c, 1, off);
    unsigned char x = c ^ (1u << (rng() % 8));
    pwrite(fd, &x, 1, off);
    bool any_err = false;
    Options ro; ro.read_only = true;
    std::unique_ptr<Store> s;
    Status st = Store::Open(ro, path, MPI_COMM_SELF, &s);
    if (!st.ok()) { any_err = true; codes[st.ToString().substr(0, 12)]++; if (st.ToString().rfind("NotSupp", 0) == 0 && t < 100000) printf("open: %s (flip %s at %lld)\n", st.ToString().c_str(), f.c_str(), (long long)off); }
    else {
      for (auto& a : kA) {
        for (int k = 0; k < 3; k++) {
          std::vector<uint64_t> bs, bc;
          for (size_t dd = 0; dd < a.shape.size(); dd++) {
            uint64_t lo = k == 0 ? 0 : rng() % a.shape[dd];
            uint64_t n = k == 0 ? a.shape[dd] : 1 + rng() % (a.shape[dd] - lo);
            bs.push_back(lo); bc.push_back(n);
          }
          auto want = FillBox(a.t, a.name, 1, a.shape, bs, bc);
          std::vector<unsigned char> got(want.size());
          ArrayReadOptions rop; rop.gap_limit = (k == 2) ? 0 : ~0ull;
          Status gs = s->GetArray(a.name, bs, bc, got.data(), rop);
          if (!gs.ok()) { any_err = true; codes[gs.ToString().substr(0, 12)]++; continue; }
          if (got != want) {
            wrong++;
            printf("WRONG DATA: %s box %d after flip of %s at %lld\n", a.name.c_str(), k, f.c_str(), (long long)off);
          }
        }
        ArrayInfo info;
        Status is = s->GetArrayInfo(a.name, &info, true);
        if (!is.ok()) { any_err = true; codes[is.ToString().substr(0, 12)]++; }
      }
    }
    (any_err ? errors : clean)++;
    pwrite(fd, &c, 1, off);
    close(fd);
  }
  printf("p9: %d trials: %ld with an error, %ld clean, %ld wrong reads\n", trials, errors, clean, wrong);
  for (auto& [k, v] : codes) printf("  %s: %d\n", k.c_str(), v);
  MPI_Finalize();
  return wrong ? 1 : 0;
}
