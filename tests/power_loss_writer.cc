// The writer of the power-loss test (power_loss_test.py).
//   power_loss_writer STORE REVISIONS FLAGS
// First opens STORE read-only (no writable open has cut a torn tail yet)
// and checks its newest revision as below; then opens it (creating it if
// missing) and checks it as a restart after a power loss must find it: the newest revision is the last one
// reported committed in STORE.acked, or the one after it (its commit point
// may have been reached just before the cut), and it and every other
// retained revision read back intact on every rank (each rank's namespace,
// and the shared one). Then it commits REVISIONS more revisions, appending
// each number to STORE.acked ("reported committed") once Commit (or Wait)
// has returned. FLAGS (any of, or "-"): a = asynchronous commits
// (CommitAsync + Wait), s = staging (staging_bytes), f = Flush before every
// other commit, 2 = two data files (Options::subfiles = 2), g = global
// arrays: "G" put again by every rank at revision 1 and every even revision
// (carried between), "H" put at revision 1 only (carried by every later
// revision while their space is reused), u = unchanged namespaces: the
// last rank puts only at revisions 1, 4, 7, ..., so its index table is
// reused by the revisions between (a table written by a revision that
// retention has expired), t = a write stream open across every commit: key
// "st" is streamed (written and flushed in parts) during round r, stays
// open across commit r and is closed in round r + 1, so it joins commit
// r + 1 (tag "w" = r); its chunks lie on disk unreferenced while commit r
// hands out free space. r = restarts on other rank counts (the test runs
// the jobs of one store at 1, 2 and 4 ranks in turn): every revision
// rewrites every key, and the check reads every namespace of the revision
// (its writer count, spread over the checking job's ranks); not combined
// with g, u or t. p = pins: each job pins the revision it reopened at
// (appending its number to STORE.pinned once Pin has returned), and the
// check requires every revision listed there to be retained, pinned and
// intact. e = tag edits without a put: key "tg" is put at revision 1 only
// (tags r = 1, name = "tg1") and every later revision edits its tags alone
// (SetTag of r, then DeleteTag of name, SetTag adding name, or SetTags of
// both, in turn); the check compares its tags and finds it by Query and
// QueryAll on r (and on name). Not combined with r or u.
// i = objects saved again unchanged (tests/same_save_rounds.h): every
// revision each rank puts its small objects "i0".."i4" again, byte for
// byte as they were except in its change revisions (one in three, one
// object's value or tag changed); its large values k0..k5 (and, with t,
// the stream's close) only in its change revisions. So in the others its
// namespace is unchanged and the commit reuses its table as it lies (and
// rank 0's shared "meta", put again the same, the shared table): each
// commit checks IoStats::index_tables_reused, the first after a restart
// included, and each retained revision's objects and tags are checked.
// Not combined with r, u, g, e or B.
// B = a large namespace (tests/big_namespace_rounds.h): revision 1 puts
// 60,000 more keys with four tags each (a table of several MiB, streamed),
// every later revision a few puts, SetTags and a DeleteTag, so its table is
// built from the base and written in pieces (WriteBuiltTable); the check
// reads every one of those keys' values and tags, and Query on them. Not
// combined with r or u.
// L = hold the store (power_loss_test.py --lock): after the check, write
// the ranks' pids to STORE.held and wait for STORE.release, then close
// without committing (REVISIONS is not used).
// F = a failed commit is recorded, not an error (power_loss_test.py
// --failed-record): rank 0 appends its revision to STORE.failed and the job
// stops committing. Whatever the flags, the check refuses a revision listed
// in STORE.failed ("If any rank fails, no revision is made").
// keep_revisions = 2, so extents are reused.
// Which keys a revision writes, and their values, depend only on (rank,
// revision, key), so the check needs nothing else.
// Exit: 0 ok, 1 a check failed ("CHECK FAILED"), 2 a call failed.
#include <fcntl.h>
#include <mpi.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>
#include <vector>

#include "cairn/store.h"
#include "cairn/stream.h"
#include "big_namespace_rounds.h"
#include "same_save_rounds.h"
#include "tag_edit_rounds.h"
#include "test_util.h"

using cairn::test::Pattern;

namespace {

constexpr int kKeys = 6;
// Sizes: two inline values (<= 4 KiB), the rest in data extents; the
// largest spans several chunks and bypasses the write buffer.
constexpr size_t kSize[kKeys] = {700, 3000, 5000, 9000, 20000, 33000};

// Revision 1 writes every key; later ones rewrite some, so older values are
// carried forward from extents written by older revisions.
bool g_unchanged = false;  // flag u
bool g_streams = false;    // flag t
bool g_resize = false;     // flag r
bool g_pins = false;       // flag p
bool g_edits = false;      // flag e
bool g_big = false;        // flag B
bool g_same = false;       // flag i
std::string StreamValue(int rank, uint64_t w) { return Pattern(rank * 7777ull + w * 31 + 5, 20000 + size_t(w % 5) * 1000); }
int Ranks();
bool RankWrites(int rank, uint64_t rev) {
  if (g_same) return cairn::test::SameChanges(rank, rev);
  return !g_unchanged || rank != Ranks() - 1 || rev % 3 == 1;
}
bool Writes(uint64_t rev, int i) { return g_resize || rev == 1 || i % 3 == 0 || (rev + uint64_t(i)) % 3 == 0; }
uint64_t LastWrite(int rank, uint64_t rev, int i) {
  while (!(Writes(rev, i) && RankWrites(rank, rev))) rev--;
  return rev;
}
std::string Value(int rank, uint64_t rev, int i) {
  return Pattern(rank * 1000003ull + rev * 101 + uint64_t(i), kSize[i] + size_t(rev % 7) * 13);
}
std::string Key(int i) { return "k" + std::to_string(i); }

bool g_arrays = false;  // flag g
constexpr uint64_t kArrayPart = 1500;  // elements per rank: 12 KB, across extents
uint64_t LastArrayWrite(uint64_t rev) { return rev == 1 || rev % 2 == 0 ? rev : rev - 1; }
double Element(int rank, uint64_t rev, uint64_t i) { return rank * 1e6 + double(i) + double(rev) * 0.25; }
std::vector<double> ArrayPart(int rank, uint64_t rev) {
  std::vector<double> v(kArrayPart, 0.0);
  for (uint64_t i = 0; i < kArrayPart; i++) v[i] = Element(rank, rev, i);
  return v;
}
int Ranks() {
  int n;
  MPI_Comm_size(MPI_COMM_WORLD, &n);
  return n;
}
// "" if array `name` of the open revision holds every rank's part as
// written at revision `wrote`.
std::string CheckArray(cairn::Store* s, const std::string& name, uint64_t rev, uint64_t wrote) {
  int n = Ranks();
  std::vector<double> all(kArrayPart * uint64_t(n), -1.0);
  cairn::Status st = s->GetArray(name, {0}, {kArrayPart * uint64_t(n)}, all.data());
  if (!st.ok()) return "revision " + std::to_string(rev) + " get array " + name + ": " + st.ToString();
  for (int r = 0; r < n; r++)
    for (uint64_t i = 0; i < kArrayPart; i++)
      if (all[uint64_t(r) * kArrayPart + i] != Element(r, wrote, i))
        return "revision " + std::to_string(rev) + " array " + name + " differs at rank " + std::to_string(r) +
               " element " + std::to_string(i);
  return "";
}
// Flag i: "meta" is put again every revision, changed only when rank 0 changes.
std::string Shared(uint64_t rev) {
  return "revision " + std::to_string(g_same ? cairn::test::SameLastChange(0, rev) : rev);
}
// Flag i: the index tables a commit of revision `rev` must reuse on `rank`
// (its own namespace's, and at rank 0 the shared one's, when unchanged).
uint64_t WantReused(int rank, uint64_t rev) {
  uint64_t same = cairn::test::SameChanges(rank, rev) ? 0 : 1;
  return rank == 0 ? 2 * same : same;
}

void AppendLine(const std::string& path, const std::string& text) {
  int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0644);
  if (fd < 0 || ::write(fd, text.data(), text.size()) != ssize_t(text.size())) std::abort();
  ::close(fd);
}

// Whether `rev` is listed in STORE.failed (flag F: its commit failed).
bool ReportedFailed(const std::string& store, uint64_t rev) {
  std::ifstream in(store + ".failed");
  for (uint64_t r = 0; in >> r;)
    if (r == rev) return true;
  return false;
}

uint64_t LastAcked(const std::string& store) {
  std::ifstream in(store + ".acked");
  uint64_t r = 0, last = 0;
  while (in >> r) last = r;
  return last;
}

cairn::Status PutRevision(cairn::Store* s, int rank, uint64_t rev) {
  for (int i = 0; i < kKeys; i++) {
    if (!Writes(rev, i) || !RankWrites(rank, rev)) continue;
    cairn::Status st = s->Put(Key(i), Value(rank, rev, i), {{"rev", cairn::TagValue::UInt(rev)}});
    if (!st.ok()) return st;
  }
  if (g_arrays && LastArrayWrite(rev) == rev) {
    uint64_t shape = kArrayPart * uint64_t(Ranks()), start = kArrayPart * uint64_t(rank);
    std::vector<double> part = ArrayPart(rank, rev);
    cairn::Status st = s->PutArray("G", cairn::DType::kFloat64, {shape}, {start}, {kArrayPart}, part.data());
    if (st.ok() && rev == 1)
      st = s->PutArray("H", cairn::DType::kFloat64, {shape}, {start}, {kArrayPart}, part.data());
    if (!st.ok()) return st;
  }
  if (g_edits) {
    cairn::Status st = cairn::test::EditTagsForRevision(s, rank, rev);
    if (!st.ok()) return st;
  }
  if (g_big) {
    cairn::Status st = cairn::test::BigRevision(s, rank, rev);
    if (!st.ok()) return st;
  }
  if (g_same) {
    cairn::Status st = cairn::test::SamePutAll(s, rank, rev);
    if (!st.ok()) return st;
  }
  if (rank == 0) return s->PutShared("meta", Shared(rev));
  return cairn::Status::OK();
}

// "" if the open revision `rev` holds what it must.
std::string CheckRevision(cairn::Store* s, int rank, uint64_t rev) {
  std::string err;
  // Flag r: the namespaces of the revision's writers, whatever their count,
  // each read by one rank of this job.
  for (int w = rank; g_resize && w < s->writer_ranks() && err.empty(); w += Ranks()) {
    cairn::ReadOptions ro;
    ro.rank = w;
    for (int i = 0; i < kKeys && err.empty(); i++) {
      std::string v;
      cairn::Status st = s->Get(Key(i), &v, ro);
      if (!st.ok()) err = "revision " + std::to_string(rev) + " rank " + std::to_string(w) + " get " + Key(i) + ": " + st.ToString();
      else if (v != Value(w, rev, i))
        err = "revision " + std::to_string(rev) + " (" + std::to_string(s->writer_ranks()) + " writers) rank " +
              std::to_string(w) + " value " + Key(i) + " differs";
    }
  }
  for (int i = 0; i < kKeys && err.empty() && !g_resize; i++) {
    std::string v;
    cairn::Status st = s->Get(Key(i), &v);
    if (!st.ok()) err = "revision " + std::to_string(rev) + " get " + Key(i) + ": " + st.ToString();
    else if (v != Value(rank, LastWrite(rank, rev, i), i))
      err = "revision " + std::to_string(rev) + " value " + Key(i) + " differs";
  }
  std::string meta;
  cairn::Status st = s->GetShared("meta", &meta);  // collective: every rank calls it
  if (err.empty() && !st.ok()) err = "revision " + std::to_string(rev) + " get shared: " + st.ToString();
  if (err.empty() && meta != Shared(rev)) err = "revision " + std::to_string(rev) + " shared value differs";
  if (err.empty() && g_streams) {
    // Written in some earlier round w (its tag), whole. Absent until some
    // run commits twice (a run's first commit has no stream of its own to
    // close); carried from then on. What is there must be right.
    std::string v;
    cairn::TagList tags;
    cairn::Status gs = s->Get("st", &v);
    if (gs.ok()) gs = s->GetTags("st", &tags);
    if (gs.IsNotFound()) {
    } else if (!gs.ok()) {
      err = "revision " + std::to_string(rev) + " get stream object: " + gs.ToString();
    } else if (tags.size() != 1 || tags[0].name != "w" || tags[0].value.as_uint() >= rev ||
               v != StreamValue(rank, tags[0].value.as_uint())) {
      err = "revision " + std::to_string(rev) + " stream object differs";
    }
  }
  if (g_edits) {
    // QueryAll is collective: called on every rank whatever err says.
    std::vector<cairn::QueryHit> hits, want;
    cairn::Status qs = s->QueryAll({cairn::TagQuery::Equal("r", cairn::TagValue::UInt(rev))}, &hits);
    for (int r = 0; r < s->writer_ranks(); r++) want.push_back(cairn::QueryHit{r, "tg"});
    if (err.empty()) err = cairn::test::CheckEditedTags(s, rank, rev);
    if (err.empty() && !qs.ok()) err = "revision " + std::to_string(rev) + " QueryAll: " + qs.ToString();
    if (err.empty() && hits != want)
      err = "revision " + std::to_string(rev) + " QueryAll on tg's tags found " + std::to_string(hits.size()) + " hits";
  }
  if (err.empty() && g_big) err = cairn::test::CheckBig(s, rank, rev);
  if (err.empty() && g_same) err = cairn::test::SameCheck(s, rank, rev);
  if (err.empty() && g_arrays) err = CheckArray(s, "G", rev, LastArrayWrite(rev));
  if (err.empty() && g_arrays) err = CheckArray(s, "H", rev, 1);
  return err;
}

int Finish(int rank, const std::string& err, int code) {
  if (!err.empty()) std::fprintf(stderr, "rank %d: %s%s\n", rank, code == 1 ? "CHECK FAILED: " : "ERROR: ", err.c_str());
  int bad = err.empty() ? 0 : code, worst = 0;
  MPI_Allreduce(&bad, &worst, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  MPI_Finalize();
  return worst;
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (argc != 4) {
    if (rank == 0) std::fprintf(stderr, "usage: power_loss_writer STORE REVISIONS FLAGS\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  std::string store = argv[1], flags = argv[3];
  uint64_t revisions = std::strtoull(argv[2], nullptr, 10);
  bool async = flags.find('a') != std::string::npos;
  bool flush = flags.find('f') != std::string::npos;
  cairn::Options o;
  o.extent_size = 16 << 10;
  o.chunk_size = 8 << 10;
  o.write_buffer_size = 16 << 10;  // puts write on their own, between commits too
  if (flags.find('s') != std::string::npos) o.staging_bytes = 64 << 10;
  o.keep_revisions = 2;
  if (flags.find('2') != std::string::npos) o.subfiles = 2;
  g_arrays = flags.find('g') != std::string::npos;
  g_unchanged = flags.find('u') != std::string::npos;
  g_streams = flags.find('t') != std::string::npos;
  g_resize = flags.find('r') != std::string::npos;
  g_pins = flags.find('p') != std::string::npos;
  g_edits = flags.find('e') != std::string::npos;
  g_big = flags.find('B') != std::string::npos;
  g_same = flags.find('i') != std::string::npos;

  // The check of what the restart finds: first read-only, before any
  // writable open has cut a torn tail (what a reader started right after
  // the power came back sees), then writable.
  uint64_t acked = 0;
  if (rank == 0) acked = LastAcked(store);
  MPI_Bcast(&acked, 1, MPI_UINT64_T, 0, MPI_COMM_WORLD);
  // The revision after the last one reported committed may exist (its
  // commit point reached before the cut), unless its commit reported failure.
  int next_failed = rank == 0 && ReportedFailed(store, acked + 1) ? 1 : 0;
  MPI_Bcast(&next_failed, 1, MPI_INT, 0, MPI_COMM_WORLD);
  {
    cairn::Options ro = o;
    ro.read_only = true;
    std::unique_ptr<cairn::Store> r;
    cairn::Status st = cairn::Store::Open(ro, store, MPI_COMM_WORLD, &r);
    std::string err;
    if (!st.ok()) {
      // No store, or one never committed: only if nothing was reported committed.
      if (acked > 0) err = "read-only open after the power cut: " + st.ToString();
    } else if (r->revision() != acked && (r->revision() != acked + 1 || next_failed)) {
      err = "read-only open at revision " + std::to_string(r->revision()) + ", but " + std::to_string(acked) +
            " was reported committed" + (next_failed ? " and the commit of " + std::to_string(acked + 1) + " failed" : "");
    } else if (r->revision() > 0) {
      err = CheckRevision(r.get(), rank, r->revision());
    }
    int bad = err.empty() ? 0 : 1, any = 0;
    MPI_Allreduce(&bad, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    if (any) return Finish(rank, err, 1);
  }
  std::unique_ptr<cairn::Store> s;
  cairn::Status st = cairn::Store::Open(o, store, MPI_COMM_WORLD, &s);
  if (!st.ok()) return Finish(rank, "open: " + st.ToString(), 1);
  uint64_t rev = s->revision();
  if (rev != acked && (rev != acked + 1 || next_failed))
    return Finish(rank, "reopened at revision " + std::to_string(rev) + ", but " + std::to_string(acked) +
                            " was reported committed" +
                            (next_failed ? " and the commit of " + std::to_string(acked + 1) + " failed" : ""), 1);
  std::string err;
  if (rev > 0) err = CheckRevision(s.get(), rank, rev);
  std::vector<cairn::RevisionInfo> retained;
  s->ListRevisions(&retained);
  for (const cairn::RevisionInfo& ri : retained) {
    if (ri.revision == rev) continue;
    cairn::Options ro = o;
    ro.read_only = true;
    ro.revision = ri.revision;
    std::unique_ptr<cairn::Store> old;
    st = cairn::Store::Open(ro, store, MPI_COMM_WORLD, &old);
    // Open agrees on its outcome, so every rank takes the same branch.
    std::string e = st.ok() ? CheckRevision(old.get(), rank, ri.revision)
                            : "open retained revision " + std::to_string(ri.revision) + ": " + st.ToString();
    if (err.empty()) err = e;
  }
  if (g_pins && err.empty()) {
    // A pin reported done survives the cut: retained, pinned (its data was
    // checked with the other retained revisions above).
    std::ifstream in(store + ".pinned");
    for (uint64_t p = 0; in >> p && err.empty();) {
      bool found = false;
      for (const cairn::RevisionInfo& ri : retained)
        if (ri.revision == p) found = ri.pinned;
      if (!found) err = "revision " + std::to_string(p) + " was reported pinned but is not a pinned retained revision";
    }
  }
  int bad = err.empty() ? 0 : 1, any = 0;
  MPI_Allreduce(&bad, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  if (any) {
    s->Close();
    return Finish(rank, err.empty() ? "" : err, 1);
  }
  if (rank == 0 && rev == acked + 1) AppendLine(store + ".acked", std::to_string(rev) + "\n");  // it is there now
  if (rank == 0) std::printf("reopened at revision %llu (%zu retained), intact\n", (unsigned long long)rev, retained.size());

  if (flags.find('L') != std::string::npos) {
    // Flag L: hold the writer lock (power_loss_test.py --lock): rank 0
    // writes the pids of all ranks to STORE.held, then the job waits for
    // STORE.release (at most 60 s) and closes without committing.
    int pid = int(getpid()), size = 0;
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    std::vector<int> pids(size_t(size), 0);
    MPI_Gather(&pid, 1, MPI_INT, pids.data(), 1, MPI_INT, 0, MPI_COMM_WORLD);
    if (rank == 0) {
      std::string held;
      for (int p : pids) held += std::to_string(p) + " ";
      AppendLine(store + ".held.tmp", held + "\n");
      std::rename((store + ".held.tmp").c_str(), (store + ".held").c_str());
    }
    int go = 0;
    for (int i = 0; i < 600 && !go; i++) {
      if (rank == 0) go = access((store + ".release").c_str(), F_OK) == 0;
      MPI_Bcast(&go, 1, MPI_INT, 0, MPI_COMM_WORLD);
      if (!go) usleep(100000);
    }
    st = s->Close();
    return Finish(rank, go ? (st.ok() ? "" : "close: " + st.ToString()) : "never released", 2);
  }
  if (g_pins && rev > 0) {
    st = s->Pin(rev);
    if (!st.ok()) return Finish(rank, "pin " + std::to_string(rev) + ": " + st.ToString(), 2);
    if (rank == 0) AppendLine(store + ".pinned", std::to_string(rev) + "\n");
  }
  // The workload: more revisions, each reported once committed.
  std::unique_ptr<cairn::StreamWriter> sw;  // flag t: open across each commit
  std::string reuse_err;  // flag i (see below)
  for (uint64_t r = rev + 1; r <= rev + revisions && err.empty(); r++) {
    st = PutRevision(s.get(), rank, r);
    // Flag i: the stream is closed (joins the commit) only in the rank's
    // change revisions, and stays open across the commits between, whose
    // tables are reused while its flushed chunks lie unreferenced.
    bool reopen = !g_same || cairn::test::SameChanges(rank, r) || !sw;
    if (st.ok() && g_streams && reopen) {
      if (sw && (!g_same || cairn::test::SameChanges(rank, r))) st = sw->Close();  // joins commit r
      sw.reset();
      if (st.ok()) st = s->OpenWriteStream("st", {{"w", cairn::TagValue::UInt(r)}}, &sw);
      std::string v = StreamValue(rank, r);
      for (size_t at = 0; st.ok() && at < v.size(); at += 7000) {
        st = sw->Write(std::string_view(v).substr(at, 7000));
        if (st.ok()) st = sw->Flush();  // on disk, named by no revision until commit r + 1
      }
    }
    if (st.ok() && flush && r % 2 == 0) st = s->Flush();
    uint64_t got = 0, reused = s->stats().index_tables_reused;
    if (st.ok() && async) {
      cairn::AsyncCommit c;
      st = s->CommitAsync(&c);
      if (st.ok()) st = c.Wait(&got);
    } else if (st.ok()) {
      st = s->Commit(&got);
    }
    if (!st.ok() && flags.find('F') != std::string::npos) {
      // Flag F: every rank has the same failure (a commit's outcome is
      // agreed); the job stops committing.
      if (rank == 0) AppendLine(store + ".failed", std::to_string(r) + "\n");
      break;
    }
    if (!st.ok()) err = "revision " + std::to_string(r) + ": " + st.ToString();
    else if (got != r) err = "revision " + std::to_string(r) + " committed as " + std::to_string(got);
    else if (rank == 0) AppendLine(store + ".acked", std::to_string(r) + "\n");
    // Flag i: a rank whose commit reused other tables than it must says so
    // at once and goes on committing with the others (the commits are
    // collective: leaving the loop alone would hang them).
    if (err.empty() && g_same && r > 1 && s->stats().index_tables_reused - reused != WantReused(rank, r)) {
      std::fprintf(stderr, "rank %d: CHECK FAILED: revision %llu reused %llu index tables, not %llu\n", rank,
                   (unsigned long long)r, (unsigned long long)(s->stats().index_tables_reused - reused),
                   (unsigned long long)WantReused(rank, r));
      if (reuse_err.empty()) reuse_err = "revision " + std::to_string(r) + ": index tables reused wrongly";
    }
  }
  st = s->Close();
  if (err.empty() && !st.ok()) err = "close: " + st.ToString();
  if (err.empty()) err = reuse_err;
  return Finish(rank, err, 2);
}
