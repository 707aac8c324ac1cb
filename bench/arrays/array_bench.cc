// The global-array benchmark (issue 12, item 7): a 3-D float64 array of
// --mib MiB per rank written by the N ranks of one job and read by the M
// ranks of another, through cairn's global arrays or parallel HDF5.
//
//   array_bench --system=S --phase=write --dir=D [--mib=256]
//   array_bench --system=S --phase=read  --dir=D --writers=N [--mib=256] [--seed=1]
//   array_bench --phase=plan --dir=D [--side=16] [--write=1] [--read=1] [--shift=1] [--cut=0] [--big=0]
//
// Systems: cairn (default options), cairn-c64k (Options::chunk_size =
// 64 KiB: reads verify, and so read, whole checksum chunks); hdf5-contig and hdf5-chunk (one dataset, contiguous or
// in 64^3 chunks; written with collective hyperslab transfers, read with
// collective and then independent ones (--modes=coll,ind, in that order),
// reported as hdf5-contig-coll, hdf5-contig-ind, ...; the four names are
// also systems of their own); hdf5-f32 (the chunked layout with HDF5's own
// checksum, the Fletcher-32 filter, checked on every read: HDF5 paying for
// verification as cairn always does). The writers form a 3-D process grid
// (1, 2x1x1, 2x2x1, 2x2x2), each putting one block of --mib MiB. A read
// process runs, each from a cold open (files evicted from the page cache
// first), the patterns: full (the M readers split the array on the same
// kind of grid), slab0/slab1/slab2 (the middle 1/16 of each axis, split
// among the readers), boxes (1 % of the array in boxes of 1/16 of each
// axis at random places, dealt round-robin). Every read checks a sample of
// the elements (element (i, j, k) = (i*G1 + j)*G2 + k) after the timing.
//
// Measured per pattern: time (earliest start to latest end, open and close
// included), bytes wanted, and the read requests and bytes that reached the
// file system: pread/pread64/preadv/preadv2 are interposed in this program
// (exported with -rdynamic, so they also catch the calls of libhdf5 and of
// Open MPI's I/O components) and counted for every file under --dir. For
// cairn, Store::stats() is reported too. One `RESULT {json}` line per
// pattern on rank 0.
//
// --phase=plan [--side=16] [--write=0|1] [--read=0|1] [--shift=0|1]
// [--cut=0|1] [--big=0|1]: a job writes an array of side^3 blocks of 8x8x8 (dealt
// round-robin over its ranks) and/or a job (of another size) times GetArray
// of boxes touching 2^3, 3^3, 5^3, ... blocks (shifted by half a block;
// --shift=0: 1, 2^3, 4^3, ... whole blocks) with the data in the page
// cache: the planning cost per block touched (README.md). --cut=1 (at
// write): each block is put as two, rows [0, 3) and [3, 8), so the array is
// irregular (the bounding-box index); --big=1 (at write): rank 0 puts the
// whole array as one block. Under callgrind, one profile dump per GetArray
// (plan_instructions.py counts the instructions per block touched).
#include <dlfcn.h>
#include <fcntl.h>
#include <mpi.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cinttypes>
#include <cmath>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <map>
#include <memory>
#include <mutex>
#include <random>
#include <set>
#include <string>
#include <unordered_set>
#include <vector>

#include "cairn/store.h"

// Under valgrind --tool=callgrind, --phase=plan dumps the instructions of
// each GetArray (plan_instructions.py); elsewhere the macros do nothing.
#if __has_include(<valgrind/callgrind.h>)
#include <valgrind/callgrind.h>
#else
#define CALLGRIND_ZERO_STATS
#define CALLGRIND_DUMP_STATS_AT(s) ((void)(s))
#endif
#ifdef CAIRN_BENCH_HDF5
#include <hdf5.h>
#endif

// ---- read counting (interposed libc calls) --------------------------------

namespace {
std::atomic<uint64_t> g_requests{0}, g_bytes{0};
std::atomic<bool> g_counting{false};
std::string g_dir;  // count only files under this directory
// The distinct 4 KiB pages of each file the counted calls returned bytes
// of: what the device had to deliver (the page cache is cold).
std::mutex g_pages_mu;
std::map<std::string, std::unordered_set<uint64_t>> g_pages;
uint64_t PagesRead() {
  std::lock_guard<std::mutex> l(g_pages_mu);
  uint64_t n = 0;
  for (const auto& [f, p] : g_pages) n += p.size();
  return n;
}

bool Ours(int fd, char* path) {
  if (!g_counting.load(std::memory_order_relaxed)) return false;
  char link[64];
  std::snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
  ssize_t n = readlink(link, path, 4095);
  if (n <= 0) return false;
  path[n] = 0;
  return std::strncmp(path, g_dir.c_str(), g_dir.size()) == 0;
}
// off < 0: a read() at the file position (found after the call).
void Count(int fd, ssize_t r, off_t off) {
  char path[4096];
  if (r >= 0 && Ours(fd, path)) {
    g_requests++;
    g_bytes += uint64_t(r);
    if (off < 0) off = lseek(fd, 0, SEEK_CUR) - r;
    if (r > 0 && off >= 0) {
      std::lock_guard<std::mutex> l(g_pages_mu);
      auto& set = g_pages[path];
      for (uint64_t p = uint64_t(off) / 4096; p <= (uint64_t(off) + uint64_t(r) - 1) / 4096; p++) set.insert(p);
    }
  }
}
template <class F>
F Real(const char* name) {
  return reinterpret_cast<F>(dlsym(RTLD_NEXT, name));
}
}  // namespace

extern "C" {
ssize_t pread(int fd, void* buf, size_t n, off_t off) {
  static auto real = Real<ssize_t (*)(int, void*, size_t, off_t)>("pread");
  ssize_t r = real(fd, buf, n, off);
  Count(fd, r, off);
  return r;
}
ssize_t pread64(int fd, void* buf, size_t n, off_t off) {
  static auto real = Real<ssize_t (*)(int, void*, size_t, off_t)>("pread64");
  ssize_t r = real(fd, buf, n, off);
  Count(fd, r, off);
  return r;
}
ssize_t preadv(int fd, const struct iovec* iov, int cnt, off_t off) {
  static auto real = Real<ssize_t (*)(int, const struct iovec*, int, off_t)>("preadv");
  ssize_t r = real(fd, iov, cnt, off);
  Count(fd, r, off);
  return r;
}
ssize_t preadv64(int fd, const struct iovec* iov, int cnt, off_t off) {
  static auto real = Real<ssize_t (*)(int, const struct iovec*, int, off_t)>("preadv64");
  ssize_t r = real(fd, iov, cnt, off);
  Count(fd, r, off);
  return r;
}
ssize_t preadv2(int fd, const struct iovec* iov, int cnt, off_t off, int flags) {
  static auto real = Real<ssize_t (*)(int, const struct iovec*, int, off_t, int)>("preadv2");
  ssize_t r = real(fd, iov, cnt, off, flags);
  Count(fd, r, off);
  return r;
}
ssize_t read(int fd, void* buf, size_t n) {
  static auto real = Real<ssize_t (*)(int, void*, size_t)>("read");
  ssize_t r = real(fd, buf, n);
  Count(fd, r, -1);
  return r;
}
}

namespace {

int g_rank = 0, g_size = 1;

[[noreturn]] void Die(const char* fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  std::fprintf(stderr, "array_bench rank %d: ", g_rank);
  std::vfprintf(stderr, fmt, ap);
  std::fprintf(stderr, "\n");
  va_end(ap);
  MPI_Abort(MPI_COMM_WORLD, 1);
  std::abort();
}

std::map<std::string, std::string> g_args;
std::string Arg(const std::string& k, const std::string& d) {
  auto it = g_args.find(k);
  return it == g_args.end() ? d : it->second;
}
uint64_t ArgU(const std::string& k, uint64_t d) { return std::strtoull(Arg(k, std::to_string(d)).c_str(), nullptr, 10); }

using Vec = std::vector<uint64_t>;
struct Box {
  Vec start, count;
  uint64_t elements() const { return count[0] * count[1] * count[2]; }
};

// The process grid of n ranks: 1, 2x1x1, 2x2x1, 2x2x2, (for others: n x 1 x 1).
Vec Grid(int n) {
  switch (n) {
    case 1: return {1, 1, 1};
    case 2: return {2, 1, 1};
    case 4: return {2, 2, 1};
    case 8: return {2, 2, 2};
    default: return {uint64_t(n), 1, 1};
  }
}

// The block of one writer: about --mib MiB, a power-of-two brick (512 x 256
// x 256 for 256 MiB).
Vec BlockShape(uint64_t mib) {
  uint64_t elems = mib * (1ull << 20) / 8;
  int e = 0;
  while ((2ull << e) <= elems) e++;
  int a = e / 3;
  return {1ull << (e - 2 * a), 1ull << a, 1ull << a};
}

// Cuts box `b` of a 3-D array into a grid of g pieces; piece `p` (row-major
// over the grid).
Box Piece(const Box& b, const Vec& g, int p) {
  Box r = b;
  uint64_t idx[3] = {uint64_t(p) / (g[1] * g[2]), uint64_t(p) / g[2] % g[1], uint64_t(p) % g[2]};
  for (int d = 0; d < 3; d++) {
    uint64_t lo = b.count[d] * idx[d] / g[d], hi = b.count[d] * (idx[d] + 1) / g[d];
    r.start[d] = b.start[d] + lo;
    r.count[d] = hi - lo;
  }
  return r;
}

double Value(const Vec& G, uint64_t i, uint64_t j, uint64_t k) { return double((i * G[1] + j) * G[2] + k); }

void Fill(const Vec& G, const Box& b, double* p) {
  for (uint64_t i = 0; i < b.count[0]; i++)
    for (uint64_t j = 0; j < b.count[1]; j++)
      for (uint64_t k = 0; k < b.count[2]; k++)
        *p++ = Value(G, b.start[0] + i, b.start[1] + j, b.start[2] + k);
}

// Checks a sample of a box read into p (every 997th element, and the last).
bool Check(const Vec& G, const Box& b, const double* p) {
  uint64_t n = b.elements();
  for (uint64_t e = 0; e < n; e = (e + 997 < n || e == n - 1) ? e + 997 : n - 1) {
    uint64_t k = e % b.count[2], j = e / b.count[2] % b.count[1], i = e / (b.count[1] * b.count[2]);
    if (p[e] != Value(G, b.start[0] + i, b.start[1] + j, b.start[2] + k)) return false;
    if (e == n - 1) break;
  }
  return true;
}

// Drops every file under `dir` from the page cache. With --prime=1 each
// file is first read whole (uncounted): the virtual disk here keeps bytes
// read recently below this machine's page cache, so a read's speed depends
// on what the jobs before it read (bench/arrays/HISTORY.md, "Results: what
// the cold read measures"); primed, every timed read starts from the same
// state: out of the page cache, just read at the device.
void Evict(const std::string& dir) {
  if (g_rank == 0) {
    const bool prime = Arg("prime", "0") == "1";
    std::vector<char> buf(prime ? 4u << 20 : 0);
    std::error_code ec;
    for (auto it = std::filesystem::recursive_directory_iterator(dir, ec);
         !ec && it != std::filesystem::recursive_directory_iterator(); it.increment(ec)) {
      if (!it->is_regular_file(ec)) continue;
      int fd = open(it->path().c_str(), O_RDONLY);
      if (fd < 0) continue;
      for (off_t at = 0; prime;) {
        ssize_t n = pread(fd, buf.data(), buf.size(), at);
        if (n <= 0) break;
        at += n;
      }
      fdatasync(fd);
      posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
      close(fd);
    }
  }
  MPI_Barrier(MPI_COMM_WORLD);
}

// The boxes this rank reads in one pattern.
std::vector<Box> Pattern(const std::string& pat, const Vec& G, int m, int rank, uint64_t seed) {
  Box whole{{0, 0, 0}, G};
  std::vector<Box> out;
  if (pat == "full") {
    out.push_back(Piece(whole, Grid(m), rank));
  } else if (pat.rfind("slab", 0) == 0) {
    int axis = pat[4] - '0';
    Box slab = whole;
    slab.count[axis] = std::max<uint64_t>(1, G[axis] / 16);
    slab.start[axis] = G[axis] / 2;
    // Split among the readers along the first other axis.
    Vec g = {1, 1, 1};
    g[axis == 0 ? 1 : 0] = uint64_t(m);
    out.push_back(Piece(slab, g, rank));
  } else if (pat == "boxes") {
    Vec edge = {std::max<uint64_t>(1, G[0] / 16), std::max<uint64_t>(1, G[1] / 16), std::max<uint64_t>(1, G[2] / 16)};
    double box = double(edge[0] * edge[1] * edge[2]);
    uint64_t nbox = std::max<uint64_t>(1, uint64_t(std::llround(0.01 * double(G[0] * G[1] * G[2]) / box)));
    std::mt19937_64 rng(seed);
    for (uint64_t b = 0; b < nbox; b++) {
      Box x{{0, 0, 0}, edge};
      for (int d = 0; d < 3; d++) x.start[d] = rng() % (G[d] - edge[d] + 1);
      if (int(b % uint64_t(m)) == rank) out.push_back(x);
    }
  } else {
    Die("unknown pattern %s", pat.c_str());
  }
  return out;
}

// ---- the systems ------------------------------------------------------------

struct Counters {
  uint64_t requests = 0, bytes = 0;  // interposed, this rank
  uint64_t cairn_requests = 0, cairn_bytes = 0;  // Store::stats(), this rank
  uint64_t blocks_examined = 0, blocks_read = 0;  // Store::array_read_stats(), this rank
  uint64_t data_offset = 0;  // hdf5-contig: the dataset's file offset (H5Dget_offset)
};

// The 4 KiB pages that hold the boxes' bytes in a system's file layout:
// what any reader must pull from the device. The array is stored in tiles
// of shape T (row-major inside a tile), each tile starting on a page (cairn:
// the writers' blocks, each the first object of its rank's extents;
// hdf5-chunk: its 64^3 chunks, whose addresses are assumed page-aligned;
// hdf5-contig: one tile, the whole array, at the dataset's offset).
uint64_t PagesWanted(const Vec& G, const Vec& T, uint64_t base, const std::vector<Box>& boxes) {
  std::set<std::pair<uint64_t, uint64_t>> pages;  // (tile, page)
  Vec nt = {(G[0] + T[0] - 1) / T[0], (G[1] + T[1] - 1) / T[1], (G[2] + T[2] - 1) / T[2]};
  for (const Box& b : boxes) {
    uint64_t lo[3], hi[3];
    for (int d = 0; d < 3; d++) lo[d] = b.start[d] / T[d], hi[d] = (b.start[d] + b.count[d] - 1) / T[d];
    for (uint64_t t0 = lo[0]; t0 <= hi[0]; t0++)
      for (uint64_t t1 = lo[1]; t1 <= hi[1]; t1++)
        for (uint64_t t2 = lo[2]; t2 <= hi[2]; t2++) {
          uint64_t ts[3] = {t0 * T[0], t1 * T[1], t2 * T[2]}, tc[3], is[3], ie[3];
          for (int d = 0; d < 3; d++) {
            tc[d] = std::min(T[d], G[d] - ts[d]);
            is[d] = std::max(ts[d], b.start[d]);
            ie[d] = std::min(ts[d] + tc[d], b.start[d] + b.count[d]);
          }
          uint64_t tile = (t0 * nt[1] + t1) * nt[2] + t2;
          for (uint64_t i = is[0]; i < ie[0]; i++)
            for (uint64_t j = is[1]; j < ie[1]; j++) {
              uint64_t off = base + (((i - ts[0]) * tc[1] + (j - ts[1])) * tc[2] + (is[2] - ts[2])) * 8;
              uint64_t end = off + (ie[2] - is[2]) * 8;
              for (uint64_t p = off / 4096; p <= (end - 1) / 4096; p++) pages.insert({tile, p});
            }
        }
  }
  return pages.size();
}

class System {
 public:
  virtual ~System() = default;
  // Writes block `b` (data p) of an array of global shape G; durable on return.
  virtual void Write(const std::string& dir, const Vec& G, const Box& b, const double* p) = 0;
  // Reads the boxes into the buffers (one per box).
  virtual void Read(const std::string& dir, const std::vector<Box>& boxes, std::vector<double*>& out,
                    Counters* c) = 0;
};

#define CAIRN_OK(expr)                                                          \
  do {                                                                          \
    cairn::Status s_ = (expr);                                                  \
    if (!s_.ok()) Die("%s: %s", #expr, s_.ToString().c_str());                  \
  } while (0)

class Cairn : public System {
 public:
  // chunk_size: Options::chunk_size of the writer (0: the default, 4 MiB);
  // grain: ArrayPutOptions::checksum_grain (UINT64_MAX: its default), the
  // granularity at which reads verify checksums.
  explicit Cairn(uint64_t chunk_size = 0, uint64_t grain = UINT64_MAX) : chunk_size_(chunk_size), grain_(grain) {}
  void Write(const std::string& dir, const Vec& G, const Box& b, const double* p) override {
    std::unique_ptr<cairn::Store> st;
    cairn::Options o;
    if (chunk_size_) o.chunk_size = chunk_size_;
    CAIRN_OK(cairn::Store::Open(o, dir + "/store", MPI_COMM_WORLD, &st));
    cairn::ArrayPutOptions po;
    if (grain_ != UINT64_MAX) po.checksum_grain = grain_;
    CAIRN_OK(st->PutArray("a", cairn::DType::kFloat64, G, b.start, b.count, p, po));
    CAIRN_OK(st->Commit());
    CAIRN_OK(st->Close());
  }
  void Read(const std::string& dir, const std::vector<Box>& boxes, std::vector<double*>& out,
            Counters* c) override {
    cairn::Options o;
    o.read_only = true;
    o.create_if_missing = false;
    std::unique_ptr<cairn::Store> st;
    CAIRN_OK(cairn::Store::Open(o, dir + "/store", MPI_COMM_WORLD, &st));
    for (size_t i = 0; i < boxes.size(); i++) CAIRN_OK(st->GetArray("a", boxes[i].start, boxes[i].count, out[i]));
    cairn::IoStats s = st->stats();
    c->cairn_requests = s.read_requests;
    c->cairn_bytes = s.read_bytes;
    cairn::ArrayReadStats as = st->array_read_stats();
    c->blocks_examined = as.blocks_examined;
    c->blocks_read = as.blocks_read;
    CAIRN_OK(st->Close());
  }

 private:
  uint64_t chunk_size_, grain_;
};

#ifdef CAIRN_BENCH_HDF5
#define H5_OK(expr)                                        \
  do {                                                     \
    if ((expr) < 0) Die("HDF5 call failed: %s", #expr);    \
  } while (0)

class Hdf5 : public System {
 public:
  Hdf5(bool chunked, bool collective, bool fletcher32 = false)
      : chunked_(chunked || fletcher32), collective_(collective), fletcher32_(fletcher32) {}

  hid_t Fapl() {
    hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
    H5_OK(H5Pset_fapl_mpio(fapl, MPI_COMM_WORLD, MPI_INFO_NULL));
    H5_OK(H5Pset_all_coll_metadata_ops(fapl, true));
    H5_OK(H5Pset_coll_metadata_write(fapl, true));
    return fapl;
  }
  hid_t Dxpl() {
    hid_t dxpl = H5Pcreate(H5P_DATASET_XFER);
    H5_OK(H5Pset_dxpl_mpio(dxpl, collective_ ? H5FD_MPIO_COLLECTIVE : H5FD_MPIO_INDEPENDENT));
    return dxpl;
  }
  void Write(const std::string& dir, const Vec& G, const Box& b, const double* p) override {
    hid_t fapl = Fapl();
    hid_t file = H5Fcreate((dir + "/a.h5").c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, fapl);
    H5_OK(file);
    hsize_t dims[3] = {G[0], G[1], G[2]};
    hid_t fspace = H5Screate_simple(3, dims, nullptr);
    hid_t dcpl = H5Pcreate(H5P_DATASET_CREATE);
    if (chunked_) {
      hsize_t chunk[3] = {std::min<hsize_t>(64, G[0]), std::min<hsize_t>(64, G[1]), std::min<hsize_t>(64, G[2])};
      H5_OK(H5Pset_chunk(dcpl, 3, chunk));
      if (fletcher32_) H5_OK(H5Pset_fletcher32(dcpl));
    } else {
      H5_OK(H5Pset_layout(dcpl, H5D_CONTIGUOUS));
    }
    H5_OK(H5Pset_alloc_time(dcpl, H5D_ALLOC_TIME_EARLY));
    H5_OK(H5Pset_fill_time(dcpl, H5D_FILL_TIME_NEVER));
    hid_t dset = H5Dcreate2(file, "a", H5T_NATIVE_DOUBLE, fspace, H5P_DEFAULT, dcpl, H5P_DEFAULT);
    H5_OK(dset);
    hsize_t start[3] = {b.start[0], b.start[1], b.start[2]}, count[3] = {b.count[0], b.count[1], b.count[2]};
    H5_OK(H5Sselect_hyperslab(fspace, H5S_SELECT_SET, start, nullptr, count, nullptr));
    hid_t mspace = H5Screate_simple(3, count, nullptr);
    hid_t dxpl = Dxpl();
    H5_OK(H5Dwrite(dset, H5T_NATIVE_DOUBLE, mspace, fspace, dxpl, p));
    H5Pclose(dxpl);
    H5Sclose(mspace);
    H5Dclose(dset);
    H5Pclose(dcpl);
    H5Sclose(fspace);
    H5_OK(H5Fflush(file, H5F_SCOPE_GLOBAL));
    H5_OK(H5Fclose(file));
    H5Pclose(fapl);
  }
  void Read(const std::string& dir, const std::vector<Box>& boxes, std::vector<double*>& out,
            Counters* c) override {
    hid_t fapl = Fapl();
    hid_t file = H5Fopen((dir + "/a.h5").c_str(), H5F_ACC_RDONLY, fapl);
    H5_OK(file);
    hid_t dset = H5Dopen2(file, "a", H5P_DEFAULT);
    H5_OK(dset);
    if (!chunked_) c->data_offset = uint64_t(H5Dget_offset(dset));
    hid_t fspace = H5Dget_space(dset);
    hid_t dxpl = Dxpl();
    // Collective transfers need every rank in every H5Dread: ranks with
    // fewer boxes take part with an empty selection.
    uint64_t mine = boxes.size(), most = mine;
    if (collective_) MPI_Allreduce(&mine, &most, 1, MPI_UINT64_T, MPI_MAX, MPI_COMM_WORLD);
    for (uint64_t i = 0; i < most; i++) {
      if (i < mine) {
        const Box& b = boxes[i];
        hsize_t start[3] = {b.start[0], b.start[1], b.start[2]}, count[3] = {b.count[0], b.count[1], b.count[2]};
        H5_OK(H5Sselect_hyperslab(fspace, H5S_SELECT_SET, start, nullptr, count, nullptr));
        hid_t mspace = H5Screate_simple(3, count, nullptr);
        H5_OK(H5Dread(dset, H5T_NATIVE_DOUBLE, mspace, fspace, dxpl, out[i]));
        H5Sclose(mspace);
      } else {
        H5_OK(H5Sselect_none(fspace));
        hsize_t one = 1;
        hid_t mspace = H5Screate_simple(1, &one, nullptr);
        H5_OK(H5Sselect_none(mspace));
        double dummy;
        H5_OK(H5Dread(dset, H5T_NATIVE_DOUBLE, mspace, fspace, dxpl, &dummy));
        H5Sclose(mspace);
      }
    }
    H5Pclose(dxpl);
    H5Sclose(fspace);
    H5Dclose(dset);
    H5_OK(H5Fclose(file));
    H5Pclose(fapl);
  }

 private:
  bool chunked_, collective_, fletcher32_;
};
#endif

std::unique_ptr<System> MakeSystem(const std::string& name) {
  if (name == "cairn") return std::make_unique<Cairn>();
  // cairn with 64 KiB checksum chunks instead of 4 MiB (Options::chunk_size).
  if (name == "cairn-c64k") return std::make_unique<Cairn>(64 << 10);
  // cairn with another checksum grain (ArrayPutOptions::checksum_grain;
  // g0: none, the 4 MiB chunks of Options::chunk_size, as before the grain).
  if (name == "cairn-g0") return std::make_unique<Cairn>(0, 0);
  if (name == "cairn-g4k") return std::make_unique<Cairn>(0, 4 << 10);
  if (name == "cairn-g16k") return std::make_unique<Cairn>(0, 16 << 10);
  if (name == "cairn-g64k") return std::make_unique<Cairn>(0, 64 << 10);
#ifdef CAIRN_BENCH_HDF5
  if (name == "hdf5-contig-coll") return std::make_unique<Hdf5>(false, true);
  if (name == "hdf5-contig-ind") return std::make_unique<Hdf5>(false, false);
  if (name == "hdf5-chunk-coll") return std::make_unique<Hdf5>(true, true);
  if (name == "hdf5-chunk-ind") return std::make_unique<Hdf5>(true, false);
  // Writes of the two layouts use collective transfers.
  if (name == "hdf5-contig") return std::make_unique<Hdf5>(false, true);
  if (name == "hdf5-chunk") return std::make_unique<Hdf5>(true, true);
  if (name == "hdf5-f32-coll" || name == "hdf5-f32") return std::make_unique<Hdf5>(true, true, true);
  if (name == "hdf5-f32-ind") return std::make_unique<Hdf5>(true, false, true);
#endif
  Die("unknown (or not built) system '%s'", name.c_str());
}

// Times f() IOR-style: barrier, per-rank start/end, barrier; the phase lasts
// from the earliest start to the latest end.
template <class F>
double Timed(F f) {
  MPI_Barrier(MPI_COMM_WORLD);
  double t0 = MPI_Wtime();
  f();
  double t1 = MPI_Wtime();
  double lo, hi;
  MPI_Allreduce(&t0, &lo, 1, MPI_DOUBLE, MPI_MIN, MPI_COMM_WORLD);
  MPI_Allreduce(&t1, &hi, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  return hi - lo;
}

uint64_t Sum(uint64_t v) {
  uint64_t s = 0;
  MPI_Allreduce(&v, &s, 1, MPI_UINT64_T, MPI_SUM, MPI_COMM_WORLD);
  return s;
}

int PhaseWrite(const std::string& sys_name, const std::string& dir) {
  const Vec blk = BlockShape(ArgU("mib", 256));
  const Vec g = Grid(g_size);
  const Vec G = {blk[0] * g[0], blk[1] * g[1], blk[2] * g[2]};
  Box mine = Piece(Box{{0, 0, 0}, G}, g, g_rank);
  std::vector<double> data(mine.elements());
  Fill(G, mine, data.data());
  auto sys = MakeSystem(sys_name);
  if (g_rank == 0) std::filesystem::create_directories(dir);
  MPI_Barrier(MPI_COMM_WORLD);
  double t = Timed([&] { sys->Write(dir, G, mine, data.data()); });
  uint64_t bytes = Sum(mine.elements() * 8);
  if (g_rank == 0)
    std::printf("RESULT {\"system\": \"%s\", \"phase\": \"write\", \"writers\": %d, \"shape\": [%" PRIu64 ", %" PRIu64
                ", %" PRIu64 "], \"bytes\": %" PRIu64 ", \"seconds\": %.6f, \"mib_s\": %.1f}\n",
                sys_name.c_str(), g_size, G[0], G[1], G[2], bytes, t, double(bytes) / t / 1048576.0);
  return 0;
}

int PhaseRead(const std::string& sys_name, const std::string& dir) {
  const Vec blk = BlockShape(ArgU("mib", 256));
  const int n = int(ArgU("writers", 1));
  const Vec g = Grid(n);
  const Vec G = {blk[0] * g[0], blk[1] * g[1], blk[2] * g[2]};
  // "hdf5-contig" and "hdf5-chunk" read the file with each transfer mode
  // of --modes in turn (default coll,ind), reported as hdf5-LAYOUT-MODE.
  std::vector<std::string> variants = {sys_name};
  if (sys_name == "hdf5-contig" || sys_name == "hdf5-chunk" || sys_name == "hdf5-f32") {
    variants.clear();
    std::string modes = Arg("modes", "coll,ind") + ",";
    for (size_t p = 0, c; (c = modes.find(',', p)) != std::string::npos; p = c + 1)
      if (c > p) variants.push_back(sys_name + "-" + modes.substr(p, c - p));
  }
  const char* pats[] = {"full", "slab0", "slab1", "slab2", "boxes"};
  std::string only = Arg("patterns", "");
  for (const char* pat : pats)
  for (const std::string& variant : variants) {
    if (!only.empty() && ("," + only + ",").find("," + std::string(pat) + ",") == std::string::npos) continue;
    auto sys = MakeSystem(variant);
    std::vector<Box> boxes = Pattern(pat, G, g_size, g_rank, ArgU("seed", 1));
    std::vector<std::vector<double>> bufs;
    std::vector<double*> out;
    uint64_t wanted = 0;
    for (const Box& b : boxes) {
      bufs.emplace_back(b.elements(), -1.0);
      wanted += b.elements() * 8;
    }
    for (auto& v : bufs) out.push_back(v.data());
    Evict(dir);
    Counters c;
    g_requests = 0;
    g_bytes = 0;
    g_pages.clear();
    g_counting = true;
    double t = Timed([&] { sys->Read(dir, boxes, out, &c); });
    g_counting = false;
    c.requests = g_requests;
    c.bytes = g_bytes;
    uint64_t pages_read = PagesRead();
    Vec tile = variant.rfind("hdf5-chunk", 0) == 0 || variant.rfind("hdf5-f32", 0) == 0 ? Vec{std::min<uint64_t>(64, G[0]), std::min<uint64_t>(64, G[1]),
                                                          std::min<uint64_t>(64, G[2])}
               : variant.rfind("hdf5-contig", 0) == 0 ? G
                                                      : blk;
    uint64_t pages_wanted = PagesWanted(G, tile, c.data_offset, boxes);
    uint64_t bad = 0;
    for (size_t i = 0; i < boxes.size(); i++) bad += !Check(G, boxes[i], out[i]);
    uint64_t tw = Sum(wanted), tr = Sum(c.requests), tb = Sum(c.bytes), cr = Sum(c.cairn_requests),
             cb = Sum(c.cairn_bytes), tbad = Sum(bad), nboxes = Sum(boxes.size()), tpr = Sum(pages_read),
             tpw = Sum(pages_wanted), tbe = Sum(c.blocks_examined), tbr = Sum(c.blocks_read);
    if (tbad) Die("%s %s: %" PRIu64 " boxes read wrong data", variant.c_str(), pat, tbad);
    if (g_rank == 0)
      std::printf("RESULT {\"system\": \"%s\", \"phase\": \"read\", \"pattern\": \"%s\", \"writers\": %d, "
                  "\"readers\": %d, \"boxes\": %" PRIu64 ", \"bytes_wanted\": %" PRIu64 ", \"seconds\": %.6f, "
                  "\"mib_s\": %.1f, \"read_requests\": %" PRIu64 ", \"bytes_read\": %" PRIu64
                  ", \"cairn_read_requests\": %" PRIu64 ", \"cairn_bytes_read\": %" PRIu64
                  ", \"pages_read\": %" PRIu64 ", \"pages_wanted\": %" PRIu64 ", \"blocks_examined\": %" PRIu64
                  ", \"blocks_read\": %" PRIu64 "}\n",
                  variant.c_str(), pat, n, g_size, nboxes, tw, t, double(tw) / t / 1048576.0, tr, tb, cr, cb, tpr, tpw,
                  tbe, tbr);
    std::fflush(stdout);
  }
  return 0;
}

// Planning cost: the writing job puts side^3 blocks of 8x8x8 round-robin;
// the reading job times GetArray of boxes of k^3 blocks' size shifted by
// half a block, so touching (k+1)^3 blocks (warm cache; best of 5 on each
// rank, the slowest rank's). The time per block touched should stay flat
// if planning is linear in the blocks touched.
int PhasePlan(const std::string& dir) {
  if (g_rank == 0) std::filesystem::create_directories(dir);
  MPI_Barrier(MPI_COMM_WORLD);
  const uint64_t side = ArgU("side", 16);  // blocks per axis: side^3 blocks
  const Vec G = {8 * side, 8 * side, 8 * side};
  const std::string store = dir + "/plan_store";
  const bool cut = Arg("cut", "0") == "1";
  if (Arg("write", "1") == "1") {
    std::unique_ptr<cairn::Store> st;
    CAIRN_OK(cairn::Store::Open(cairn::Options(), store, MPI_COMM_WORLD, &st));
    std::vector<double> v(512);
    uint64_t nb = Arg("big", "0") == "1" ? 0 : side * side * side;
    if (nb == 0 && g_rank == 0) {  // --big=1: rank 0 puts the whole array as one block
      Box all{{0, 0, 0}, G};
      std::vector<double> w(all.elements());
      Fill(G, all, w.data());
      CAIRN_OK(st->PutArray("a", cairn::DType::kFloat64, G, all.start, all.count, w.data()));
    }
    for (uint64_t b = uint64_t(g_rank); b < nb; b += uint64_t(g_size)) {
      Box x{{b / (side * side) * 8, b / side % side * 8, b % side * 8}, {8, 8, 8}};
      Fill(G, x, v.data());
      if (cut) {  // rows [0, 3) and [3, 8) of the block: an irregular array
        for (uint64_t h = 0; h < 2; h++) {
          Box y{{x.start[0] + 3 * h, x.start[1], x.start[2]}, {h ? 5u : 3u, 8, 8}};
          CAIRN_OK(st->PutArray("a", cairn::DType::kFloat64, G, y.start, y.count, v.data() + 3 * 64 * h));
        }
        continue;
      }
      CAIRN_OK(st->PutArray("a", cairn::DType::kFloat64, G, x.start, x.count, v.data()));
    }
    CAIRN_OK(st->Commit());
    CAIRN_OK(st->Close());
  }
  MPI_Barrier(MPI_COMM_WORLD);
  if (Arg("read", "1") != "1") return 0;
  cairn::Options o;
  o.read_only = true;
  o.create_if_missing = false;
  std::unique_ptr<cairn::Store> st;
  CAIRN_OK(cairn::Store::Open(o, store, MPI_COMM_WORLD, &st));
  cairn::ArrayInfo info;
  CAIRN_OK(st->GetArrayInfo("a", &info));
  // Boxes of k x k x k blocks at the origin (k = 1, 2, 4, ... side),
  // shifted by half a block so that every box touches (k+1)^3 blocks
  // but the last; every rank reads the same box. --shift=0: not shifted,
  // k^3 whole blocks (the same bytes per block touched for every k).
  const uint64_t shift = Arg("shift", "1") == "1" ? 4 : 0;
  for (uint64_t k = 1; k <= side; k *= 2) {
    Box x{{shift, shift, shift}, {8 * k, 8 * k, 8 * k}};
    for (int d = 0; d < 3; d++)
      if (x.start[d] + x.count[d] > G[d]) x.start[d] = G[d] - x.count[d];
    uint64_t touched = 0;  // blocks read (of the grid: (k+1)^3 when shifted)
    std::vector<double> buf(x.elements());
    double best = 1e30;
    cairn::ArrayReadStats before = st->array_read_stats();
    for (int rep = 0; rep < 5; rep++) {
      uint64_t read_before = st->array_read_stats().blocks_read;
      std::string tag = "plan k=" + std::to_string(k) + " rep=" + std::to_string(rep);
      double t0 = MPI_Wtime();
      // Under callgrind: the counts of this call alone, dumped under `tag`.
      CALLGRIND_ZERO_STATS;
      cairn::Status gs = st->GetArray("a", x.start, x.count, buf.data());
      CALLGRIND_DUMP_STATS_AT(tag.c_str());
      CAIRN_OK(gs);
      best = std::min(best, MPI_Wtime() - t0);
      touched = st->array_read_stats().blocks_read - read_before;
    }
    if (!Check(G, x, buf.data())) Die("plan: wrong data");
    cairn::ArrayReadStats after = st->array_read_stats();
    uint64_t examined = (after.blocks_examined - before.blocks_examined) / 5, most = 0;
    MPI_Allreduce(&examined, &most, 1, MPI_UINT64_T, MPI_MAX, MPI_COMM_WORLD);
    double worst = 0;
    MPI_Allreduce(&best, &worst, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    if (g_rank == 0)
      std::printf("RESULT {\"phase\": \"plan\", \"k\": %" PRIu64 ", \"readers\": %d, \"array_blocks\": %" PRIu64
                  ", \"blocks_touched\": %" PRIu64 ", \"blocks_examined\": %" PRIu64 ", \"bytes\": %" PRIu64
                  ", \"seconds\": %.6f, \"us_per_block\": %.2f}\n",
                  k, g_size, info.block_count, touched, most, x.elements() * 8, worst, worst * 1e6 / double(touched));
  }
  CAIRN_OK(st->Close());
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &g_rank);
  MPI_Comm_size(MPI_COMM_WORLD, &g_size);
  for (int i = 1; i < argc; i++) {
    std::string a = argv[i];
    if (a.rfind("--", 0) != 0) Die("bad argument %s", a.c_str());
    size_t eq = a.find('=');
    g_args[a.substr(2, eq == std::string::npos ? std::string::npos : eq - 2)] =
        eq == std::string::npos ? "1" : a.substr(eq + 1);
  }
  std::string dir = Arg("dir", "");
  if (dir.empty()) Die("--dir=DIR is required");
  g_dir = std::filesystem::absolute(dir).string();
  std::string phase = Arg("phase", ""), sys = Arg("system", "cairn");
  int rc = phase == "write" ? PhaseWrite(sys, dir)
           : phase == "read" ? PhaseRead(sys, dir)
           : phase == "plan" ? PhasePlan(dir)
                             : (Die("--phase=write|read|plan"), 1);
  MPI_Finalize();
  return rc;
}
