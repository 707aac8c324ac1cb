// The writer of the random-moment crash test (crash_random_test.sh).
//   crash_loop_writer STORE loop    commit revision after revision until killed
//   crash_loop_writer STORE check   the newest revision must be the last one
//                                   acknowledged (or the one after it, whose
//                                   commit may have reached its commit point
//                                   before the kill), every value intact (with
//                                   CAIRN_TEST_KEEP, of every retained revision);
//                                   then commit one more (CAIRN_TEST_TABLES: 12)
//                                   and read it back (and the retained ones)
//   crash_loop_writer STORE read    (one process, beside a loop) opens the store
//                                   read-only over MPI_COMM_SELF again and again
//                                   until STORE.stop exists: every open must
//                                   succeed at a revision no older than the last
//                                   acknowledged before it and no newer than one
//                                   past the last acknowledged after it, and read
//                                   back every rank's values of that revision;
//                                   prints how many opens it made, and how many
//                                   after STORE.killed appeared
// Values depend only on (rank, revision, key), so any process can check them;
// key "tg" has its tags edited without a put by every revision after the
// first (tag_edit_rounds.h), checked with its tags and by Query; global array
// "A" is put again by every revision and "B" by the first only (carried),
// each read back whole.
// Each rank writes its pid to STORE.pid.<rank> and, once open, STORE.ready.<rank>;
// rank 0 appends each revision to STORE.acked once Commit has returned.
// Environment (loop and check): CAIRN_TEST_KEEP=K opens with keep_revisions
// K (compaction needs expired records: crash_compact_test). CAIRN_TEST_TABLES=1
// leaves namespaces unchanged, so that their index tables are reused: rank
// r > 0 puts its values only at revision 1 and at revisions with (revision
// + r) % 3 == 0, with no tag edits or arrays, and carries them between;
// rank 0 puts its values and the shared "meta" every revision (alone: as
// rank r). Every commit must then reuse exactly the tables of the
// unchanged namespaces (IoStats::index_tables_reused), the first one after
// a restart included; extents are 16 KiB. CAIRN_TEST_BIG=1 (not with
// CAIRN_TEST_TABLES): each rank also keeps the large namespace of
// big_namespace_rounds.h (60,000 keys at revision 1, a few changes per
// revision: tables over 4 MiB built from the base, WriteBuiltTable),
// every key and Query checked. CAIRN_TEST_SAME=1 (not with CAIRN_TEST_TABLES
// or CAIRN_TEST_BIG): objects saved again unchanged (same_save_rounds.h):
// every revision each rank puts all its small objects again, changed only
// in one revision of three (its own; its values v0..v4 then too), and
// rank 0 puts "meta" again every revision, the same unless rank 0
// changes; a write stream "st" (flushed in parts) stays open across the
// commits between and is closed (joins the commit) at the next change.
// Every commit must reuse exactly the tables of the unchanged namespaces,
// as with CAIRN_TEST_TABLES; 16 KiB extents.
#include <fcntl.h>
#include <mpi.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "cairn/array.h"
#include "cairn/store.h"
#include "cairn/stream.h"
#include "big_namespace_rounds.h"
#include "same_save_rounds.h"
#include "tag_edit_rounds.h"
#include "test_util.h"

using cairn::test::Pattern;

namespace {

constexpr int kKeys = 5;

// CAIRN_TEST_TABLES (see the top of the file).
bool TablesMode() {
  static const bool on = [] {
    const char* e = std::getenv("CAIRN_TEST_TABLES");
    return e && *e && std::string(e) != "0";
  }();
  return on;
}
// CAIRN_TEST_SAME (see the top of the file).
bool SameMode() {
  static const bool on = [] {
    const char* e = std::getenv("CAIRN_TEST_SAME");
    return e && *e && std::string(e) != "0";
  }();
  return on;
}
// Namespaces left unchanged by some revisions (CAIRN_TEST_TABLES or _SAME).
bool Reuses() { return TablesMode() || SameMode(); }
int g_ranks = 1;  // MPI_COMM_WORLD's size
// CAIRN_TEST_BIG (see the top of the file).
bool BigMode() {
  static const bool on = [] {
    const char* e = std::getenv("CAIRN_TEST_BIG");
    return e && *e && std::string(e) != "0";
  }();
  return on;
}
// Whether rank `rank` puts at revision `rev` (always, unless TablesMode).
// Rank 0 changes every revision when there are others (its short-lived data
// then shares extents with the other ranks' tables it writes).
bool Changes(int rank, uint64_t rev) {
  if (SameMode()) return cairn::test::SameChanges(rank, rev);
  if (!TablesMode() || rev == 1 || (rank == 0 && g_ranks > 1)) return true;
  return (rev + uint64_t(rank)) % 3 == 0;
}
// The revision whose values rank `rank` holds at revision `rev`.
uint64_t Wrote(int rank, uint64_t rev) {
  while (rev > 1 && !Changes(rank, rev)) rev--;
  return rev;
}

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

// Global arrays: each writer rank's block of kPart elements.
constexpr uint64_t kPart = 2000;
double Element(int rank, uint64_t rev, uint64_t i) { return rank * 1e7 + double(i) + double(rev) * 0.5; }
cairn::Status PutArrayPart(cairn::Store* s, const char* name, int rank, uint64_t rev) {
  int n;
  MPI_Comm_size(MPI_COMM_WORLD, &n);
  std::vector<double> v(kPart);
  for (uint64_t i = 0; i < kPart; i++) v[i] = Element(rank, rev, i);
  return s->PutArray(name, cairn::DType::kFloat64, {kPart * uint64_t(n)}, {kPart * uint64_t(rank)}, {kPart}, v.data());
}
// "" if array `name` of the open revision `rev` (of `writers` ranks) holds
// every rank's block as written at revision `wrote`.
std::string CheckArray(cairn::Store* s, const char* name, int writers, uint64_t rev, uint64_t wrote) {
  std::vector<double> all(kPart * uint64_t(writers), -1.0);
  cairn::Status st = s->GetArray(name, {0}, {kPart * uint64_t(writers)}, all.data());
  if (!st.ok()) return "revision " + std::to_string(rev) + " array " + name + ": " + st.ToString();
  for (int r = 0; r < writers; r++)
    for (uint64_t i = 0; i < kPart; i++)
      if (all[uint64_t(r) * kPart + i] != Element(r, wrote, i))
        return "revision " + std::to_string(rev) + " array " + name + " differs at rank " + std::to_string(r) +
               " element " + std::to_string(i);
  return "";
}

// CAIRN_TEST_SAME: the stream's value for round w (its tag "w").
std::string StreamValue(int rank, uint64_t w) { return Pattern(rank * 7777ull + w * 31 + 5, 20000 + size_t(w % 5) * 1000); }

// CAIRN_TEST_SAME: the stream of this process, open across commits. In a
// change revision the open one is closed (joins the commit); when none is
// open, one is opened with tag w = rev, written and flushed in parts, and
// left open.
std::unique_ptr<cairn::StreamWriter> g_stream;
cairn::Status StreamRound(cairn::Store* s, int rank, uint64_t rev) {
  cairn::Status st;
  if (g_stream && Changes(rank, rev)) {
    st = g_stream->Close();
    g_stream.reset();
  }
  if (!st.ok() || g_stream) return st;
  st = s->OpenWriteStream("st", {{"w", cairn::TagValue::UInt(rev)}}, &g_stream);
  std::string v = StreamValue(rank, rev);
  for (size_t at = 0; st.ok() && at < v.size(); at += 7000) {
    st = g_stream->Write(std::string_view(v).substr(at, 7000));
    if (st.ok()) st = g_stream->Flush();  // on disk, named by no revision yet
  }
  return st;
}

cairn::Status PutRevision(cairn::Store* s, int rank, uint64_t rev) {
  if (Reuses()) {
    // Values only when this rank changes; "meta" (TablesMode) likewise, or
    // (SameMode) again every revision, with every small object.
    for (int i = 0; i < kKeys && Changes(rank, rev); i++) {
      cairn::Status st = s->Put("v" + std::to_string(i), Value(rank, rev, i), {{"rev", cairn::TagValue::UInt(rev)}});
      if (!st.ok()) return st;
    }
    if (SameMode()) {
      cairn::Status st = cairn::test::SamePutAll(s, rank, rev);
      if (st.ok()) st = StreamRound(s, rank, rev);
      if (!st.ok()) return st;
    }
    if (rank == 0 && (Changes(0, rev) || SameMode()))
      return s->PutShared("meta", "revision " + std::to_string(Wrote(0, rev)));
    return cairn::Status::OK();
  }
  for (int i = 0; i < kKeys; i++) {
    cairn::Status st = s->Put("v" + std::to_string(i), Value(rank, rev, i), {{"rev", cairn::TagValue::UInt(rev)}});
    if (!st.ok()) return st;
  }
  cairn::Status st = cairn::test::EditTagsForRevision(s, rank, rev);  // "tg": tag edits without a put
  // Global arrays: "A" put again by every revision, "B" at revision 1 only.
  if (st.ok()) st = PutArrayPart(s, "A", rank, rev);
  if (st.ok() && rev == 1) st = PutArrayPart(s, "B", rank, 1);
  if (st.ok() && BigMode()) st = cairn::test::BigRevision(s, rank, rev);
  if (!st.ok()) return st;
  if (rank == 0) return s->PutShared("meta", "revision " + std::to_string(rev));
  return cairn::Status::OK();
}

std::string CheckRevision(cairn::Store* s, int rank, uint64_t rev) {
  std::string err;
  uint64_t wrote = Wrote(rank, rev);
  for (int i = 0; i < kKeys && err.empty(); i++) {
    std::string v;
    cairn::Status st = s->Get("v" + std::to_string(i), &v);
    if (!st.ok()) err = "get v" + std::to_string(i) + ": " + st.ToString();
    else if (v != Value(rank, wrote, i))
      err = "value v" + std::to_string(i) + " of revision " + std::to_string(rev) + " (written at " +
            std::to_string(wrote) + ") differs";
  }
  if (SameMode() && err.empty()) {
    err = cairn::test::SameCheck(s, rank, rev);
    // The stream object: absent until a close joined a commit; then
    // written whole in some earlier round w (its tag).
    std::string v;
    cairn::TagList tags;
    cairn::Status gs = s->Get("st", &v);
    if (gs.ok()) gs = s->GetTags("st", &tags);
    if (!err.empty() || gs.IsNotFound()) {
    } else if (!gs.ok()) {
      err = "revision " + std::to_string(rev) + " get stream object: " + gs.ToString();
    } else if (tags.size() != 1 || tags[0].name != "w" || tags[0].value.as_uint() >= rev ||
               v != StreamValue(rank, tags[0].value.as_uint())) {
      err = "revision " + std::to_string(rev) + " stream object differs";
    }
  }
  if (!Reuses()) {
    if (err.empty()) err = cairn::test::CheckEditedTags(s, rank, rev);
    if (err.empty()) err = CheckArray(s, "A", s->writer_ranks(), rev, rev);
    if (err.empty()) err = CheckArray(s, "B", s->writer_ranks(), rev, 1);
    if (err.empty() && BigMode()) err = cairn::test::CheckBig(s, rank, rev);
  }
  std::string meta;
  cairn::Status st = s->GetShared("meta", &meta);  // collective: called whatever err says
  if (!err.empty()) return err;
  if (!st.ok()) return "get shared: " + st.ToString();
  if (meta != "revision " + std::to_string(Wrote(0, rev))) return "shared value of revision " + std::to_string(rev) + " differs";
  return "";
}

// Commits revision `rev` (its puts made); in TablesMode, checks that the
// commit reused exactly the tables of this rank's unchanged namespaces.
std::string CommitRevision(cairn::Store* s, int rank, uint64_t rev) {
  uint64_t reused = s->stats().index_tables_reused;
  uint64_t got = 0;
  cairn::Status st = s->Commit(&got);
  if (!st.ok()) return "commit of revision " + std::to_string(rev) + ": " + st.ToString();
  if (got != rev) return "committed as " + std::to_string(got) + ", not " + std::to_string(rev);
  if (Reuses() && rev > 1) {
    // Its own namespace's table; rank 0 also the shared one's (rank 0's puts).
    uint64_t want = Changes(rank, rev) ? 0 : 1;
    if (rank == 0) want *= 2;
    uint64_t made = s->stats().index_tables_reused - reused;
    if (made != want)
      return "revision " + std::to_string(rev) + " reused " + std::to_string(made) + " index tables, not " +
             std::to_string(want);
  }
  return "";
}

// With CAIRN_TEST_KEEP, every retained revision but the handle's own, each
// opened read-only and read back (a reused table may lie in the space of
// an expired revision). Collective: every rank opens each, whatever it found.
std::string CheckRetained(const std::string& store, const cairn::Options& o, cairn::Store* s, int rank) {
  if (!std::getenv("CAIRN_TEST_KEEP")) return "";
  std::vector<cairn::RevisionInfo> revs;
  cairn::Status st = s->ListRevisions(&revs);
  if (!st.ok()) return "list revisions: " + st.ToString();
  std::string err;
  for (const cairn::RevisionInfo& ri : revs) {
    if (ri.revision == s->revision()) continue;
    cairn::Options ro = o;
    ro.read_only = true;
    ro.revision = ri.revision;
    std::unique_ptr<cairn::Store> old;
    st = cairn::Store::Open(ro, store, MPI_COMM_WORLD, &old);
    std::string e = st.ok() ? CheckRevision(old.get(), rank, ri.revision)
                            : "open of retained revision " + std::to_string(ri.revision) + ": " + st.ToString();
    if (err.empty()) err = e;
  }
  return err;
}

// Whether every rank's err is empty.
bool AllAgree(const std::string& err) {
  int bad = err.empty() ? 0 : 1, any = 0;
  MPI_Allreduce(&bad, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  return any == 0;
}

// The last acknowledged revision, counting only whole lines (the file may
// be appended to while it is read).
uint64_t LastAckedWhole(const std::string& store) {
  std::ifstream in(store + ".acked");
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  size_t end = text.rfind('\n');
  if (end == std::string::npos) return 0;
  size_t start = text.rfind('\n', end - 1);
  start = start == std::string::npos || end == 0 ? 0 : start + 1;
  return std::strtoull(text.c_str() + start, nullptr, 10);
}

// The read mode: see the top of the file. Returns the first error ("" if none).
std::string ReadLoop(const std::string& store) {
  cairn::Options ro;
  ro.read_only = true;
  auto exists = [&](const char* suffix) { return ::access((store + suffix).c_str(), F_OK) == 0; };
  uint64_t opens = 0, after_kill = 0;
  while (!exists(".stop")) {
    bool killed = exists(".killed");
    uint64_t before = LastAckedWhole(store);
    std::unique_ptr<cairn::Store> s;
    cairn::Status st = cairn::Store::Open(ro, store, MPI_COMM_SELF, &s);
    uint64_t after = LastAckedWhole(store);
    opens++;
    after_kill += killed;
    if (!st.ok()) return "read-only open " + std::to_string(opens) + ": " + st.ToString();
    uint64_t rev = s->revision();
    if (rev < before || rev > after + 1)
      return "read-only open at revision " + std::to_string(rev) + ", acknowledged " + std::to_string(before) +
             " before the open and " + std::to_string(after) + " after";
    if (rev == 0) continue;
    for (int r = 0; r < s->writer_ranks(); r++) {
      cairn::ReadOptions o;
      o.rank = r;
      for (int i = 0; i < kKeys; i++) {
        std::string v;
        st = s->Get("v" + std::to_string(i), &v, o);
        if (!st.ok()) return "revision " + std::to_string(rev) + " rank " + std::to_string(r) + ": " + st.ToString();
        if (v != Value(r, rev, i))
          return "revision " + std::to_string(rev) + " rank " + std::to_string(r) + " v" + std::to_string(i) +
                 ": other bytes than committed";
      }
      std::string e = cairn::test::CheckEditedTags(s.get(), r, rev, o);
      if (!e.empty()) return e;
    }
    std::string e = CheckArray(s.get(), "A", s->writer_ranks(), rev, rev);
    if (e.empty()) e = CheckArray(s.get(), "B", s->writer_ranks(), rev, 1);
    if (!e.empty()) return e;
    std::string meta;
    st = s->Get("meta", &meta, cairn::ReadOptions{cairn::ReadOptions::kShared});
    if (!st.ok()) return "shared meta: " + st.ToString();
    if (meta != "revision " + std::to_string(rev)) return "shared meta of revision " + std::to_string(rev) + " differs";
  }
  std::printf("read-only opens: %lu (%lu after the kill)\n", (unsigned long)opens, (unsigned long)after_kill);
  return "";
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &g_ranks);
  if (argc != 3) {
    if (rank == 0) std::fprintf(stderr, "usage: crash_loop_writer STORE loop|check|read\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  std::string store = argv[1], mode = argv[2];
  if (mode == "read") {
    std::string err = ReadLoop(store);
    if (!err.empty()) std::fprintf(stderr, "reader: %s\n", err.c_str());
    MPI_Finalize();
    return err.empty() ? 0 : 1;
  }
  WriteFile(store + ".pid." + std::to_string(rank), std::to_string(getpid()) + "\n", false);
  cairn::Options o;
  o.extent_size = 1 << 20;
  o.write_buffer_size = 64 << 10;  // puts flush on their own, between commits too
  if (const char* k = std::getenv("CAIRN_TEST_KEEP")) o.keep_revisions = std::strtoull(k, nullptr, 10);
  // Small extents: an extent holding a reused table is soon free of
  // everything else, so that losing track of the table would hand it out.
  if (Reuses()) o.extent_size = 16 << 10;
  std::unique_ptr<cairn::Store> s;
  cairn::Status st = cairn::Store::Open(o, store, MPI_COMM_WORLD, &s);
  std::string err;
  if (!st.ok()) err = "open: " + st.ToString();
  if (err.empty() && mode == "loop") {
    WriteFile(store + ".ready." + std::to_string(rank), "1\n", false);
    for (uint64_t rev = s->revision() + 1; err.empty(); rev++) {
      st = PutRevision(s.get(), rank, rev);
      if (!st.ok()) err = "revision " + std::to_string(rev) + ": " + st.ToString();
      else err = CommitRevision(s.get(), rank, rev);
      if (err.empty() && rank == 0) WriteFile(store + ".acked", std::to_string(rev) + "\n", true);
    }
  } else if (err.empty() && mode == "check") {
    uint64_t acked = 0;
    if (rank == 0) acked = LastAcked(store);
    MPI_Bcast(&acked, 1, MPI_UINT64_T, 0, MPI_COMM_WORLD);
    uint64_t rev = s->revision();
    if (rev != acked && rev != acked + 1)
      err = "reopened at revision " + std::to_string(rev) + ", but " + std::to_string(acked) + " was acknowledged";
    if (err.empty() && rev > 0) err = CheckRevision(s.get(), rank, rev);
    if (err.empty()) err = CheckRetained(store, o, s.get(), rank);
    // Every rank takes the same branch below (the commit is collective).
    if (!AllAgree(err) && err.empty()) err = "another rank found revision " + std::to_string(rev) + " damaged";
    // The store takes the next revisions (TablesMode: 12, each reusing
    // and writing tables), each read back with every retained revision.
    int next = Reuses() ? 12 : 1;
    for (int k = 1; k <= next && err.empty(); k++) {
      uint64_t r = rev + uint64_t(k);
      st = PutRevision(s.get(), rank, r);
      if (!st.ok()) err = "next commit: " + st.ToString();
      else err = CommitRevision(s.get(), rank, r);
      std::string e = CheckRevision(s.get(), rank, r);  // collective: whatever err says
      if (err.empty()) err = e;
      e = CheckRetained(store, o, s.get(), rank);
      if (err.empty()) err = e;
      if (err.empty() && rank == 0) WriteFile(store + ".acked", std::to_string(r) + "\n", true);
      if (!AllAgree(err) && err.empty()) err = "another rank found revision " + std::to_string(r) + " damaged";
    }
  }
  if (!err.empty()) std::fprintf(stderr, "rank %d: %s\n", rank, err.c_str());
  if (s) s->Close();
  g_stream.reset();  // after the store's close: its data is not committed
  int bad = err.empty() ? 0 : 1, worst = 0;
  MPI_Allreduce(&bad, &worst, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  MPI_Finalize();
  return worst;
}
