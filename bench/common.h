// The harness shared by every benchmark program of the suite.
//
// Each program (bench_device, bench_posix, bench_mpiio, bench_hdf5,
// bench_rocksdb, bench_cairn) implements one System and calls RunMain(). The
// harness parses the command line, builds the workload, times the phases the
// way IOR does (barrier; first open .. last close, durability inside; barrier;
// time = latest end - earliest start over all ranks), evicts the files from
// the page cache before every read, checks what is read, and prints one
// "RESULT {json}" line per timed repetition on rank 0.
//
// The workload, in one form for every system: each rank writes `count`
// objects of `size` bytes (W1: count = B / T objects of T bytes, one object
// per transfer, as IOR; W2: K objects of V bytes). Object i of rank r in
// checkpoint c has a 16-byte stamp (r, c, i) at its start, so a read that
// returns the wrong object is detected.
//
// Markers: around every phase the harness makes a failing faccessat() on a
// path under /cairn-bench-marker/. The calls cost a microsecond and change
// nothing; bench/run.py runs the programs under strace and uses them to cut
// the trace into windows (open + first checkpoint, each further checkpoint,
// close, restart, sparse read).
#pragma once

#include <mpi.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace bench {

// Stops every rank with a message: benchmarks do not limp on after an error.
[[noreturn]] void Die(const char* fmt, ...) __attribute__((format(printf, 1, 2)));
#define BENCH_CHECK(cond, ...)       \
  do {                               \
    if (!(cond)) ::bench::Die(__VA_ARGS__); \
  } while (0)

// Options of one invocation. Every system accepts the common ones; the
// `extra` map holds system-specific ones (--name=value).
struct Config {
  std::string phase;        // "write", "read" (full read and sparse read), "noop"
  std::string dir;          // where the system's files go (one dir per repetition below it)
  uint64_t count = 0;       // objects per rank
  uint64_t size = 0;        // bytes per object
  int reps = 1;             // timed repetitions in this process
  int checkpoints = 1;      // checkpoints per repetition (write phase)
  double sparse_fraction = 0.01;  // fraction of the objects the sparse read asks for
  uint64_t seed = 1;        // of the sparse selection
  int scale = 1;            // device limit only: act for this many ranks
  bool keep = false;        // do not delete the files after the read phase
  std::map<std::string, std::string> extra;

  std::string Get(const std::string& key, const std::string& dflt) const;
  uint64_t GetU64(const std::string& key, uint64_t dflt) const;
};

// Where one repetition keeps its files: <dir>/rep<k>.
std::string RepDir(const Config& cfg, int rep);

// Counters a system may report for a phase (summed over ranks by the harness).
using Counters = std::map<std::string, double>;

// One system under test. The harness calls, for the write phase of one
// repetition:   OpenForWrite, Checkpoint(0..C-1), CloseAfterWrite;
// for the read phase:  OpenForRead, ReadAll or ReadSome, CloseAfterRead.
// Systems that open files per checkpoint (POSIX, MPI-IO, HDF5) do it inside
// Checkpoint and leave the Open/Close hooks empty. Every function is called
// by every rank. Data must be durable when the last write-phase call returns.
class System {
 public:
  virtual ~System() = default;
  virtual const char* name() const = 0;
  virtual void OpenForWrite(const std::string& rep_dir) {}
  virtual void Checkpoint(const std::string& rep_dir, int ckpt) = 0;
  virtual void CloseAfterWrite() {}
  virtual void OpenForRead(const std::string& rep_dir, int ckpt) {}
  // Reads all of this rank's objects of checkpoint `ckpt`; returns the number
  // of objects whose stamp did not match. Default: ReadSome of every id.
  virtual uint64_t ReadAll(const std::string& rep_dir, int ckpt);
  // Reads the objects `ids` (sorted, unique) of this rank; returns mismatches.
  virtual uint64_t ReadSome(const std::string& rep_dir, int ckpt,
                            const std::vector<uint64_t>& ids) = 0;
  virtual void CloseAfterRead() {}
  // Counters of the last phase (e.g. cairn's IoStats), reset by the harness.
  virtual Counters TakeCounters() { return {}; }
};

// The key of object `i` of checkpoint `ckpt`, for the key-value systems.
// The memory a reader reads into, made (and touched) before the timed
// phase: 4096-byte aligned in every system that uses it (bench_posix,
// bench_cairn), so that neither reads into a placement the kernel copies
// more slowly. On the VM of 2026-12-07 (AMD EPYC) the kernel's copy costs
// 3x the CPU when the destination sits 1-31 bytes past the file offset
// within a page (bench/HISTORY.md, "Reads into buffers from malloc"): a
// std::vector's data (page + 16) against a page-aligned value.
class ReadBuffer {
 public:
  explicit ReadBuffer(uint64_t n = 0) { assign(n); }
  // n zero bytes, starting `buffer-offset` bytes (a bench argument, 0 by
  // default) past a page boundary: 16 is where malloc puts a large buffer
  // (a std::vector's), for measuring what a user's own buffers get.
  void assign(uint64_t n);
  char* data() { return p_.get() + off_; }
  uint64_t size() const { return n_; }

 private:
  std::unique_ptr<char, void (*)(void*)> p_{nullptr, std::free};
  uint64_t n_ = 0;
  uint64_t off_ = 0;
};

std::string ObjectKey(int ckpt, uint64_t i);
// The same into *out, reusing its memory.
void ObjectKey(int ckpt, uint64_t i, std::string* out);

// The process-wide context a System uses.
struct Context {
  Config cfg;
  int rank = 0;
  int nranks = 1;
  MPI_Comm comm = MPI_COMM_WORLD;
};
const Context& Ctx();

// Writes the stamp (rank, ckpt, index) into the first 16 bytes of `obj`
// (objects shorter than 16 bytes get a truncated stamp).
void Stamp(char* obj, uint64_t size, int rank, int ckpt, uint64_t index);
// True if `obj` carries the stamp (rank, ckpt, index).
bool CheckStamp(const char* obj, uint64_t size, int rank, int ckpt, uint64_t index);
// A buffer of `size` bytes of incompressible filler (the same on every call
// for a given rank), to be stamped per object.
std::vector<char> MakeFiller(uint64_t size, int rank);

// The objects of a rank that the sparse read asks for: max(1, fraction*count)
// distinct ids chosen at random (seeded by seed and rank), sorted.
std::vector<uint64_t> SparseIds(uint64_t count, double fraction, uint64_t seed, int rank);

// pwrite/pread of exactly n bytes at `off` (retrying short transfers); dies
// on error or end of file. `path` is for the message.
void PWriteFull(int fd, const char* p, uint64_t n, uint64_t off, const std::string& path);
void PReadFull(int fd, char* p, uint64_t n, uint64_t off, const std::string& path);

// A failing faccessat() on /cairn-bench-marker/<label>: a trace boundary.
void Marker(const std::string& label);

// Drops the pages of every regular file under `path` from the page cache
// (fdatasync, then posix_fadvise(POSIX_FADV_DONTNEED)) and counts, with
// mincore(), how many pages are still resident afterwards.
struct EvictResult {
  uint64_t files = 0;
  uint64_t bytes = 0;
  uint64_t resident_pages = 0;
};
EvictResult EvictTree(const std::string& path);

// Removes `path` recursively (rank 0 only; others return at once).
void RemoveTree(const std::string& path);

// Parses argv, initializes MPI, runs the phase for cfg.reps repetitions and
// prints the results. Returns the process exit code.
int RunMain(int argc, char** argv, System* (*make_system)());

}  // namespace bench
