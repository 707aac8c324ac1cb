// The program of the full-disk test (full_disk_test.sh), on 1 or 2 ranks:
//   full_disk_writer DIR [MODE]   DIR on a small file system of its own
// MODE: plain (the default: Commit, no staging), staging (Commit with
// Options::staging_bytes), async (CommitAsync + Wait, no staging) or
// async-staging. With staging or CommitAsync the bytes of a failed commit
// may be lost with its writes, so the failed commit discards the puts made
// since the last revision (its error says so) and the program puts them
// again after freeing space; plain keeps them and commits them as they are.
// 1. Commits revision 1. 2. Rank 0 fills the file system with a filler
// file. 3. Puts that fit the write buffer succeed, and the commit that
// must write them fails with a clear "no space" error on every rank; the
// revision before stays readable. 4. Once the filler is deleted, the same
// handle commits the same puts. 5. Again with values larger than the write
// buffer, so that the Put itself meets the full disk: it fails, and after
// freeing space the handle takes the put and the commit. 6. A write stream
// open across a commit that fails on the full disk.
#include <fcntl.h>
#include <mpi.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <string>
#include <vector>

#include "cairn/store.h"
#include "cairn/stream.h"
#include "store/inspect.h"
#include "test_util.h"

using cairn::Status;
using cairn::test::Pattern;

namespace {

int rank = 0, nranks = 1;
int failures = 0;

void Check(bool ok, const std::string& what) {
  if (!ok) {
    std::fprintf(stderr, "FAIL rank %d: %s\n", rank, what.c_str());
    failures++;
  }
}

std::string Value(int r, int rev, int i, size_t n) { return Pattern(r * 7919 + rev * 131 + i, n); }

// Rank 0 writes `path` until the file system is full; returns bytes written.
uint64_t Fill(const std::string& path) {
  uint64_t total = 0;
  if (rank == 0) {
    int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    std::string block(64 << 10, 'F');
    while (true) {
      ssize_t w = ::write(fd, block.data(), block.size());
      if (w <= 0) break;
      total += uint64_t(w);
    }
    ::close(fd);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  return total;
}

void Free(const std::string& path) {
  MPI_Barrier(MPI_COMM_WORLD);  // every rank is done with the full disk
  if (rank == 0) ::unlink(path.c_str());
  MPI_Barrier(MPI_COMM_WORLD);
}

// Opens the store read-only and checks the newest revision and its values.
void ExpectRevision(const std::string& store, int rev, const std::vector<size_t>& sizes, const char* step) {
  cairn::Options o;
  o.read_only = true;
  std::unique_ptr<cairn::Store> s;
  Status st = cairn::Store::Open(o, store, MPI_COMM_WORLD, &s);
  Check(st.ok(), std::string(step) + ": read-only open: " + st.ToString());
  if (!st.ok()) return;
  Check(int(s->revision()) == rev, std::string(step) + ": newest revision is " + std::to_string(s->revision()) +
                                       ", want " + std::to_string(rev));
  for (size_t i = 0; i < sizes.size(); i++) {
    std::string v;
    st = s->Get("v" + std::to_string(i), &v);
    Check(st.ok() && v == Value(rank, rev, int(i), sizes[i]), std::string(step) + ": value v" + std::to_string(i) +
                                                                   " of revision " + std::to_string(rev) + ": " + st.ToString());
  }
  if (rank == 0) {
    cairn::VerifyReport rep;
    st = cairn::Inspector::Verify(s.get(), &rep);
    Check(st.ok() && rep.problems.empty(), std::string(step) + ": verify: " +
                                               (rep.problems.empty() ? st.ToString() : rep.problems[0]));
  }
  s->Close();
}

bool NoSpace(const Status& s) {
  return s.IsIOError() && s.message().find("No space left on device") != std::string::npos;
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &nranks);
  if (argc != 2 && argc != 3) MPI_Abort(MPI_COMM_WORLD, 2);
  std::string dir = argv[1], store = dir + "/store", filler = dir + "/filler";
  std::string mode = argc == 3 ? argv[2] : "plain";
  if (mode != "plain" && mode != "staging" && mode != "async" && mode != "async-staging") MPI_Abort(MPI_COMM_WORLD, 2);
  const bool async = mode.rfind("async", 0) == 0;
  const bool staging = mode == "staging" || mode == "async-staging";
  const bool discards = mode != "plain";  // a failed commit drops the puts since the last revision
  cairn::Options o;
  if (staging) o.staging_bytes = 4 << 20;
  o.extent_size = 1 << 20;  // revisions 1 and 2 fit one run: their puts need no new run (whose start flushes)
  o.chunk_size = 64 << 10;
  o.write_buffer_size = 1 << 20;
  std::unique_ptr<cairn::Store> s;
  Status st = cairn::Store::Open(o, store, MPI_COMM_WORLD, &s);
  if (!st.ok()) {
    std::fprintf(stderr, "open: %s\n", st.ToString().c_str());
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  // Commit or CommitAsync + Wait.
  auto commit = [&](uint64_t* rev) {
    if (!async) return s->Commit(rev);
    cairn::AsyncCommit h;
    Status c = s->CommitAsync(&h);
    if (!c.ok()) return c;
    return h.Wait(rev);
  };
  // The handle itself still reads revision `rev` (committed data), whatever
  // failed before.
  auto expect_reads = [&](int rev, const std::vector<size_t>& sizes, const std::string& step) {
    for (size_t i = 0; i < sizes.size(); i++) {
      std::string v;
      Status g = s->Get("v" + std::to_string(i), &v);
      Check(g.ok() && v == Value(rank, rev, int(i), sizes[i]),
            step + ": the handle's read of v" + std::to_string(i) + " of revision " + std::to_string(rev) + ": " +
                g.ToString());
    }
  };
  const std::vector<size_t> small = {5000, 100000, 300000};  // fit the 1 MiB buffer together
  auto put_all = [&](int rev, const std::vector<size_t>& sizes) {
    Status first;
    for (size_t i = 0; i < sizes.size(); i++) {
      Status p = s->Put("v" + std::to_string(i), Value(rank, rev, int(i), sizes[i]));
      if (first.ok()) first = p;
    }
    return first;
  };

  // 1. Revision 1.
  uint64_t rev = 0;
  Check(put_all(1, small).ok() && commit(&rev).ok() && rev == 1, "revision 1");

  // 2.-3. Fill the disk; buffered puts succeed, their commit fails cleanly.
  uint64_t filled = Fill(filler);
  st = put_all(2, small);
  Check(st.ok(), "buffered puts on a full disk: " + st.ToString());
  st = commit(&rev);
  Check(!st.ok(), "a commit on a full disk succeeded");
  Check(NoSpace(st), "the failed commit's error does not say the disk is full: " + st.ToString());
  if (discards) Check(st.message().find("discarded") != std::string::npos, "the error does not say the puts were discarded: " + st.ToString());
  if (rank == 0) std::printf("%s: filled %lu bytes; commit on the full disk: %s\n", mode.c_str(), filled, st.ToString().c_str());
  Check(s->revision() == 1, "the failed commit moved the handle to revision " + std::to_string(s->revision()));
  ExpectRevision(store, 1, small, "after the failed commit");
  if (!discards) {
    // Still full: a retry fails the same way, and changes nothing.
    st = commit(&rev);
    Check(NoSpace(st), "retry on the still full disk: " + st.ToString());
  }
  // With staging the failed commit dropped the failed writes (and the puts
  // they held): committed data reads back even before space is freed.
  // Without it the writer keeps its bytes and a read first retries them.
  if (staging) expect_reads(1, small, "on the full disk after the failed commit");

  // 4. Space freed: the same handle commits the same puts (put again if
  //    the failed commit discarded them).
  Free(filler);
  if (discards) {
    st = put_all(2, small);
    Check(st.ok(), "the puts again after freeing space: " + st.ToString());
  }
  st = commit(&rev);
  Check(st.ok() && rev == 2, "commit after freeing space: " + st.ToString());
  ExpectRevision(store, 2, small, "after freeing space");

  expect_reads(2, small, "after freeing space");

  // 5. A value larger than the write buffer goes straight to the file: the
  //    Put itself meets the full disk. With staging the background thread
  //    meets it: the put, or else the commit, fails.
  const std::vector<size_t> large = {5000, 3 << 20};
  Fill(filler);
  st = put_all(3, large);
  if (!staging) {
    Check(NoSpace(st), "a large put on a full disk: " + st.ToString());
  } else {
    Status c = commit(&rev);
    Check(!c.ok(), "a commit of large values on a full disk succeeded");
    Check(NoSpace(st) || NoSpace(c), "large values on a full disk: put: " + st.ToString() + "; commit: " + c.ToString());
    expect_reads(2, small, "on the full disk after the failed commit of large values");
  }
  Free(filler);
  std::string v;
  st = s->Get("v1", &v);  // the failed put left the key as it was
  Check(st.ok() && v == Value(rank, 2, 1, small[1]), "v1 after its failed put: " + st.ToString());
  st = put_all(3, large);
  Check(st.ok(), "the same puts after freeing space: " + st.ToString());
  st = commit(&rev);
  Check(st.ok() && rev == 3, "commit of the large values: " + st.ToString());
  ExpectRevision(store, 3, large, "large values");

  // 6. A write stream open across the commit that fails on the full disk.
  //    Plain: the writer kept the stream's bytes, so the stream goes on and
  //    its data joins the first commit after its close. With staging or
  //    CommitAsync the failed commit dropped the writes the stream's bytes
  //    went through: the stream fails from then on, saying so, and its key
  //    keeps its previous object (it used to close OK and commit a value
  //    whose chunks were never written: a checksum mismatch on every read).
  const std::string previous = "previous object of rank " + std::to_string(rank);
  Check(s->Put("stream", previous).ok() && commit(&rev).ok() && rev == 4, "revision 4");
  std::string streamed = Pattern(rank * 31 + 4, 300000), more = Pattern(rank * 31 + 5, 300000);
  std::unique_ptr<cairn::StreamWriter> w;
  st = s->OpenWriteStream("stream", {}, &w);
  Check(st.ok(), "open the stream: " + st.ToString());
  if (w) Check(w->Write(streamed.data(), streamed.size()).ok(), "stream write before the disk is full");
  Fill(filler);
  st = commit(&rev);
  Check(!st.ok(), "the commit with an open stream on a full disk succeeded");
  Free(filler);
  if (w) {
    Status ws = w->Write(more.data(), more.size());
    Status cs = w->Close();
    if (discards) {
      Check(!ws.ok() && ws.message().find("failed") != std::string::npos,
            "a stream whose bytes a failed staged commit dropped took another write: " + ws.ToString());
      Check(!cs.ok(), "a stream whose bytes a failed commit dropped closed OK");
    } else {
      Check(ws.ok() && cs.ok(), "the stream after freeing space: write " + ws.ToString() + ", close " + cs.ToString());
    }
  }
  st = commit(&rev);
  Check(st.ok() && rev == 5, "the commit after the stream: " + st.ToString());
  st = s->Get("stream", &v);
  std::string want = discards ? previous : streamed + more;
  Check(st.ok() && v == want, "the key of the stream after the failed commit reads " + st.ToString() + " (" +
                                   std::to_string(v.size()) + " bytes, want " + std::to_string(want.size()) + ")");
  if (discards) {  // the stream written again
    st = s->OpenWriteStream("stream", {}, &w);
    if (st.ok()) st = w->Write(streamed.data(), streamed.size());
    if (st.ok()) st = w->Close();
    if (st.ok()) st = commit(&rev);
    Check(st.ok() && s->Get("stream", &v).ok() && v == streamed, "the stream written again: " + st.ToString());
  }
  s->Close();

  int worst = 0;
  MPI_Allreduce(&failures, &worst, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  if (rank == 0) std::printf("%d rank(s): %s\n", nranks, worst ? "FAILED" : "all checks passed");
  MPI_Finalize();
  return worst ? 1 : 0;
}
