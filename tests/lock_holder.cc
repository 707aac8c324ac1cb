// A job that holds a store open for writing, for lock_test.sh and
// lock_interactions_test.sh:
//   lock_holder STORE SECONDS [MODE [REV]]
// MODE plain (the default): opens STORE read-write, puts a value, and when
// every rank is in, rank 0 writes the pids of all ranks into STORE.held.
// Then it waits until the file STORE.release exists (or SECONDS pass),
// commits and closes ("committed rev R").
// MODE async, staged: opens STORE, puts "held" and "big" (8 MiB over all
// ranks), starts an asynchronous commit (staged: with staging_bytes, the
// puts copied into staging buffers) and puts "next" while it is in flight;
// writes STORE.held with the commit still in flight (the store is not
// called again until the release, so rank 0 has not appended its record),
// and at STORE.release calls Close with the commit in flight: Close must
// finish it, and only then release the lock ("closed with rev R in
// flight"). "next" is dropped.
// MODE await REV: opens STORE read-write over and over while it is
// refused (every 2 ms, SECONDS at most; after the first refusal rank 0
// creates STORE.polling), then checks that the store is at revision REV,
// that every namespace of it holds the "held" and "big" of its writer
// rank and no "next", commits ("opened rev R after K refusals, N
// namespaces") and closes.
// MODE compact (run with a small CAIRN_MANIFEST_COMPACT_BYTES): opens
// STORE with keep_revisions = 1 ("opened at rev R"; each rank's "n" of R
// must read R), then commits revision after revision ("committed rev R",
// on stdout and appended to STORE.acked; each rank's "n" set to R) while
// rank 0 counts the manifest's
// compactions (its inode changes); after the first one it writes
// STORE.held, and it stops at STORE.release once there were at least 3
// ("K compactions").
// Exit 0 only if all of that succeeded.
#include <mpi.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>
#include <vector>

#include "cairn/store.h"

namespace {

int rank = 0, size = 1;

// Every rank's status agreed: true if all are ok, else prints the bad ones.
bool AllOk(const cairn::Status& st, const char* what) {
  int bad = st.ok() ? 0 : 1, worst = 0;
  if (bad) std::fprintf(stderr, "rank %d: %s: %s\n", rank, what, st.ToString().c_str());
  MPI_Allreduce(&bad, &worst, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  return worst == 0;
}

constexpr uint64_t kBigBytes = 8 << 20;  // over all ranks of the writing job

// Namespace r's "big" in a job of n ranks: its share of kBigBytes, every
// byte naming r.
std::string Big(int r, int n) { return std::string(kBigBytes / uint64_t(n), char('A' + r % 26)); }
std::string Held(int r) { return "by lock_holder rank " + std::to_string(r); }

// Rank 0 creates `path` (empty) atomically.
void Signal(const std::string& path, const std::string& text) {
  if (rank != 0) return;
  std::ofstream f(path + ".tmp");
  f << text;
  f.close();
  std::rename((path + ".tmp").c_str(), path.c_str());
}

// Until `path` exists (checked by rank 0) or `seconds` pass.
void AwaitFile(const std::string& path, int seconds) {
  int go = 0;
  for (int i = 0; i < seconds * 10 && !go; i++) {
    if (rank == 0) go = access(path.c_str(), F_OK) == 0;
    MPI_Bcast(&go, 1, MPI_INT, 0, MPI_COMM_WORLD);
    if (!go) usleep(100000);
  }
}

void WriteHeld(const std::string& path) {
  int pid = int(getpid());
  std::vector<int> pids(size);
  MPI_Gather(&pid, 1, MPI_INT, pids.data(), 1, MPI_INT, 0, MPI_COMM_WORLD);
  std::string text;
  for (int p : pids) text += std::to_string(p) + " ";
  Signal(path + ".held", text + "\n");
}

cairn::Options HolderOptions() {
  cairn::Options o;
  o.extent_size = 1 << 20;
  o.write_buffer_size = 256 << 10;
  return o;
}

int Plain(const std::string& path, int seconds) {
  std::unique_ptr<cairn::Store> s;
  cairn::Status st = cairn::Store::Open(HolderOptions(), path, MPI_COMM_WORLD, &s);
  if (st.ok()) st = s->Put("held", Held(rank));
  if (!AllOk(st, "open")) return 1;
  WriteHeld(path);
  AwaitFile(path + ".release", seconds);
  uint64_t rev = 0;
  st = s->Commit(&rev);
  if (st.ok()) st = s->Close();
  if (!AllOk(st, "commit")) return 1;
  if (rank == 0) std::printf("committed rev %lu\n", (unsigned long)rev);
  return 0;
}

int InFlight(const std::string& path, int seconds, bool staged) {
  cairn::Options o = HolderOptions();
  if (staged) o.staging_bytes = 16 << 20;
  std::unique_ptr<cairn::Store> s;
  cairn::Status st = cairn::Store::Open(o, path, MPI_COMM_WORLD, &s);
  if (st.ok()) st = s->Put("held", Held(rank));
  if (st.ok()) st = s->Put("big", Big(rank, size));
  cairn::AsyncCommit c;
  if (st.ok()) st = s->CommitAsync(&c);
  if (st.ok()) st = s->Put("next", "put while revision " + std::to_string(c.revision()) + " is in flight");
  if (!AllOk(st, "open, puts and CommitAsync")) return 1;
  WriteHeld(path);
  AwaitFile(path + ".release", seconds);
  uint64_t rev = c.revision();
  st = s->Close();  // the commit is still in flight: Close finishes it
  if (!AllOk(st, "close")) return 1;
  if (!c.committed()) {
    std::fprintf(stderr, "rank %d: revision %lu not committed by Close\n", rank, (unsigned long)rev);
    return 1;
  }
  if (rank == 0) std::printf("closed with rev %lu in flight\n", (unsigned long)rev);
  return 0;
}

int Await(const std::string& path, int seconds, uint64_t want) {
  std::unique_ptr<cairn::Store> s;
  cairn::Status st;
  long refusals = 0;
  for (long i = 0; i < seconds * 500L; i++) {
    st = cairn::Store::Open(HolderOptions(), path, MPI_COMM_WORLD, &s);
    if (!st.IsIOError() || st.ToString().find("is open for writing by") == std::string::npos) break;
    if (refusals++ == 0) Signal(path + ".polling", "");
    usleep(2000);
  }
  if (!AllOk(st, "open")) return 1;
  bool good = s->revision() == want;
  if (!good) std::fprintf(stderr, "rank %d: opened at revision %lu, not %lu\n", rank,
                          (unsigned long)s->revision(), (unsigned long)want);
  int writers = s->writer_ranks();
  for (int r = rank; good && r < writers; r += size) {
    cairn::ReadOptions ro;
    ro.rank = r;
    std::string held, big, next;
    st = s->Get("held", &held, ro);
    if (st.ok()) st = s->Get("big", &big, ro);
    if (!st.ok() || held != Held(r) || big != Big(r, writers)) {
      std::fprintf(stderr, "rank %d: namespace %d of revision %lu: %s, held '%s', big %zu bytes\n", rank, r,
                   (unsigned long)s->revision(), st.ToString().c_str(), held.c_str(), big.size());
      good = false;
    } else if (!s->Get("next", &next, ro).IsNotFound()) {
      std::fprintf(stderr, "rank %d: namespace %d holds 'next', put after the commit began\n", rank, r);
      good = false;
    }
  }
  if (!AllOk(good ? cairn::Status::OK() : cairn::Status::Corruption("bad revision"), "check")) return 1;
  uint64_t rev = 0;
  st = s->Put("held", Held(rank));
  if (st.ok()) st = s->Commit(&rev);
  if (st.ok()) st = s->Close();
  if (!AllOk(st, "commit")) return 1;
  if (rank == 0)
    std::printf("opened rev %lu after %ld refusals, %d namespaces; committed rev %lu\n", (unsigned long)want,
                refusals, writers, (unsigned long)rev);
  return 0;
}

// The inode of STORE/MANIFEST (0 if it cannot be read).
uint64_t ManifestInode(const std::string& path) {
  struct stat st;
  return ::stat((path + "/MANIFEST").c_str(), &st) == 0 ? uint64_t(st.st_ino) : 0;
}

int Compact(const std::string& path, int seconds) {
  cairn::Options o = HolderOptions();
  o.keep_revisions = 1;
  std::unique_ptr<cairn::Store> s;
  cairn::Status st = cairn::Store::Open(o, path, MPI_COMM_WORLD, &s);
  if (!AllOk(st, "open")) return 1;
  uint64_t rev = s->revision();
  if (rank == 0) std::printf("opened at rev %lu\n", (unsigned long)rev);
  std::string n;
  if (rev > 0) st = s->Get("n", &n);
  if (st.ok() && rev > 0 && n != std::to_string(rev))
    st = cairn::Status::Corruption("\"n\" of revision " + std::to_string(rev) + " reads '" + n + "'");
  if (!AllOk(st, "reading the revision opened")) return 1;
  uint64_t inode = rank == 0 ? ManifestInode(path) : 0;
  int compactions = 0, held = 0;
  for (long i = 0; i < seconds * 1000L; i++) {
    st = s->Put("n", std::to_string(rev + 1));
    if (st.ok()) st = s->Put("held", Held(rank));
    uint64_t got = 0;
    if (st.ok()) st = s->Commit(&got);
    if (!AllOk(st, "commit")) return 1;
    rev = got;
    int go = 0;
    if (rank == 0) {
      // Into a file, not only stdout: mpiexec may drop a killed job's output.
      std::string line = "committed rev " + std::to_string(rev) + "\n";
      std::printf("%s", line.c_str());
      FILE* f = std::fopen((path + ".acked").c_str(), "a");
      if (f) std::fputs(line.c_str(), f);
      if (f) std::fclose(f);
      uint64_t now = ManifestInode(path);
      if (now != inode) compactions++;
      inode = now;
      go = compactions >= 3 && access((path + ".release").c_str(), F_OK) == 0;
    }
    MPI_Bcast(&compactions, 1, MPI_INT, 0, MPI_COMM_WORLD);
    MPI_Bcast(&go, 1, MPI_INT, 0, MPI_COMM_WORLD);
    if (compactions > 0 && !held) {
      WriteHeld(path);
      held = 1;
    }
    if (go) break;
    usleep(2000);
  }
  st = s->Close();
  if (!AllOk(st, "close")) return 1;
  if (rank == 0) std::printf("%d compactions\n", compactions);
  return compactions >= 3 ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  std::string mode = argc > 3 ? argv[3] : "plain";
  bool known = mode == "plain" || mode == "async" || mode == "staged" || mode == "compact" ||
               (mode == "await" && argc == 5);
  if (argc < 3 || argc > 5 || !known) {
    if (rank == 0) std::fprintf(stderr, "usage: lock_holder STORE SECONDS [plain|async|staged|compact|await REV]\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  std::string path = argv[1];
  int seconds = std::atoi(argv[2]);
  int rc = mode == "plain"     ? Plain(path, seconds)
           : mode == "compact" ? Compact(path, seconds)
           : mode == "await"   ? Await(path, seconds, std::strtoull(argv[4], nullptr, 10))
                             : InFlight(path, seconds, mode == "staged");
  MPI_Finalize();
  return rc;
}
