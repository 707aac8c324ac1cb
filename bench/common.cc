#include "common.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <ctime>
#include <cinttypes>
#include <cstdarg>
#include <cstring>
#include <filesystem>
#include <random>
#include <set>
#include <sstream>

namespace bench {

namespace {

Context g_ctx;

// The stamp's first word: a constant mixed with the rank and checkpoint, so
// that a zero-filled or foreign block never passes.
constexpr uint64_t kStampMagic = 0xC0A1B2E4C3D5E6F7ull;

uint64_t StampWord0(int rank, int ckpt) {
  return kStampMagic ^ (static_cast<uint64_t>(static_cast<uint32_t>(rank)) << 32) ^
         static_cast<uint64_t>(static_cast<uint32_t>(ckpt));
}

std::string JsonEscape(const std::string& s) {
  std::string out;
  for (char c : s) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (static_cast<unsigned char>(c) < 0x20) {
      char buf[8];
      snprintf(buf, sizeof buf, "\\u%04x", c);
      out += buf;
    } else {
      out += c;
    }
  }
  return out;
}

// A small JSON object builder for the RESULT lines.
class Json {
 public:
  Json& Str(const std::string& k, const std::string& v) {
    return Raw(k, "\"" + JsonEscape(v) + "\"");
  }
  Json& Num(const std::string& k, double v) {
    char buf[64];
    snprintf(buf, sizeof buf, "%.9g", v);
    return Raw(k, buf);
  }
  Json& U64(const std::string& k, uint64_t v) { return Raw(k, std::to_string(v)); }
  Json& Raw(const std::string& k, const std::string& v) {
    if (!body_.empty()) body_ += ", ";
    body_ += "\"" + JsonEscape(k) + "\": " + v;
    return *this;
  }
  std::string str() const { return "{" + body_ + "}"; }

 private:
  std::string body_;
};

void Usage() {
  fprintf(stderr,
          "usage: bench_<system> --phase=write|read|noop --dir=DIR --count=N --size=BYTES\n"
          "       [--reps=R] [--checkpoints=C] [--sparse-fraction=F] [--seed=S]\n"
          "       [--scale=N] [--keep] [--<system option>=VALUE ...]\n");
}

bool ParseArgs(int argc, char** argv, Config* cfg) {
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a.rfind("--", 0) != 0) return false;
    a = a.substr(2);
    std::string key = a, val = "1";
    size_t eq = a.find('=');
    if (eq != std::string::npos) {
      key = a.substr(0, eq);
      val = a.substr(eq + 1);
    }
    auto u64 = [&]() { return std::strtoull(val.c_str(), nullptr, 0); };
    if (key == "phase") cfg->phase = val;
    else if (key == "dir") cfg->dir = val;
    else if (key == "count") cfg->count = u64();
    else if (key == "size") cfg->size = u64();
    else if (key == "reps") cfg->reps = static_cast<int>(u64());
    else if (key == "checkpoints") cfg->checkpoints = static_cast<int>(u64());
    else if (key == "sparse-fraction") cfg->sparse_fraction = std::strtod(val.c_str(), nullptr);
    else if (key == "seed") cfg->seed = u64();
    else if (key == "scale") cfg->scale = static_cast<int>(u64());
    else if (key == "keep") cfg->keep = val != "0";
    else cfg->extra[key] = val;
  }
  if (cfg->phase == "noop") return true;
  return (cfg->phase == "write" || cfg->phase == "read") && !cfg->dir.empty() &&
         cfg->count > 0 && cfg->size > 0 && cfg->reps > 0 && cfg->checkpoints > 0;
}

// IOR's timing: every rank takes its own start and end; the phase lasts from
// the earliest start to the latest end.
double ReduceSpan(double t0, double t1) {
  double tmin = 0, tmax = 0;
  MPI_Reduce(&t0, &tmin, 1, MPI_DOUBLE, MPI_MIN, 0, g_ctx.comm);
  MPI_Reduce(&t1, &tmax, 1, MPI_DOUBLE, MPI_MAX, 0, g_ctx.comm);
  return tmax - tmin;
}

// This process's CPU time (all its threads, user and system), in seconds.
double CpuSeconds() {
  timespec t{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return double(t.tv_sec) + double(t.tv_nsec) * 1e-9;
}

// The sum over the ranks of the CPU time each spent in [c0, c1] (rank 0 has it).
double SumCpu(double c0, double c1) {
  double mine = c1 - c0, sum = 0;
  MPI_Reduce(&mine, &sum, 1, MPI_DOUBLE, MPI_SUM, 0, g_ctx.comm);
  return sum;
}

uint64_t SumU64(uint64_t v) {
  uint64_t s = 0;
  MPI_Reduce(&v, &s, 1, MPI_UINT64_T, MPI_SUM, 0, g_ctx.comm);
  return s;
}

std::string CountersJson(const Counters& local) {
  // Every rank of a system reports the same keys; sum them in key order.
  std::vector<double> vals, sums(local.size());
  for (const auto& kv : local) vals.push_back(kv.second);
  int n = static_cast<int>(vals.size()), nmin = 0;
  MPI_Allreduce(&n, &nmin, 1, MPI_INT, MPI_MIN, g_ctx.comm);
  BENCH_CHECK(nmin == n, "ranks report different counter sets");
  if (n > 0) MPI_Reduce(vals.data(), sums.data(), n, MPI_DOUBLE, MPI_SUM, 0, g_ctx.comm);
  Json j;
  size_t i = 0;
  for (const auto& kv : local) j.Num(kv.first, sums[i++]);
  return j.str();
}

void PrintResult(const Json& j) {
  if (g_ctx.rank == 0) {
    printf("RESULT %s\n", j.str().c_str());
    fflush(stdout);
  }
}

Json BaseJson(System* sys, const char* phase, int rep) {
  const Config& c = g_ctx.cfg;
  Json j;
  j.Str("system", sys->name()).Str("phase", phase).U64("rep", rep);
  j.U64("ranks", g_ctx.nranks).U64("scale", c.scale);
  j.U64("count", c.count).U64("size", c.size);
  return j;
}

void WritePhase(System* sys, int rep) {
  const Config& c = g_ctx.cfg;
  std::string rd = RepDir(c, rep);
  if (g_ctx.rank == 0) {
    std::error_code ec;
    std::filesystem::remove_all(rd, ec);
    std::filesystem::create_directories(rd, ec);
    BENCH_CHECK(!ec, "cannot create %s: %s", rd.c_str(), ec.message().c_str());
  }
  sys->TakeCounters();
  MPI_Barrier(g_ctx.comm);
  Marker("write-begin");
  double c0 = CpuSeconds();
  double t0 = MPI_Wtime();
  sys->OpenForWrite(rd);
  for (int ck = 0; ck < c.checkpoints; ++ck) {
    sys->Checkpoint(rd, ck);
    Marker("ckpt-" + std::to_string(ck) + "-end");
  }
  sys->CloseAfterWrite();
  double t1 = MPI_Wtime();
  double c1 = CpuSeconds();
  Marker("write-end");
  MPI_Barrier(g_ctx.comm);
  double span = ReduceSpan(t0, t1);
  double cpu = SumCpu(c0, c1);
  std::string counters = CountersJson(sys->TakeCounters());
  uint64_t bytes = c.count * c.size * static_cast<uint64_t>(g_ctx.nranks) * c.scale * c.checkpoints;
  Json j = BaseJson(sys, "write", rep);
  j.U64("checkpoints", c.checkpoints).U64("bytes", bytes).Num("seconds", span);
  j.Num("cpu_seconds", cpu);
  j.Num("mib_s", span > 0 ? bytes / span / (1 << 20) : 0).U64("errors", 0);
  j.Raw("counters", counters);
  PrintResult(j);
}

void ReadPhase(System* sys, int rep, bool sparse) {
  const Config& c = g_ctx.cfg;
  std::string rd = RepDir(c, rep);
  int ck = c.checkpoints - 1;  // the newest checkpoint, as a restart reads it
  EvictResult ev;
  if (g_ctx.rank == 0) ev = EvictTree(rd);
  std::vector<uint64_t> ids;
  if (sparse) ids = SparseIds(c.count * c.scale, c.sparse_fraction, c.seed + rep, g_ctx.rank);
  sys->TakeCounters();
  const char* label = sparse ? "sparse" : "read";
  MPI_Barrier(g_ctx.comm);
  Marker(std::string(label) + "-begin");
  double c0 = CpuSeconds();
  double t0 = MPI_Wtime();
  sys->OpenForRead(rd, ck);
  uint64_t bad = sparse ? sys->ReadSome(rd, ck, ids) : sys->ReadAll(rd, ck);
  sys->CloseAfterRead();
  double t1 = MPI_Wtime();
  double c1 = CpuSeconds();
  Marker(std::string(label) + "-end");
  MPI_Barrier(g_ctx.comm);
  double span = ReduceSpan(t0, t1);
  double cpu = SumCpu(c0, c1);
  uint64_t errors = SumU64(bad);
  std::string counters = CountersJson(sys->TakeCounters());
  uint64_t objects = sparse ? ids.size() : c.count * c.scale;
  uint64_t bytes = objects * c.size * static_cast<uint64_t>(g_ctx.nranks);
  Json j = BaseJson(sys, label, rep);
  j.U64("objects_read", objects * g_ctx.nranks).U64("bytes", bytes).Num("seconds", span);
  j.Num("cpu_seconds", cpu);
  j.Num("mib_s", span > 0 ? bytes / span / (1 << 20) : 0).U64("errors", errors);
  j.U64("evicted_files", ev.files).U64("evicted_bytes", ev.bytes);
  j.U64("resident_pages_after_evict", ev.resident_pages);
  j.Raw("counters", counters);
  PrintResult(j);
  if (errors != 0 && g_ctx.rank == 0)
    fprintf(stderr, "%s: %" PRIu64 " objects read back wrong\n", sys->name(), errors);
}

}  // namespace

void Die(const char* fmt, ...) {
  char buf[1024];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(buf, sizeof buf, fmt, ap);
  va_end(ap);
  fprintf(stderr, "bench rank %d: %s\n", g_ctx.rank, buf);
  fflush(stderr);
  int init = 0;
  MPI_Initialized(&init);
  if (init) MPI_Abort(MPI_COMM_WORLD, 2);
  std::exit(2);
}

std::string Config::Get(const std::string& key, const std::string& dflt) const {
  auto it = extra.find(key);
  return it == extra.end() ? dflt : it->second;
}

uint64_t Config::GetU64(const std::string& key, uint64_t dflt) const {
  auto it = extra.find(key);
  return it == extra.end() ? dflt : std::strtoull(it->second.c_str(), nullptr, 0);
}

std::string RepDir(const Config& cfg, int rep) { return cfg.dir + "/rep" + std::to_string(rep); }

const Context& Ctx() { return g_ctx; }

void Stamp(char* obj, uint64_t size, int rank, int ckpt, uint64_t index) {
  uint64_t w[2] = {StampWord0(rank, ckpt), index};
  memcpy(obj, w, std::min<uint64_t>(size, sizeof w));
}

bool CheckStamp(const char* obj, uint64_t size, int rank, int ckpt, uint64_t index) {
  uint64_t w[2] = {StampWord0(rank, ckpt), index};
  return memcmp(obj, w, std::min<uint64_t>(size, sizeof w)) == 0;
}

std::vector<char> MakeFiller(uint64_t size, int rank) {
  std::vector<char> buf(size);
  uint64_t x = 0x9E3779B97F4A7C15ull * (static_cast<uint64_t>(rank) + 1);
  size_t i = 0;
  for (; i + 8 <= size; i += 8) {  // xorshift64: cheap and incompressible enough
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    memcpy(&buf[i], &x, 8);
  }
  for (; i < size; ++i) buf[i] = static_cast<char>(i * 131 + rank);
  return buf;
}

std::vector<uint64_t> SparseIds(uint64_t count, double fraction, uint64_t seed, int rank) {
  uint64_t want = static_cast<uint64_t>(fraction * static_cast<double>(count));
  want = std::clamp<uint64_t>(want, 1, count);
  std::mt19937_64 rng(seed * 1000003ull + static_cast<uint64_t>(rank));
  std::set<uint64_t> chosen;
  while (chosen.size() < want) chosen.insert(rng() % count);
  return {chosen.begin(), chosen.end()};
}

void PWriteFull(int fd, const char* p, uint64_t n, uint64_t off, const std::string& path) {
  while (n > 0) {
    ssize_t w = pwrite(fd, p, n, static_cast<off_t>(off));
    if (w < 0 && errno == EINTR) continue;
    BENCH_CHECK(w > 0, "pwrite %s: %s", path.c_str(), strerror(errno));
    p += w, n -= w, off += w;
  }
}

void PReadFull(int fd, char* p, uint64_t n, uint64_t off, const std::string& path) {
  while (n > 0) {
    ssize_t r = pread(fd, p, n, static_cast<off_t>(off));
    if (r < 0 && errno == EINTR) continue;
    BENCH_CHECK(r > 0, "pread %s: %s", path.c_str(), r == 0 ? "short file" : strerror(errno));
    p += r, n -= r, off += r;
  }
}

void Marker(const std::string& label) {
  std::string p = "/cairn-bench-marker/" + label;
  (void)faccessat(AT_FDCWD, p.c_str(), F_OK, 0);
}

EvictResult EvictTree(const std::string& path) {
  EvictResult r;
  std::error_code ec;
  long page = sysconf(_SC_PAGESIZE);
  for (auto it = std::filesystem::recursive_directory_iterator(path, ec);
       !ec && it != std::filesystem::recursive_directory_iterator(); it.increment(ec)) {
    if (!it->is_regular_file(ec)) continue;
    int fd = open(it->path().c_str(), O_RDONLY);
    if (fd < 0) continue;
    struct stat st;
    if (fstat(fd, &st) == 0) {
      fdatasync(fd);
      posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
      r.files++;
      r.bytes += st.st_size;
      if (st.st_size > 0) {
        void* m = mmap(nullptr, st.st_size, PROT_READ, MAP_SHARED, fd, 0);
        if (m != MAP_FAILED) {
          std::vector<unsigned char> vec((st.st_size + page - 1) / page);
          if (mincore(m, st.st_size, vec.data()) == 0)
            for (unsigned char v : vec) r.resident_pages += v & 1;
          munmap(m, st.st_size);
        }
      }
    }
    close(fd);
  }
  return r;
}

void RemoveTree(const std::string& path) {
  if (g_ctx.rank != 0) return;
  std::error_code ec;
  std::filesystem::remove_all(path, ec);
}

int RunMain(int argc, char** argv, System* (*make_system)()) {
  int provided = 0;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_SERIALIZED, &provided);
  MPI_Comm_rank(MPI_COMM_WORLD, &g_ctx.rank);
  MPI_Comm_size(MPI_COMM_WORLD, &g_ctx.nranks);
  if (!ParseArgs(argc, argv, &g_ctx.cfg)) {
    if (g_ctx.rank == 0) Usage();
    MPI_Finalize();
    return 1;
  }
  // The noop phase makes a program that initializes MPI and its libraries and
  // does no I/O: a baseline for counting system calls.
  if (g_ctx.cfg.phase == "noop") {
    MPI_Finalize();
    return 0;
  }
  System* sys = make_system();
  for (int rep = 0; rep < g_ctx.cfg.reps; ++rep) {
    if (g_ctx.cfg.phase == "write") {
      WritePhase(sys, rep);
    } else {
      ReadPhase(sys, rep, false);
      ReadPhase(sys, rep, true);
      MPI_Barrier(g_ctx.comm);
      if (!g_ctx.cfg.keep) RemoveTree(RepDir(g_ctx.cfg, rep));
    }
  }
  delete sys;
  MPI_Finalize();
  return 0;
}

uint64_t System::ReadAll(const std::string& rep_dir, int ckpt) {
  std::vector<uint64_t> all(Ctx().cfg.count);
  for (uint64_t i = 0; i < all.size(); ++i) all[i] = i;
  return ReadSome(rep_dir, ckpt, all);
}

void ReadBuffer::assign(uint64_t n) {
  off_ = Ctx().cfg.GetU64("buffer-offset", 0) % 4096;
  const uint64_t bytes = (std::max<uint64_t>(n, 1) + off_ + 4095) / 4096 * 4096;
  p_.reset(static_cast<char*>(std::aligned_alloc(4096, bytes)));
  if (!p_) Die("out of memory for a read buffer of %llu bytes", static_cast<unsigned long long>(n));
  std::memset(p_.get(), 0, bytes);
  n_ = n;
}

std::string ObjectKey(int ckpt, uint64_t i) {
  std::string k;
  ObjectKey(ckpt, i, &k);
  return k;
}

void ObjectKey(int ckpt, uint64_t i, std::string* out) {
  // "c%04d/%012llu" without snprintf, which cost as many instructions as
  // cairn's whole MultiGet of a 4 KiB value (callgrind, W2-4K read): the
  // harness should not weigh on the key-value systems' side alone.
  if (ckpt < 0 || ckpt > 9999 || i > 999999999999ull) {
    char buf[48];
    snprintf(buf, sizeof buf, "c%04d/%012llu", ckpt, static_cast<unsigned long long>(i));
    *out = buf;
    return;
  }
  std::string& k = *out;
  k.assign(18, '0');
  k[0] = 'c';
  k[5] = '/';
  for (int p = 4; p >= 1; p--, ckpt /= 10) k[p] = char('0' + ckpt % 10);
  for (int p = 17; p >= 6; p--, i /= 10) k[p] = char('0' + i % 10);
}

}  // namespace bench
