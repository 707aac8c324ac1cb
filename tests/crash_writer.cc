// A small MPI program for the crash tests. Each revision R holds, on each
// rank, values whose bytes depend only on (rank, R), so any later process
// can check a revision without remembering anything.
//   crash_writer STORE write R   commit revision R (the store must be at R-1)
//   crash_writer STORE check R   the newest revision must be R, all intact
//   crash_writer STORE commit-alone R  rank 0 alone calls Commit (the others
//                                 sleep 30 s): with collective_timeout_s = 2
//                                 the job must abort with a message
//   crash_writer STORE open-alone R   the same for an Open made by rank 0 alone
//   crash_writer STORE getshared-alone R  the same for a GetShared by rank 0 alone
//   crash_writer STORE close-alone R  the same for a Close made by rank 0 alone
//                                 (of a read-write handle: frees its window)
// CAIRN_TEST_KEEP=K in the environment opens with keep_revisions = K.
//   crash_writer STORE pin R        Pin(R) (collective), nothing else
//   crash_writer STORE check-old R  revision R, opened read-only, all intact
//   crash_writer STORE check-ro R   the newest revision, opened read-only (no
//                                   writable open first: a torn tail stays),
//                                   must be R, all intact
// CAIRN_TEST_PARENT=P: write and write-async expect the store's newest
// revision to be P instead of R-1 (after a repair reserved a number).
//   crash_writer STORE write-async R      commit R with CommitAsync, staged puts,
//                                         buffers overwritten at once; Close waits
//   crash_writer STORE write-async-leak R  the same, but the store is never
//                                         closed: MPI_Finalize must finish it
//   crash_writer STORE stream-across R        a write stream of key "st" open
//                                         across commit R: opened, written in
//                                         part and flushed, then R committed
//                                         (its other values put), the stream
//                                         finished, closed and committed as
//                                         R + 1 (values of R + 1 put)
//   crash_writer STORE stream-across-async R  the same with CommitAsync (no
//                                         staging), the stream written and
//                                         flushed while each commit is in flight
// CAIRN_TEST_STREAM=1: write and write-async also write "st" (as a stream,
// closed before the commit) and check checks it: at revision R it must be
// StreamValue(rank, S) whole, S = CAIRN_TEST_STREAM_REV (default R).
// In the stream-across modes CAIRN_CRASH_POINT applies to commit R only;
// CAIRN_TEST_SECOND_CRASH_POINT=P arms P for commit R + 1.
#include <mpi.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <string>

#include "cairn/iostream.h"
#include "cairn/stream.h"
#include "cairn/store.h"
#include "test_util.h"

using cairn::test::Pattern;

static std::string Value(int rank, uint64_t rev, int i) {
  return Pattern(rank * 1000003ull + rev * 101 + i, size_t(3000 + 40000 * i));
}

// Stream "st" as written for revision `rev`: 700 KB, several chunks.
static std::string StreamValue(int rank, uint64_t rev) {
  return Pattern(rank * 7000003ull + rev * 131 + 77, size_t(700000 + 1000 * rank + rev % 97));
}

static bool TestStream() {
  const char* e = std::getenv("CAIRN_TEST_STREAM");
  return e && *e && std::string(e) != "0";
}

// Writes all of `v` to a new stream of "st" and closes it.
static cairn::Status WriteWholeStream(cairn::Store* s, const std::string& v) {
  std::unique_ptr<cairn::StreamWriter> w;
  cairn::Status st = s->OpenWriteStream("st", {}, &w);
  if (st.ok()) st = w->Write(v);
  if (st.ok()) st = w->Close();
  return st;
}

// The stream-across modes (see the top of the file). "" or the first error.
static std::string StreamAcross(cairn::Store* s, int rank, uint64_t rev, bool async) {
  std::string v = StreamValue(rank, rev + 1);
  size_t a = 300000, b = 500000;  // written before commit R, during it, after it
  std::unique_ptr<cairn::StreamWriter> w;
  cairn::Status st = s->OpenWriteStream("st", {}, &w);
  if (st.ok()) st = w->Write(v.data(), a);
  if (st.ok()) st = w->Flush();  // its chunks on disk, not committed
  for (uint64_t r = rev; r <= rev + 1 && st.ok(); r++) {
    for (int i = 0; i < 6 && st.ok(); i++)
      st = s->Put("v" + std::to_string(i), Value(rank, r, i), {{"rev", cairn::TagValue::UInt(r)}});
    if (st.ok() && rank == 0) st = s->PutShared("meta", "revision " + std::to_string(r));
    if (!st.ok()) break;
    if (r == rev + 1) {
      // Before commit R + 1: arm its crash point (commit R is finished).
      if (const char* p = std::getenv("CAIRN_TEST_SECOND_CRASH_POINT")) setenv("CAIRN_CRASH_POINT", p, 1);
      else unsetenv("CAIRN_CRASH_POINT");
    }
    uint64_t got = 0;
    if (async) {
      cairn::AsyncCommit h;
      st = s->CommitAsync(&h);
      // While it is in flight: the stream goes on (commit R: its middle
      // part, flushed; commit R + 1: nothing, it was closed).
      if (st.ok() && r == rev) st = w->Write(v.data() + a, b - a);
      if (st.ok() && r == rev) st = w->Flush();
      cairn::Status ws = h.Wait();
      if (st.ok()) st = ws;
      got = h.revision();
    } else {
      st = s->Commit(&got);
      if (st.ok() && r == rev) st = w->Write(v.data() + a, b - a);
    }
    if (st.ok() && got != r) return "committed as " + std::to_string(got) + ", not " + std::to_string(r);
    if (st.ok() && r == rev) {
      st = w->Write(v.data() + b, v.size() - b);
      if (st.ok()) st = w->Close();
    }
  }
  return st.ok() ? "" : "stream across revision " + std::to_string(rev) + ": " + st.ToString();
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (argc != 4) {
    if (rank == 0) std::fprintf(stderr, "usage: crash_writer STORE write|check REVISION\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  std::string mode = argv[2];
  uint64_t rev = std::strtoull(argv[3], nullptr, 10);
  cairn::Options o;
  o.extent_size = 1 << 20;
  o.write_buffer_size = 256 << 10;
  // CAIRN_TEST_KEEP=K: keep K revisions (retention), so that new revisions
  // reuse the extents of expired ones.
  if (const char* k = std::getenv("CAIRN_TEST_KEEP")) o.keep_revisions = std::strtoull(k, nullptr, 10);
  o.read_only = mode == "check-ro";
  std::unique_ptr<cairn::Store> s;
  cairn::Status st = cairn::Store::Open(o, argv[1], MPI_COMM_WORLD, &s);
  int bad = 0;
  auto fail = [&](const std::string& what) {
    std::fprintf(stderr, "rank %d: %s\n", rank, what.c_str());
    bad = 1;
  };
  if (!st.ok()) fail("open: " + st.ToString());
  if (mode == "open-alone" || mode == "close-alone") {
    s.reset();
    o.collective_timeout_s = 2;
    if (mode == "close-alone") {
      st = cairn::Store::Open(o, argv[1], MPI_COMM_WORLD, &s);
      if (!st.ok()) fail("open: " + st.ToString());
    }
    if (!bad && rank == 0) {
      // The others never join: neither call may return.
      if (mode == "open-alone") st = cairn::Store::Open(o, argv[1], MPI_COMM_WORLD, &s);
      else st = s->Close();
      std::fprintf(stderr, "rank 0: %s returned alone: %s\n", mode.c_str(), st.ToString().c_str());
    } else if (!bad) {
      sleep(30);
    }
    std::_Exit(5);  // never reached when the timeout works: MPI_Abort ends the job first
  }
  if (mode == "commit-alone" || mode == "getshared-alone") {
    s.reset();
    o.collective_timeout_s = 2;
    st = cairn::Store::Open(o, argv[1], MPI_COMM_WORLD, &s);
    if (!st.ok()) fail("open: " + st.ToString());
    if (!bad && rank == 0 && mode == "getshared-alone") {
      // Rank 0 is the root of GetShared's broadcasts, which complete
      // without the others: it must still not return alone.
      std::string v;
      st = s->GetShared("v0", &v);
      std::fprintf(stderr, "rank 0: GetShared returned alone: %s\n", st.ToString().c_str());
    } else if (!bad && rank == 0) {
      s->Put("v0", Value(rank, rev, 0));
      st = s->Commit();  // the others never join: this must not return
      std::fprintf(stderr, "rank 0: Commit returned alone: %s\n", st.ToString().c_str());
    } else if (!bad) {
      sleep(30);
    }
    std::_Exit(5);  // never reached when the timeout works: MPI_Abort ends the job first
  }
  uint64_t parent = rev - 1;
  if (const char* p = std::getenv("CAIRN_TEST_PARENT")) parent = std::strtoull(p, nullptr, 10);
  if (!bad && (mode == "stream-across" || mode == "stream-across-async")) {
    if (s->revision() != parent) fail("store at revision " + std::to_string(s->revision()));
    std::string e = bad ? "" : StreamAcross(s.get(), rank, rev, mode == "stream-across-async");
    if (!e.empty()) fail(e);
    mode = "done";
  }
  bool async = mode == "write-async" || mode == "write-async-leak";
  if (async) {
    // Reopen with staging, so puts copy and a background thread writes.
    s.reset();
    o.staging_bytes = 8 << 20;
    st = cairn::Store::Open(o, argv[1], MPI_COMM_WORLD, &s);
    if (!st.ok()) fail("open: " + st.ToString());
  }
  if (!bad && async) {
    if (s->revision() != parent) fail("store at revision " + std::to_string(s->revision()));
    std::string buf;
    for (int i = 0; i < 6 && !bad; i++) {
      buf = Value(rank, rev, i);
      st = s->Put("v" + std::to_string(i), buf, {{"rev", cairn::TagValue::UInt(rev)}});
      buf.assign(buf.size(), 'x');  // the revision must hold what was put, not this
      if (!st.ok()) fail("put: " + st.ToString());
    }
    if (!bad && rank == 0) {
      st = s->PutShared("meta", "revision " + std::to_string(rev), {{"rev", cairn::TagValue::UInt(rev)}});
      if (!st.ok()) fail("put shared: " + st.ToString());
    }
    if (!bad && TestStream()) {
      st = WriteWholeStream(s.get(), StreamValue(rank, rev));
      if (!st.ok()) fail("stream st: " + st.ToString());
    }
    if (!bad) {
      // A text stream, for `cairn keys` and `cairn get` to find.
      cairn::ostream log(*s, "log", {{"rev", cairn::TagValue::UInt(rev)}});
      for (int i = 0; i < 1000; i++) log << "rank " << rank << " revision " << rev << " line " << i << "\n";
      st = log.close();
      if (!st.ok()) fail("stream: " + st.ToString());
    }
    cairn::AsyncCommit h;
    if (!bad) {
      st = s->CommitAsync(&h);
      if (!st.ok()) fail("commit async: " + st.ToString());
      else if (h.revision() != rev) fail("committing as " + std::to_string(h.revision()));
    }
    if (!bad && mode == "write-async-leak") {
      // Never closed: MPI_Finalize must finish and close it. The object
      // itself lives on to the program's exit, as a global would (and is
      // destroyed then, after MPI_Finalize, without touching MPI).
      static std::unique_ptr<cairn::Store> never_closed;
      never_closed = std::move(s);
      int worst = 0;
      MPI_Allreduce(&bad, &worst, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
      MPI_Finalize();
      return worst;
    }
  } else if (!bad && mode == "write") {
    if (s->revision() != parent) fail("store at revision " + std::to_string(s->revision()));
    for (int i = 0; i < 6 && !bad; i++) {
      st = s->Put("v" + std::to_string(i), Value(rank, rev, i), {{"rev", cairn::TagValue::UInt(rev)}});
      if (!st.ok()) fail("put: " + st.ToString());
    }
    if (!bad && rank == 0) {
      st = s->PutShared("meta", "revision " + std::to_string(rev), {{"rev", cairn::TagValue::UInt(rev)}});
      if (!st.ok()) fail("put shared: " + st.ToString());
    }
    if (!bad && TestStream()) {
      st = WriteWholeStream(s.get(), StreamValue(rank, rev));
      if (!st.ok()) fail("stream st: " + st.ToString());
    }
    if (!bad) {
      uint64_t got = 0;
      st = s->Commit(&got);
      if (!st.ok()) fail("commit: " + st.ToString());
      else if (got != rev) fail("committed as " + std::to_string(got));
    }
  } else if (!bad && mode == "pin") {
    st = s->Pin(rev);
    if (!st.ok()) fail("pin: " + st.ToString());
  } else if (!bad && (mode == "check" || mode == "check-old" || mode == "check-ro")) {
    if (mode == "check-old") {
      s->Close();
      s.reset();
      cairn::Options ro = o;
      ro.read_only = true;
      ro.revision = rev;
      st = cairn::Store::Open(ro, argv[1], MPI_COMM_WORLD, &s);
      if (!st.ok()) fail("open revision " + std::to_string(rev) + ": " + st.ToString());
    }
    if (!bad && s->revision() != rev) fail("newest revision is " + std::to_string(s->revision()) + ", expected " + std::to_string(rev));
    for (int i = 0; i < 6 && !bad; i++) {
      std::string v;
      st = s->Get("v" + std::to_string(i), &v);
      if (!st.ok()) fail("get: " + st.ToString());
      else if (v != Value(rank, rev, i)) fail("value v" + std::to_string(i) + " differs");
    }
    if (!bad && TestStream()) {
      // Whole, as written for revision S: never a prefix, never the stream
      // that was open across a lost commit.
      uint64_t srev = rev;
      if (const char* e = std::getenv("CAIRN_TEST_STREAM_REV")) srev = std::strtoull(e, nullptr, 10);
      std::string v;
      st = s->Get("st", &v);
      std::string want = StreamValue(rank, srev);
      auto prefix_of = [&](uint64_t r) {
        std::string w = StreamValue(rank, r);
        return v.size() < w.size() && w.compare(0, v.size(), v) == 0;
      };
      std::string which;
      for (uint64_t r : {srev, rev, rev + 1})
        if (which.empty() && prefix_of(r)) which = " (a prefix of the stream written for revision " + std::to_string(r) + ")";
      if (!st.ok()) fail("get st: " + st.ToString());
      else if (v != want)
        fail("stream st of revision " + std::to_string(rev) + " is " + std::to_string(v.size()) +
             " bytes, not the " + std::to_string(want.size()) + " written for revision " + std::to_string(srev) + which);
    }
    std::string meta;
    st = s ? s->GetShared("meta", &meta) : cairn::Status::OK();  // collective; no handle if the open failed
    if (!st.ok()) fail("get shared: " + st.ToString());
    else if (s && meta != "revision " + std::to_string(rev)) fail("shared value differs");
  }
  if (s) s->Close();
  int worst = 0;
  MPI_Allreduce(&bad, &worst, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  MPI_Finalize();
  return worst;
}
