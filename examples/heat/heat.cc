// heat: a 2-D heat-diffusion MPI mini-app that checkpoints to a cairn store
// and restarts from it.
//
// The grid (ny rows by nx columns) is split into blocks over a 2-D Cartesian
// process grid (MPI_Dims_create / MPI_Cart_create; uneven blocks when the
// grid does not divide). Each step is one explicit Jacobi update of the
// 5-point stencil
//
//     u'(i,j) = u(i,j) + alpha * (u(i-1,j) + u(i+1,j) + u(i,j-1) + u(i,j+1) - 4 u(i,j))
//
// with the boundary outside the grid held at 0, after a halo exchange with
// MPI_Sendrecv. Every cell is computed by the same expression in the same
// order whatever the decomposition, so the final grid -- and its checksum --
// is bit-identical on 1, 2, 4, ... ranks.
//
// The grid is a global array of the store: every K steps each rank puts its
// block of it (Store::PutArray of the ny x nx float64 array "grid"), rank 0
// the step counter (shared object "step"), and all ranks Commit() one
// revision. At start, if the store has a revision, every rank reads its own
// block of the grid (Store::GetArray: whatever blocks the ranks that wrote it
// had) and the step, and carries on. So a run may be restarted on any number
// of ranks: checkpointed on 4, continued on 3, then on 6, in the same store,
// it prints the same checksum as a run never interrupted; and a run killed
// at any moment (kill -9) and started again prints that checksum too.
//
// With --async the checkpoint is asynchronous: puts copy the block into
// staging memory, CommitAsync returns at once, and the compute loop calls
// Test() each step while a background thread writes and syncs; the step
// after a checkpoint may overwrite the grid freely.
//
// The last line of output is "checksum <16 hex digits>": FNV-1a 64 of the
// final global grid (ny*nx little-endian doubles, row-major), computed on
// rank 0 after gathering the blocks.

#include <mpi.h>

#include <algorithm>
#include <chrono>
#include <cerrno>
#include <cinttypes>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "cairn/options.h"
#include "cairn/status.h"
#include "cairn/store.h"

namespace {

struct Config {
  std::string store;
  int64_t steps = 500;
  int64_t every = 50;
  int64_t nx = 512;
  int64_t ny = 512;
  int64_t sleep_ms = 0;
  bool stats = false;
  bool async = false;
};

const char kUsage[] =
    "usage: heat --store DIR [--steps N] [--every K] [--nx NX] [--ny NY]\n"
    "            [--sleep-ms MS] [--stats] [--async]\n"
    "  --store DIR    cairn store directory (created if missing; restarted from\n"
    "                 its newest revision if it has one, on any number of ranks)\n"
    "  --steps N      total number of time steps (default 500)\n"
    "  --every K      checkpoint every K steps; 0: never (default 50)\n"
    "  --nx NX        grid columns (default 512)\n"
    "  --ny NY        grid rows (default 512)\n"
    "  --sleep-ms MS  sleep MS milliseconds per step, to slow the run down for\n"
    "                 kill tests (default 0)\n"
    "  --stats        print the store's I/O counters, summed over ranks, at the end\n"
    "  --async        checkpoint asynchronously (CommitAsync with staged puts)\n";

int g_rank = 0;

// Every cairn status that is not ok ends the run: printed with its message,
// then MPI_Abort (the other ranks may be blocked in a collective).
void Check(const cairn::Status& s, const char* what) {
  if (s.ok()) return;
  std::fprintf(stderr, "heat: rank %d: %s failed: %s\n", g_rank, what, s.ToString().c_str());
  std::fflush(stderr);
  MPI_Abort(MPI_COMM_WORLD, 1);
}

[[noreturn]] void Fail(const std::string& msg) {
  std::fprintf(stderr, "heat: rank %d: %s\n", g_rank, msg.c_str());
  std::fflush(stderr);
  MPI_Abort(MPI_COMM_WORLD, 1);
  std::abort();
}

bool ParseInt(const char* s, int64_t* out) {
  char* end = nullptr;
  errno = 0;
  long long v = std::strtoll(s, &end, 10);
  if (errno != 0 || end == s || *end != '\0') return false;
  *out = v;
  return true;
}

// Returns an empty string on success, else the error.
std::string ParseArgs(int argc, char** argv, Config* c) {
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--help" || a == "-h") return "help";
    if (a == "--stats") {
      c->stats = true;
      continue;
    }
    if (a == "--async") {
      c->async = true;
      continue;
    }
    if (a == "--zero-copy")
      return "--zero-copy is gone: the grid is a global array, and PutArray copies its block "
             "(into staging memory with --async)";
    if (i + 1 >= argc) return "missing value after " + a;
    const char* v = argv[++i];
    int64_t* target = nullptr;
    if (a == "--store") {
      c->store = v;
      continue;
    } else if (a == "--steps") {
      target = &c->steps;
    } else if (a == "--every") {
      target = &c->every;
    } else if (a == "--nx") {
      target = &c->nx;
    } else if (a == "--ny") {
      target = &c->ny;
    } else if (a == "--sleep-ms") {
      target = &c->sleep_ms;
    } else {
      return "unknown option " + a;
    }
    if (!ParseInt(v, target) || *target < 0) return "bad value for " + a + ": " + v;
  }
  if (c->store.empty()) return "--store DIR is required";
  if (c->nx < 1 || c->ny < 1) return "--nx and --ny must be at least 1";
  return "";
}

// Block decomposition of n cells over p parts: part i owns [Start(i), Start(i+1)).
// Block sizes differ by at most one cell when p does not divide n.
int64_t BlockStart(int64_t n, int p, int i) { return n * i / p; }

// The block of the global grid one rank owns.
struct Block {
  int64_t y0 = 0, x0 = 0;  // global row and column of its first cell
  int64_t ly = 0, lx = 0;  // rows and columns
};

Block BlockOf(const Config& c, const int dims[2], const int coords[2]) {
  Block b;
  b.y0 = BlockStart(c.ny, dims[0], coords[0]);
  b.ly = BlockStart(c.ny, dims[0], coords[0] + 1) - b.y0;
  b.x0 = BlockStart(c.nx, dims[1], coords[1]);
  b.lx = BlockStart(c.nx, dims[1], coords[1] + 1) - b.x0;
  return b;
}

// The deterministic initial temperature of global cell (gy, gx): three hot
// disks and a warm band, computed from global integer coordinates only.
double Initial(const Config& c, int64_t gy, int64_t gx) {
  struct Spot {
    int64_t cy, cx, r2;
    double t;
  };
  const int64_t m = std::max<int64_t>(1, std::min(c.nx, c.ny));
  const Spot spots[] = {
      {c.ny * 3 / 10, c.nx * 3 / 10, (m / 8) * (m / 8), 100.0},
      {c.ny * 7 / 10, c.nx * 6 / 10, (m / 6) * (m / 6), 60.0},
      {c.ny * 2 / 10, c.nx * 8 / 10, (m / 12) * (m / 12), 150.0},
  };
  double t = 0.0;
  for (const Spot& s : spots) {
    const int64_t dy = gy - s.cy, dx = gx - s.cx;
    if (dy * dy + dx * dx <= s.r2) t += s.t;
  }
  if (gy * 10 / c.ny == 8 && gx < c.nx / 2) t += 25.0;  // a warm band
  return t;
}

// FNV-1a, 64 bits (Fowler/Noll/Vo; offset basis and prime from the spec).
struct Fnv1a64 {
  uint64_t h = 0xcbf29ce484222325ull;
  void Update(const void* data, size_t n) {
    const auto* p = static_cast<const unsigned char*>(data);
    for (size_t i = 0; i < n; ++i) {
      h ^= p[i];
      h *= 0x100000001b3ull;
    }
  }
};

std::string EncodeU64(uint64_t v) {
  std::string s(8, '\0');
  for (int i = 0; i < 8; ++i) s[i] = static_cast<char>((v >> (8 * i)) & 0xff);
  return s;
}

bool DecodeU64(const std::string& s, uint64_t* v) {
  if (s.size() != 8) return false;
  uint64_t r = 0;
  for (int i = 7; i >= 0; --i) r = (r << 8) | static_cast<unsigned char>(s[i]);
  *v = r;
  return true;
}

double Seconds() {
  using namespace std::chrono;
  return duration<double>(steady_clock::now().time_since_epoch()).count();
}

}  // namespace

int main(int argc, char** argv) {
  // The store's background I/O thread makes no MPI call: FUNNELED suffices.
  int provided = 0;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
  int nranks = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &g_rank);
  MPI_Comm_size(MPI_COMM_WORLD, &nranks);
  const bool root = g_rank == 0;

  Config cfg;
  const std::string err = ParseArgs(argc, argv, &cfg);
  if (!err.empty()) {
    if (root) {
      if (err != "help") std::fprintf(stderr, "heat: %s\n", err.c_str());
      std::fputs(kUsage, err == "help" ? stdout : stderr);
    }
    MPI_Finalize();
    return err == "help" ? 0 : 2;
  }

  // --- The process grid: dims[0] splits the rows, dims[1] the columns. ---
  int dims[2] = {0, 0};
  MPI_Dims_create(nranks, 2, dims);
  if (cfg.ny < dims[0] || cfg.nx < dims[1]) {
    if (root)
      std::fprintf(stderr, "heat: a %" PRId64 "x%" PRId64 " grid is too small for %dx%d processes\n",
                   cfg.ny, cfg.nx, dims[0], dims[1]);
    MPI_Finalize();
    return 2;
  }
  const int periods[2] = {0, 0};
  MPI_Comm cart;
  // reorder = 0: the rank in `cart` is the rank in MPI_COMM_WORLD, the one
  // the gather for the checksum below counts with.
  MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, 0, &cart);
  int coords[2];
  MPI_Cart_coords(cart, g_rank, 2, coords);
  int north, south, west, east;
  MPI_Cart_shift(cart, 0, 1, &north, &south);
  MPI_Cart_shift(cart, 1, 1, &west, &east);

  const Block blk = BlockOf(cfg, dims, coords);
  const int64_t ly = blk.ly, lx = blk.lx, pitch = lx + 2;
  // Two (ly+2) x (lx+2) arrays with a one-cell halo; the halo of the global
  // boundary stays 0 (MPI_PROC_NULL neighbours leave it untouched).
  std::vector<double> u((ly + 2) * pitch, 0.0), v((ly + 2) * pitch, 0.0);
  auto at = [pitch](std::vector<double>& a, int64_t i, int64_t j) -> double& {
    return a[i * pitch + j];
  };

  MPI_Datatype row_t, col_t;
  MPI_Type_contiguous(static_cast<int>(lx), MPI_DOUBLE, &row_t);
  MPI_Type_commit(&row_t);
  MPI_Type_vector(static_cast<int>(ly), 1, static_cast<int>(pitch), MPI_DOUBLE, &col_t);
  MPI_Type_commit(&col_t);

  // --- Open the store; restart from its newest revision if there is one. ---
  cairn::Options options;
  if (cfg.async) {
    // Room for a whole checkpoint (the block plus a partly filled buffer),
    // so a put never waits for the disk.
    // Every rank passes the same options: size them for the largest block.
    uint64_t local_bytes = uint64_t(ly * lx) * sizeof(double), largest = 0;
    MPI_Allreduce(&local_bytes, &largest, 1, MPI_UINT64_T, MPI_MAX, MPI_COMM_WORLD);
    options.staging_bytes = largest + 2 * options.write_buffer_size;
  }
  std::unique_ptr<cairn::Store> store;
  Check(cairn::Store::Open(options, cfg.store, MPI_COMM_WORLD, &store), "Store::Open");
  if (store->rank() != g_rank || store->size() != nranks)
    Fail("the store's rank/size do not match MPI_COMM_WORLD");

  if (root) {
    std::printf("heat: %d rank%s as %dx%d, grid %" PRId64 "x%" PRId64 ", %" PRId64
                " steps, checkpoint every %" PRId64 ", store %s\n",
                nranks, nranks == 1 ? "" : "s", dims[0], dims[1], cfg.ny, cfg.nx, cfg.steps,
                cfg.every, cfg.store.c_str());
    std::fflush(stdout);
  }

  std::vector<double> block(static_cast<size_t>(ly * lx));
  int64_t step = 0;
  if (store->revision() > 0) {
    const uint64_t rev = store->revision();
    // The step, written once by rank 0; the grid, read as this rank's box
    // of the global array whatever the blocks of the ranks that wrote it.
    std::string sv;
    Check(store->GetShared("step", &sv), "GetShared(\"step\")");
    uint64_t s = 0;
    if (!DecodeU64(sv, &s)) Fail("the stored \"step\" is not 8 bytes");
    cairn::ArrayInfo info;
    const cairn::Status found = store->GetArrayInfo("grid", &info);
    if (found.IsNotFound())
      Fail("revision " + std::to_string(rev) + " of " + cfg.store +
           " has no global array \"grid\" (written by another program, or by a heat older than "
           "global arrays?); use a new --store");
    Check(found, "GetArrayInfo(\"grid\")");
    const std::vector<uint64_t> shape = {uint64_t(cfg.ny), uint64_t(cfg.nx)};
    if (info.dtype != cairn::DType::kFloat64 || info.shape != shape) {
      std::string have = cairn::DTypeName(info.dtype);
      for (size_t d = 0; d < info.shape.size(); ++d) have += (d ? "x" : " ") + std::to_string(info.shape[d]);
      Fail("the store holds a " + have + " grid; this run wants float64 " + std::to_string(cfg.ny) + "x" +
           std::to_string(cfg.nx) + ": restart with the --ny and --nx it was written with, or use a new --store");
    }
    Check(store->GetArray("grid", {uint64_t(blk.y0), uint64_t(blk.x0)}, {uint64_t(ly), uint64_t(lx)},
                          block.data()),
          "GetArray(\"grid\")");
    for (int64_t i = 0; i < ly; ++i)
      std::memcpy(&at(u, i + 1, 1), &block[i * lx], lx * sizeof(double));
    step = static_cast<int64_t>(s);  // the same on every rank (GetShared broadcasts it)
    if (step > cfg.steps)
      Fail("the store is at step " + std::to_string(step) + ", beyond --steps " +
           std::to_string(cfg.steps));
    if (root) {
      std::printf("restart from revision %" PRIu64 " at step %" PRId64 "\n", rev, step);
      if (store->writer_ranks() != nranks)
        std::printf("the revision was written by %d rank%s, this run has %d: the grid was redistributed\n",
                    store->writer_ranks(), store->writer_ranks() == 1 ? "" : "s", nranks);
      std::fflush(stdout);
    }
  } else {
    for (int64_t i = 0; i < ly; ++i)
      for (int64_t j = 0; j < lx; ++j) at(u, i + 1, j + 1) = Initial(cfg, blk.y0 + i, blk.x0 + j);
    if (root) {
      std::printf("new run: no revision in the store, starting at step 0\n");
      std::fflush(stdout);
    }
  }

  // The grid's box in the global array, and a tag saying what it is.
  const std::vector<uint64_t> grid_shape = {uint64_t(cfg.ny), uint64_t(cfg.nx)};
  const std::vector<uint64_t> box_start = {uint64_t(blk.y0), uint64_t(blk.x0)};
  const std::vector<uint64_t> box_count = {uint64_t(ly), uint64_t(lx)};
  cairn::ArrayPutOptions grid_opt;
  grid_opt.tags = {{"what", cairn::TagValue::String("temperature")}};

  const double alpha = 0.2;  // stable for alpha <= 0.25
  double t_start = Seconds(), t_ckpt = 0.0, t_max = 0.0;
  int checkpoints = 0;
  cairn::AsyncCommit pending;
  for (; step < cfg.steps;) {
    // Halo exchange: rows to north/south, columns to west/east.
    MPI_Sendrecv(&at(u, 1, 1), 1, row_t, north, 0, &at(u, ly + 1, 1), 1, row_t, south, 0, cart,
                 MPI_STATUS_IGNORE);
    MPI_Sendrecv(&at(u, ly, 1), 1, row_t, south, 1, &at(u, 0, 1), 1, row_t, north, 1, cart,
                 MPI_STATUS_IGNORE);
    MPI_Sendrecv(&at(u, 1, 1), 1, col_t, west, 2, &at(u, 1, lx + 1), 1, col_t, east, 2, cart,
                 MPI_STATUS_IGNORE);
    MPI_Sendrecv(&at(u, 1, lx), 1, col_t, east, 3, &at(u, 1, 0), 1, col_t, west, 3, cart,
                 MPI_STATUS_IGNORE);
    for (int64_t i = 1; i <= ly; ++i) {
      const double* up = &u[(i - 1) * pitch];
      const double* mid = &u[i * pitch];
      const double* dn = &u[(i + 1) * pitch];
      double* out = &v[i * pitch];
      for (int64_t j = 1; j <= lx; ++j)
        out[j] = mid[j] + alpha * ((up[j] + dn[j]) + (mid[j - 1] + mid[j + 1]) - 4.0 * mid[j]);
    }
    u.swap(v);  // the halos of v are refreshed by the next exchange
    ++step;
    if (pending.valid() && !pending.Test()) {
      // still in flight: the background thread writes while we compute
    } else if (pending.valid()) {
      Check(pending.Wait(), "asynchronous commit");
      pending = cairn::AsyncCommit();
    }
    if (cfg.sleep_ms > 0) std::this_thread::sleep_for(std::chrono::milliseconds(cfg.sleep_ms));

    if (cfg.every > 0 && step % cfg.every == 0) {
      const double t0 = Seconds();
      for (int64_t i = 0; i < ly; ++i)
        std::memcpy(&block[i * lx], &at(u, i + 1, 1), lx * sizeof(double));
      Check(store->PutArray("grid", cairn::DType::kFloat64, grid_shape, box_start, box_count, block.data(),
                            grid_opt),
            "PutArray(\"grid\")");
      if (root) Check(store->PutShared("step", EncodeU64(static_cast<uint64_t>(step))), "PutShared(\"step\")");
      uint64_t rev = 0;
      if (cfg.async) {
        Check(store->CommitAsync(&pending), "CommitAsync");
        rev = pending.revision();
      } else {
        Check(store->Commit(&rev), "Commit");
      }
      const double dt = Seconds() - t0;
      t_ckpt += dt;
      t_max = std::max(t_max, dt);
      ++checkpoints;
      if (root) {
        std::printf("checkpoint rev %" PRIu64 " at step %" PRId64 " (%.1f ms%s)\n", rev, step,
                    dt * 1e3, cfg.async ? " blocked, committing in the background" : "");
        std::fflush(stdout);
      }
    }
  }
  // The last asynchronous checkpoint must be committed before the run counts
  // as done (Close would wait for it too; waiting here times it).
  const double t_wait0 = Seconds();
  if (pending.valid()) Check(pending.Wait(), "asynchronous commit");
  const double t_final_wait = Seconds() - t_wait0;
  const double t_total = Seconds() - t_start;
  // The slowest rank's view of the checkpoint time.
  double tmax[3] = {t_ckpt, t_max, t_final_wait}, tred[3];
  MPI_Allreduce(tmax, tred, 3, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);

  // --- The checksum of the global grid, in global row-major order. ---
  for (int64_t i = 0; i < ly; ++i)
    std::memcpy(&block[i * lx], &at(u, i + 1, 1), lx * sizeof(double));
  std::vector<int> counts, displs;
  std::vector<double> gathered;
  if (root) {
    counts.resize(nranks);
    displs.resize(nranks);
    int64_t off = 0;
    for (int r = 0; r < nranks; ++r) {
      int c[2];
      MPI_Cart_coords(cart, r, 2, c);
      const Block b = BlockOf(cfg, dims, c);
      if (b.ly * b.lx > INT32_MAX || off > INT32_MAX) Fail("grid too large to gather for the checksum");
      counts[r] = static_cast<int>(b.ly * b.lx);
      displs[r] = static_cast<int>(off);
      off += b.ly * b.lx;
    }
    gathered.resize(static_cast<size_t>(off));
  }
  MPI_Gatherv(block.data(), static_cast<int>(ly * lx), MPI_DOUBLE, gathered.data(), counts.data(),
              displs.data(), MPI_DOUBLE, 0, cart);

  cairn::IoStats io = store->stats();
  uint64_t mine[4] = {io.metadata_ops(), io.write_requests, io.read_requests, io.fsyncs};
  uint64_t sums[4] = {0, 0, 0, 0};
  MPI_Reduce(mine, sums, 4, MPI_UINT64_T, MPI_SUM, 0, MPI_COMM_WORLD);

  Check(store->Close(), "Store::Close");
  store.reset();

  if (root) {
    std::vector<double> global(static_cast<size_t>(cfg.ny * cfg.nx));
    for (int r = 0; r < nranks; ++r) {
      int c[2];
      MPI_Cart_coords(cart, r, 2, c);
      const Block b = BlockOf(cfg, dims, c);
      for (int64_t i = 0; i < b.ly; ++i)
        std::memcpy(&global[(b.y0 + i) * cfg.nx + b.x0], &gathered[displs[r] + i * b.lx],
                    b.lx * sizeof(double));
    }
    Fnv1a64 h;
    double total = 0.0, peak = 0.0;
    for (double x : global) {
      // Hash the little-endian bytes of each double (the same on any host).
      uint64_t bits;
      std::memcpy(&bits, &x, 8);
      unsigned char le[8];
      for (int k = 0; k < 8; ++k) le[k] = static_cast<unsigned char>(bits >> (8 * k));
      h.Update(le, 8);
      total += x;
      peak = std::max(peak, x);
    }
    std::printf("done: step %" PRId64 ", %d checkpoint%s in this run (%.3f s of %.3f s)\n", step,
                checkpoints, checkpoints == 1 ? "" : "s", t_ckpt, t_total);
    if (checkpoints > 0)
      std::printf("timing: mode %s checkpoints %d blocked_total_s %.6f blocked_max_s %.6f "
                  "final_wait_s %.6f run_s %.6f\n",
                  cfg.async ? "async" : "sync", checkpoints, tred[0], tred[1], tred[2], t_total);
    if (cfg.stats)
      std::printf("io (sum over ranks): %" PRIu64 " metadata ops, %" PRIu64 " fsyncs, %" PRIu64
                  " write requests, %" PRIu64 " read requests\n",
                  sums[0], sums[3], sums[1], sums[2]);
    std::printf("total heat %.9g, peak %.9g\n", total, peak);
    std::printf("checksum %016" PRIx64 "\n", h.h);
    std::fflush(stdout);
  }

  MPI_Type_free(&row_t);
  MPI_Type_free(&col_t);
  MPI_Comm_free(&cart);
  MPI_Finalize();
  return 0;
}
