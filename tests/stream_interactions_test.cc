// Write streams against read-only opens, queries and global arrays
// (doc/interactions.md, `stream` x `ro`, `stream` x `query`, `stream` x
// `array`), at 1, 2 and 4 ranks; every test reads the data back:
//  - a write stream of each writer open across commits (flushed in parts,
//    closed every third commit) with keep 1 and puts that take every free
//    extent, beside read-only opens in other processes (the odd ranks; at
//    1 rank a second handle of the same process): after each commit a
//    reader opens the newest revision and finds exactly its objects, the
//    stream object the last closed stream, whole; while it keeps that
//    handle the writer writes and flushes more of its stream and new puts
//    without committing, and the reader's revision still reads back whole;
//  - streams with tags (some open across a commit, one replacing a put
//    object, one replaced by a put) found by Query and QueryAll exactly
//    when closed (pending on the writing handle, committed for the others),
//    with every hit's bytes checked, after each commit, after a reopen and
//    at an older retained revision;
//  - a write stream open across commits beside global arrays in the same
//    commits (one rewritten each commit, one carried, one put and deleted
//    in turn) with keep 1, so the arrays' blocks reuse freed space: arrays
//    and streams read back exactly after each commit and after a reopen.
#include <gtest/gtest.h>
#include <mpi.h>

#include <map>
#include <string>
#include <vector>

#include "cairn/array.h"
#include "cairn/store.h"
#include "cairn/stream.h"
#include "mpi_main.h"
#include "store_test_util.h"
#include "test_util.h"

namespace cairn::test {
namespace {

std::string Key(int i) { return "k" + std::to_string(i); }
// Puts of round g: four of 40 KB a rank, so that with keep 1 every free
// extent is taken again each commit.
std::string PutValue(int w, int i, int g) { return Pattern(uint64_t(w) * 1000003 + uint64_t(i) * 101 + uint64_t(g), 40000); }
// Stream generation G is written in rounds 3G-2, 3G-1 and 3G, one flushed
// part a round, and closed in round 3G before its commit.
std::string Part(int w, int gen, int j) { return Pattern(uint64_t(w) * 7777 + uint64_t(gen) * 31 + uint64_t(j), 11000 + size_t(j) * 700); }
std::string StreamValue(int w, int gen) { return Part(w, gen, 0) + Part(w, gen, 1) + Part(w, gen, 2); }

// Round g of a writer with stream "s" open across commits: writes its part
// (opening generation (g+2)/3 first if none is open), the puts, and closes
// the stream in its third round. Does not commit.
void WriterRound(Store* s, std::unique_ptr<StreamWriter>* sw, int w, int g) {
  int gen = (g + 2) / 3, j = (g - 1) % 3;
  if (!*sw) {
    ASSERT_TRUE(s->OpenWriteStream("s", {{"gen", TagValue::UInt(uint64_t(gen))}}, sw).ok());
  }
  ASSERT_TRUE((*sw)->Write(Part(w, gen, j)).ok());
  ASSERT_TRUE((*sw)->Flush().ok());  // on disk, named by no revision yet
  for (int i = 0; i < 4; i++) ASSERT_TRUE(s->Put(Key(i), PutValue(w, i, g)).ok());
  if (j == 2) {
    ASSERT_TRUE((*sw)->Close().ok());  // joins this round's commit
    sw->reset();
  }
}

// "" if the view holds what revision g + 1 (after round g; revision 1 is
// "s" = "old" alone) holds in namespace w.
std::string CheckNamespace(Store* s, int w, int g) {
  ReadOptions ro;
  ro.rank = w;
  std::string v, where = "revision " + std::to_string(g + 1) + " namespace " + std::to_string(w) + ": ";
  for (int i = 0; i < 4 && g > 0; i++) {
    Status st = s->Get(Key(i), &v, ro);
    if (!st.ok()) return where + Key(i) + ": " + st.ToString();
    if (v != PutValue(w, i, g)) return where + Key(i) + " differs";
  }
  Status st = s->Get("s", &v, ro);
  if (!st.ok()) return where + "stream object: " + st.ToString();
  TagList tags;
  st = s->GetTags("s", &tags, ro);
  if (!st.ok()) return where + "stream tags: " + st.ToString();
  int gen = g / 3;  // the last generation closed
  if (gen == 0) return v == "old" && tags.empty() ? "" : where + "\"s\" is not the put object \"old\"";
  if (tags != TagList{{"gen", TagValue::UInt(uint64_t(gen))}}) return where + "stream tags differ";
  if (v.size() != StreamValue(w, gen).size()) return where + "stream object has " + std::to_string(v.size()) +
                                                       " bytes, generation " + std::to_string(gen) + " has " +
                                                       std::to_string(StreamValue(w, gen).size());
  return v == StreamValue(w, gen) ? "" : where + "stream object differs from generation " + std::to_string(gen);
}

class StreamInteractions : public MpiDirTest {};

// `stream` x `ro`. Even ranks write (their own communicator), odd ranks
// read, each in its own process with MPI_COMM_SELF; at 1 rank the reader is
// a second handle of the writing process. Lockstep: commit, the readers
// open and check, the writers write without committing, the readers check
// again through the same handles and close them.
TEST_F(StreamInteractions, ReadOnlyOpensBesideAStreamOpenAcrossCommits) {
  int rank = Rank(), size = Size();
  bool alone = size == 1, writer = alone || rank % 2 == 0, reader = alone || rank % 2 == 1;
  MPI_Comm wc;
  MPI_Comm_split(MPI_COMM_WORLD, writer ? 0 : 1, rank, &wc);
  int writers = alone ? 1 : (size + 1) / 2, w = Rank(wc);
  Options o = SmallUnsyncedOptions();
  o.keep_revisions = 1;
  std::unique_ptr<Store> s;
  std::unique_ptr<StreamWriter> sw;
  if (writer) {
    ASSERT_TRUE(Store::Open(o, Path(), wc, &s).ok());
    ASSERT_TRUE(s->Put("s", "old").ok());
    ASSERT_TRUE(s->Commit().ok());  // revision 1
  }
  Options ro = SmallUnsyncedOptions();
  ro.read_only = true;
  ro.create_if_missing = false;
  const int kRounds = 12;
  if (writer) WriterRound(s.get(), &sw, w, 1);
  for (int g = 1; g <= kRounds; g++) {
    if (writer) {
      uint64_t got = 0;
      ASSERT_TRUE(s->Commit(&got).ok());  // round g
      ASSERT_EQ(got, uint64_t(g + 1));
    }
    MPI_Barrier(MPI_COMM_WORLD);  // committed
    std::unique_ptr<Store> r;
    if (reader) {
      Status st = Store::Open(ro, Path(), MPI_COMM_SELF, &r);
      ASSERT_TRUE(st.ok()) << st.ToString();
      ASSERT_EQ(r->revision(), uint64_t(g + 1));
      ASSERT_EQ(r->writer_ranks(), writers);
      for (int v = 0; v < writers; v++) EXPECT_EQ(CheckNamespace(r.get(), v, g), "") << "just after the commit";
    }
    MPI_Barrier(MPI_COMM_WORLD);  // the readers hold revision g + 1
    if (writer && g < kRounds) {
      // The next round's stream part and puts, written and flushed, not
      // committed: they go to free space, never to the readers' revision.
      WriterRound(s.get(), &sw, w, g + 1);
      ASSERT_TRUE(s->Flush().ok());
    }
    MPI_Barrier(MPI_COMM_WORLD);
    if (reader) {
      for (int v = 0; v < writers; v++)
        EXPECT_EQ(CheckNamespace(r.get(), v, g), "") << "with the writer's next round written, not committed";
      ASSERT_TRUE(r->Close().ok());
    }
    MPI_Barrier(MPI_COMM_WORLD);
  }
  if (writer) {
    if (sw) {
      ASSERT_TRUE(sw->Close().ok());
    }
    ASSERT_TRUE(s->Close().ok());
  }
  MPI_Comm_free(&wc);
  // Only rank 0 prints: say there that a reader rank failed.
  int bad = HasFailure() ? 1 : 0, worst = 0;
  MPI_Allreduce(&bad, &worst, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  EXPECT_EQ(worst, 0) << "a rank found the data wrong (run that rank alone to see its messages)";
}


// `stream` x `query`: the objects of one namespace, as a model: key ->
// (bytes, tags). Every rank writes the same keys, with its own bytes.
struct Obj {
  std::string value;
  TagList tags;
};
using Model = std::map<std::string, Obj>;
TagList LogTags(int n) { return {{"kind", TagValue::String("log")}, {"n", TagValue::Int(n)}}; }
TagList PutTags(int n) { return {{"kind", TagValue::String("put")}, {"n", TagValue::Int(n)}}; }
std::string LogPart(int rank, int n, int j) { return Pattern(uint64_t(rank) * 999331 + uint64_t(n) * 17 + uint64_t(j), 6000 + size_t(n) * 100); }

// "" if Query and QueryAll on `s` find exactly what `m` says (every rank
// holds the same keys), and each hit of this rank reads back as in `m`.
std::string CheckQueries(Store* s, const Model& m, int rank, const std::string& when) {
  int size = Size();
  std::vector<TagQuery> logs = {TagQuery::Equal("kind", TagValue::String("log"))};
  std::vector<TagQuery> mid = {TagQuery::Range("n", TagValue::Int(3), TagValue::Int(5)), TagQuery::Exists("kind")};
  std::vector<std::string> want_logs, want_mid, got;
  for (const auto& [k, o] : m) {
    if (o.tags[0].value.bytes() == "log") want_logs.push_back(k);
    int64_t n = o.tags[1].value.as_int();
    if (n >= 3 && n <= 5) want_mid.push_back(k);
  }
  Status st = s->Query(logs, &got);
  if (!st.ok()) return when + ": Query: " + st.ToString();
  if (got != want_logs) return when + ": Query kind=log found " + std::to_string(got.size()) + " keys, want " + std::to_string(want_logs.size());
  st = s->Query(mid, &got);
  if (!st.ok()) return when + ": Query n in [3,5]: " + st.ToString();
  if (got != want_mid) return when + ": Query n in [3,5] differs";
  std::vector<QueryHit> hits, want;
  st = s->QueryAll(logs, &hits);  // collective
  if (!st.ok()) return when + ": QueryAll: " + st.ToString();
  for (int r = 0; r < size; r++)
    for (const std::string& k : want_logs) want.push_back(QueryHit{r, k});
  if (hits != want) return when + ": QueryAll kind=log found " + std::to_string(hits.size()) + " hits, want " + std::to_string(want.size());
  for (const std::string& k : want_logs) {
    std::string v;
    TagList t;
    st = s->Get(k, &v);
    if (st.ok()) st = s->GetTags(k, &t);
    if (!st.ok()) return when + ": " + k + ": " + st.ToString();
    if (v != m.at(k).value || t != m.at(k).tags) return when + ": " + k + " (found by Query) differs";
  }
  (void)rank;
  return "";
}

// Rounds 1..9, keep 2: in round n stream "log/n" (tags kind=log, n) is
// opened and written, stays open across commit n, and is closed in round
// n + 1; "put/n" is put (kind=put). Round 5 puts over "log/2" (now
// kind=put); round 6 opens a stream over "put/1" (kind=log, n=1), closed in
// round 7.
TEST_F(StreamInteractions, StreamsFoundByQueryAcrossCommitsAndAfterReopen) {
  int rank = Rank();
  Options o = SmallUnsyncedOptions();
  o.keep_revisions = 2;
  Model pending, committed, previous;
  {
    std::unique_ptr<Store> s;
    ASSERT_TRUE(Store::Open(o, Path(), MPI_COMM_WORLD, &s).ok());
    std::map<std::string, std::unique_ptr<StreamWriter>> open;
    std::map<std::string, Obj> open_model;
    auto open_stream = [&](const std::string& k, int n, int part_of) {
      ASSERT_TRUE(s->OpenWriteStream(k, LogTags(n), &open[k]).ok());
      std::string p = LogPart(rank, part_of, 0);
      ASSERT_TRUE(open[k]->Write(p).ok());
      ASSERT_TRUE(open[k]->Flush().ok());
      open_model[k] = Obj{p, LogTags(n)};
    };
    auto close_stream = [&](const std::string& k, int part_of) {
      std::string p = LogPart(rank, part_of, 1);
      ASSERT_TRUE(open[k]->Write(p).ok());
      ASSERT_TRUE(open[k]->Close().ok());
      open.erase(k);
      open_model[k].value += p;
      pending[k] = open_model[k];
      open_model.erase(k);
    };
    for (int n = 1; n <= 9; n++) {
      std::vector<std::string> closing;
      for (const auto& [k, w] : open) closing.push_back(k);
      for (const std::string& k : closing) close_stream(k, k == "put/1" ? 100 : n - 1);
      open_stream("log/" + std::to_string(n), n, n);
      if (n == 6) open_stream("put/1", 1, 100);
      std::string pv = Pattern(uint64_t(rank) * 55 + uint64_t(n), 3000);
      ASSERT_TRUE(s->Put("put/" + std::to_string(n), pv, PutTags(n)).ok());
      pending["put/" + std::to_string(n)] = Obj{pv, PutTags(n)};
      if (n == 5) {
        ASSERT_TRUE(s->Put("log/2", "replaced", PutTags(2)).ok());
        pending["log/2"] = Obj{"replaced", PutTags(2)};
      }
      // The writing handle's queries see its closed streams and puts at
      // once, its open streams not at all.
      EXPECT_EQ(CheckQueries(s.get(), pending, rank, "round " + std::to_string(n) + " before its commit"), "");
      uint64_t got = 0;
      ASSERT_TRUE(s->Commit(&got).ok());
      ASSERT_EQ(got, uint64_t(n));
      previous = committed;
      committed = pending;
      EXPECT_EQ(CheckQueries(s.get(), committed, rank, "after commit " + std::to_string(n)), "");
    }
    for (auto& [k, w] : open) ASSERT_TRUE(w->Close().ok());  // never committed
    ASSERT_TRUE(s->Close().ok());
  }
  Options ro = o;
  ro.read_only = true;
  std::unique_ptr<Store> r;
  ASSERT_TRUE(Store::Open(ro, Path(), MPI_COMM_WORLD, &r).ok());
  ASSERT_EQ(r->revision(), 9u);
  EXPECT_EQ(CheckQueries(r.get(), committed, rank, "revision 9 reopened"), "");
  r.reset();
  ro.revision = 8;
  ASSERT_TRUE(Store::Open(ro, Path(), MPI_COMM_WORLD, &r).ok());
  EXPECT_EQ(CheckQueries(r.get(), previous, rank, "revision 8 reopened"), "");
  r.reset();
  // Writable again: the committed state, and one more stream committed.
  std::unique_ptr<Store> s;
  ASSERT_TRUE(Store::Open(o, Path(), MPI_COMM_WORLD, &s).ok());
  EXPECT_EQ(CheckQueries(s.get(), committed, rank, "revision 9 reopened writable"), "");
  std::unique_ptr<StreamWriter> sw;
  ASSERT_TRUE(s->OpenWriteStream("log/10", LogTags(4), &sw).ok());
  ASSERT_TRUE(sw->Write(LogPart(rank, 10, 0)).ok());
  ASSERT_TRUE(sw->Close().ok());
  committed["log/10"] = Obj{LogPart(rank, 10, 0), LogTags(4)};
  ASSERT_TRUE(s->Commit().ok());
  EXPECT_EQ(CheckQueries(s.get(), committed, rank, "revision 10"), "");
}

// `stream` x `array`: keep 1; each round the stream part (flushed, open
// across commits as in the first test), array "A" put again, "B" carried
// from round 1, "C" put in odd rounds and deleted in even ones.
constexpr uint64_t kPart = 5000;  // elements a rank: 40 KB, across extents
double Element(int rank, int g, uint64_t i, int which) { return rank * 1e7 + double(i) + g * 0.25 + which * 1e6; }
std::string CheckArray(Store* s, const std::string& name, int g, int which) {
  int n = Size();
  std::vector<double> all(kPart * uint64_t(n), -1.0);
  Status st = s->GetArray(name, {0}, {kPart * uint64_t(n)}, all.data());
  if (!st.ok()) return "array " + name + ": " + st.ToString();
  for (int r = 0; r < n; r++)
    for (uint64_t i = 0; i < kPart; i++)
      if (all[uint64_t(r) * kPart + i] != Element(r, g, i, which))
        return "array " + name + " differs at rank " + std::to_string(r) + " element " + std::to_string(i);
  return "";
}
void PutArrayPart(Store* s, const std::string& name, int g, int which) {
  int rank = Rank(), n = Size();
  std::vector<double> v(kPart);
  for (uint64_t i = 0; i < kPart; i++) v[i] = Element(rank, g, i, which);
  Status st = s->PutArray(name, DType::kFloat64, {kPart * uint64_t(n)}, {kPart * uint64_t(rank)}, {kPart}, v.data());
  ASSERT_TRUE(st.ok()) << st.ToString();
}
// "" if the view holds revision g + 1's arrays and stream object.
std::string CheckArraysAndStream(Store* s, int g) {
  std::string e = CheckArray(s, "A", g, 0);
  if (e.empty()) e = CheckArray(s, "B", 1, 1);
  if (e.empty() && g % 2 == 1) e = CheckArray(s, "C", g, 2);
  if (e.empty() && g % 2 == 0) {
    ArrayInfo info;
    Status st = s->GetArrayInfo("C", &info);
    if (!st.IsNotFound()) e = "array C, deleted, is there: " + st.ToString();
  }
  if (e.empty()) e = CheckNamespace(s, Rank(), g);
  return e.empty() ? "" : "revision " + std::to_string(g + 1) + ": " + e;
}

TEST_F(StreamInteractions, StreamsAndGlobalArraysInTheSameCommits) {
  int rank = Rank();
  Options o = SmallUnsyncedOptions();
  o.keep_revisions = 1;
  const int kRounds = 10;
  {
    std::unique_ptr<Store> s;
    ASSERT_TRUE(Store::Open(o, Path(), MPI_COMM_WORLD, &s).ok());
    ASSERT_TRUE(s->Put("s", "old").ok());
    ASSERT_TRUE(s->Commit().ok());  // revision 1
    std::unique_ptr<StreamWriter> sw;
    for (int g = 1; g <= kRounds; g++) {
      WriterRound(s.get(), &sw, rank, g);
      PutArrayPart(s.get(), "A", g, 0);
      if (g == 1) PutArrayPart(s.get(), "B", 1, 1);
      if (g % 2 == 1) PutArrayPart(s.get(), "C", g, 2);
      else ASSERT_TRUE(s->DeleteArray("C").ok());
      uint64_t got = 0;
      Status st = s->Commit(&got);
      ASSERT_TRUE(st.ok()) << st.ToString();
      ASSERT_EQ(got, uint64_t(g + 1));
      EXPECT_EQ(CheckArraysAndStream(s.get(), g), "") << "on the writing handle";
    }
    if (sw) {
      ASSERT_TRUE(sw->Close().ok());  // round 10's part: never committed
    }
    ASSERT_TRUE(s->Close().ok());
  }
  Options ro = o;
  ro.read_only = true;
  std::unique_ptr<Store> r;
  ASSERT_TRUE(Store::Open(ro, Path(), MPI_COMM_WORLD, &r).ok());
  ASSERT_EQ(r->revision(), uint64_t(kRounds + 1));
  EXPECT_EQ(CheckArraysAndStream(r.get(), kRounds), "") << "reopened";
}

}  // namespace
}  // namespace cairn::test

CAIRN_MPI_TEST_MAIN
