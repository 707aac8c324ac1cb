// The writer of the random-moment crash test (crash_random_test.sh).
//   crash_loop_writer STORE loop    commit revision after revision until killed
//   crash_loop_writer STORE check   the newest revision must be the last one
//                                   acknowledged (or the one after it, whose
//                                   commit may have reached its commit point
//                                   before the kill), every value intact; then
//                                   commit one more and read it back
// Values depend only on (rank, revision, key), so any process can check them.
// Each rank writes its pid to STORE.pid.<rank> and, once open, STORE.ready.<rank>;
// rank 0 appends each revision to STORE.acked once Commit has returned.
#include <fcntl.h>
#include <mpi.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>

#include "cairn/store.h"
#include "test_util.h"

using cairn::test::Pattern;

namespace {

constexpr int kKeys = 5;

std::string Value(int rank, uint64_t rev, int i) {
  return Pattern(rank * 1000003ull + rev * 101 + i, size_t(1000 + 9000 * i));
}

void WriteFile(const std::string& path, const std::string& text, bool append) {
  int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | (append ? O_APPEND : O_TRUNC), 0644);
  if (fd < 0 || ::write(fd, text.data(), text.size()) != ssize_t(text.size())) std::abort();
  ::close(fd);
}

// The last revision acknowledged to the caller (0: none).
uint64_t LastAcked(const std::string& store) {
  std::ifstream in(store + ".acked");
  uint64_t r = 0, last = 0;
  while (in >> r) last = r;
  return last;
}

cairn::Status PutRevision(cairn::Store* s, int rank, uint64_t rev) {
  for (int i = 0; i < kKeys; i++) {
    cairn::Status st = s->Put("v" + std::to_string(i), Value(rank, rev, i), {{"rev", cairn::TagValue::UInt(rev)}});
    if (!st.ok()) return st;
  }
  if (rank == 0) return s->PutShared("meta", "revision " + std::to_string(rev));
  return cairn::Status::OK();
}

std::string CheckRevision(cairn::Store* s, int rank, uint64_t rev) {
  for (int i = 0; i < kKeys; i++) {
    std::string v;
    cairn::Status st = s->Get("v" + std::to_string(i), &v);
    if (!st.ok()) return "get v" + std::to_string(i) + ": " + st.ToString();
    if (v != Value(rank, rev, i)) return "value v" + std::to_string(i) + " of revision " + std::to_string(rev) + " differs";
  }
  std::string meta;
  cairn::Status st = s->GetShared("meta", &meta);
  if (!st.ok()) return "get shared: " + st.ToString();
  if (meta != "revision " + std::to_string(rev)) return "shared value differs";
  return "";
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (argc != 3) {
    if (rank == 0) std::fprintf(stderr, "usage: crash_loop_writer STORE loop|check\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  std::string store = argv[1], mode = argv[2];
  WriteFile(store + ".pid." + std::to_string(rank), std::to_string(getpid()) + "\n", false);
  cairn::Options o;
  o.extent_size = 1 << 20;
  o.write_buffer_size = 64 << 10;  // puts flush on their own, between commits too
  std::unique_ptr<cairn::Store> s;
  cairn::Status st = cairn::Store::Open(o, store, MPI_COMM_WORLD, &s);
  std::string err;
  if (!st.ok()) err = "open: " + st.ToString();
  if (err.empty() && mode == "loop") {
    WriteFile(store + ".ready." + std::to_string(rank), "1\n", false);
    for (uint64_t rev = s->revision() + 1; err.empty(); rev++) {
      st = PutRevision(s.get(), rank, rev);
      uint64_t got = 0;
      if (st.ok()) st = s->Commit(&got);
      if (!st.ok()) err = "revision " + std::to_string(rev) + ": " + st.ToString();
      else if (got != rev) err = "committed as " + std::to_string(got);
      else if (rank == 0) WriteFile(store + ".acked", std::to_string(rev) + "\n", true);
    }
  } else if (err.empty() && mode == "check") {
    uint64_t acked = 0;
    if (rank == 0) acked = LastAcked(store);
    MPI_Bcast(&acked, 1, MPI_UINT64_T, 0, MPI_COMM_WORLD);
    uint64_t rev = s->revision();
    if (rev != acked && rev != acked + 1)
      err = "reopened at revision " + std::to_string(rev) + ", but " + std::to_string(acked) + " was acknowledged";
    if (err.empty() && rev > 0) err = CheckRevision(s.get(), rank, rev);
    // The store takes the next revision, which reads back.
    if (err.empty()) {
      st = PutRevision(s.get(), rank, rev + 1);
      uint64_t got = 0;
      if (st.ok()) st = s->Commit(&got);
      if (!st.ok()) err = "next commit: " + st.ToString();
      else if (got != rev + 1) err = "next commit numbered " + std::to_string(got);
      else err = CheckRevision(s.get(), rank, rev + 1);
      if (err.empty() && rank == 0) WriteFile(store + ".acked", std::to_string(rev + 1) + "\n", true);
    }
  }
  if (!err.empty()) std::fprintf(stderr, "rank %d: %s\n", rank, err.c_str());
  if (s) s->Close();
  int bad = err.empty() ? 0 : 1, worst = 0;
  MPI_Allreduce(&bad, &worst, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  MPI_Finalize();
  return worst;
}
