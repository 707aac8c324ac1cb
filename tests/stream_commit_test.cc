// Write streams open across commits (issue 10, item 1), under mpiexec with
// 1, 2 and 4 ranks. A commit holds the key's previous object (or none);
// the stream joins the first commit after its writer is closed; and no
// byte the stream wrote is handed out as free space meanwhile, with
// keep_revisions 0, 1 or 2, drops, synchronous and asynchronous commits.
// Also: a Put or Delete of the key while its stream is open, a second
// writer of one key (refused), a reader across commits that expire its
// revision, and puts made while an asynchronous commit is in flight.
#include <gtest/gtest.h>
#include <mpi.h>

#include <filesystem>
#include <map>

#include "cairn/iostream.h"
#include "cairn/stream.h"
#include "mpi_main.h"
#include "test_util.h"

namespace cairn {
namespace {

using test::Rank;


// Small extents, so that a few hundred KiB cross many runs, and a commit
// frees runs that later puts take.
Options Small(uint64_t keep) {
  Options o;
  o.extent_size = 64 * 1024;
  o.chunk_size = 16 * 1024;
  o.write_buffer_size = 32 * 1024;
  o.inline_value_limit = 100;
  o.keep_revisions = keep;
  return o;
}

// Seeds that differ by rank and by use.
uint64_t Seed(int use) { return uint64_t(Rank()) * 1000 + uint64_t(use); }

class StreamCommitTest : public test::MpiDirTest {
 protected:
  std::unique_ptr<Store> Open(const Options& o) {
    std::unique_ptr<Store> s;
    Status st = Store::Open(o, Path(), MPI_COMM_WORLD, &s);
    EXPECT_TRUE(st.ok()) << st.ToString();
    return s;
  }
  // Opens revision `rev` (0: the newest) read-only and checks that it
  // holds exactly `want` in this rank's namespace.
  void CheckRevision(uint64_t rev, const std::map<std::string, std::string>& want) {
    Options o;
    o.read_only = true;
    o.revision = rev;
    std::unique_ptr<Store> s = Open(o);
    ASSERT_TRUE(s);
    std::vector<ObjectInfo> objs;
    ReadOptions mine;
    mine.rank = Rank();
    ASSERT_TRUE(s->List(&objs, mine).ok());
    std::vector<std::string> keys;
    for (const auto& i : objs) keys.push_back(i.key);
    std::vector<std::string> want_keys;
    for (const auto& [k, v] : want) want_keys.push_back(k);
    EXPECT_EQ(keys, want_keys) << "revision " << rev;
    for (const auto& [k, v] : want) {
      std::string got;
      ReadOptions ro;
      ro.rank = Rank();
      Status st = s->Get(k, &got, ro);
      ASSERT_TRUE(st.ok()) << "revision " << rev << " key " << k << ": " << st.ToString();
      EXPECT_TRUE(got == v) << "revision " << rev << " key " << k << ": value differs";
    }
  }
};

void ExpectGet(Store* s, const std::string& key, const std::string& want) {
  std::string got;
  Status st = s->Get(key, &got);
  ASSERT_TRUE(st.ok()) << key << ": " << st.ToString();
  EXPECT_TRUE(got == want) << key << ": value differs (" << got.size() << " bytes, want " << want.size() << ")";
}

// Writes `data` to the stream in pieces of `piece` bytes (each its own
// Write, as an application writing records does).
void WritePieces(StreamWriter* w, const std::string& data, size_t piece) {
  for (size_t at = 0; at < data.size(); at += piece) {
    Status st = w->Write(std::string_view(data).substr(at, piece));
    ASSERT_TRUE(st.ok()) << st.ToString();
  }
}

// The issue's sequence, with default options: a 40 MiB put, a 25 MiB
// text stream open across a commit, closed, the put repeated, committed.
TEST_F(StreamCommitTest, IssueSequenceWithDefaultOptions) {
  auto s = Open(Options());
  std::string grid = test::Pattern(Seed(1), 40 << 20);
  ASSERT_TRUE(s->Put("grid", grid).ok());
  std::string line;
  for (int i = 0; i < 100; i++) line += char('a' + (i + Rank()) % 26);
  line += '\n';
  std::string ref;
  {
    cairn::ostream out(*s, "particles.txt");
    while (ref.size() < (25u << 20)) {
      out << line;
      ref += line;
    }
    ASSERT_TRUE(out.good());
    ASSERT_TRUE(s->Commit().ok());
    ASSERT_TRUE(out.close().ok());
  }
  ASSERT_TRUE(s->Put("grid", grid).ok());
  ASSERT_TRUE(s->Commit().ok());
  ExpectGet(s.get(), "particles.txt", ref);
  ExpectGet(s.get(), "grid", grid);
  s.reset();
  CheckRevision(1, {{"grid", grid}});
  CheckRevision(2, {{"grid", grid}, {"particles.txt", ref}});
}

// What a commit holds while a key's stream is open: its previous object,
// or nothing. With keep_revisions 0 every revision is checked at the end.
TEST_F(StreamCommitTest, CommitHoldsThePreviousObjectWhileTheStreamIsOpen) {
  auto s = Open(Small(0));
  std::string old = test::Pattern(Seed(1), 300000);
  ASSERT_TRUE(s->Put("s", old).ok());
  ASSERT_TRUE(s->Put("filler", test::Pattern(Seed(2), 500000)).ok());
  ASSERT_TRUE(s->Commit().ok());  // 1
  std::unique_ptr<StreamWriter> w, fresh;
  ASSERT_TRUE(s->OpenWriteStream("s", {}, &w).ok());
  ASSERT_TRUE(s->OpenWriteStream("fresh", {}, &fresh).ok());
  std::string a = test::Pattern(Seed(3), 600000), f = test::Pattern(Seed(4), 200000);
  WritePieces(w.get(), a, 10000);
  WritePieces(fresh.get(), f, 7000);
  std::string filler2 = test::Pattern(Seed(5), 700000);
  ASSERT_TRUE(s->Put("filler", filler2).ok());
  ASSERT_TRUE(s->Commit().ok());  // 2: "s" is the old object, "fresh" absent
  ExpectGet(s.get(), "s", old);
  uint64_t size = 0;
  EXPECT_EQ(s->GetSize("fresh", &size).code(), Status::Code::kNotFound);
  // The freed extents go to the next puts; the streams' must not.
  std::string filler3 = test::Pattern(Seed(6), 900000);
  ASSERT_TRUE(s->Put("filler", filler3).ok());
  ASSERT_TRUE(s->Commit().ok());  // 3
  // An overwrite at the start rereads the stream's first chunk.
  std::string b = test::Pattern(Seed(7), 100000);
  WritePieces(w.get(), b, 10000);
  ASSERT_TRUE(w->Seek(5).ok());
  ASSERT_TRUE(w->Write("HEAD", 4).ok());
  std::string want = a + b;
  want.replace(5, 4, "HEAD");
  ASSERT_TRUE(w->Close().ok());
  ASSERT_TRUE(fresh->Close().ok());
  ExpectGet(s.get(), "s", want);  // pending, not yet committed
  std::string filler4 = test::Pattern(Seed(8), 400000);
  ASSERT_TRUE(s->Put("filler", filler4).ok());
  ASSERT_TRUE(s->Commit().ok());  // 4: both streams
  ASSERT_TRUE(s->Put("filler", filler3).ok());
  ASSERT_TRUE(s->Commit().ok());  // 5
  ExpectGet(s.get(), "s", want);
  ExpectGet(s.get(), "fresh", f);
  s.reset();
  CheckRevision(2, {{"s", old}, {"filler", filler2}});
  CheckRevision(3, {{"s", old}, {"filler", filler3}});
  CheckRevision(4, {{"s", want}, {"fresh", f}, {"filler", filler4}});
  CheckRevision(5, {{"s", want}, {"fresh", f}, {"filler", filler3}});
}

// keep_revisions = 1: every commit frees the previous revision's values;
// a stream open across six of them keeps every byte it wrote.
TEST_F(StreamCommitTest, StreamOpenAcrossManyCommitsWithKeepOne) {
  auto s = Open(Small(1));
  std::unique_ptr<StreamWriter> w;
  ASSERT_TRUE(s->OpenWriteStream("log", {{"kind", TagValue::String("log")}}, &w).ok());
  std::string ref, filler;
  for (int i = 0; i < 6; i++) {
    std::string part = test::Pattern(Seed(10 + i), 150000 + 30000 * size_t(i));
    WritePieces(w.get(), part, 4000 + 1000 * size_t(i));
    ref += part;
    filler = test::Pattern(Seed(20 + i), 400000 + 100000 * size_t(i % 3));
    ASSERT_TRUE(s->Put("filler", filler).ok());
    ASSERT_TRUE(s->Commit().ok());
    uint64_t size;
    EXPECT_EQ(s->GetSize("log", &size).code(), Status::Code::kNotFound) << "commit " << i;
    if (i == 3) {
      ASSERT_TRUE(w->Flush().ok());
    }
  }
  // Overwrites spread over the whole stream reread chunks of every age.
  for (uint64_t at = 0; at < ref.size(); at += 97 * 1024) {
    ASSERT_TRUE(w->Seek(at).ok());
    std::string p = test::Pattern(at, 3000);
    Status st = w->Write(p);
    ASSERT_TRUE(st.ok()) << "overwrite at " << at << ": " << st.ToString();
    ref.replace(at, std::min<size_t>(3000, ref.size() - at), p.substr(0, std::min<size_t>(3000, ref.size() - at)));
    if (at + 3000 > ref.size()) ref += p.substr(ref.size() - at);
  }
  ASSERT_TRUE(w->Close().ok());
  ASSERT_TRUE(s->Commit().ok());
  ExpectGet(s.get(), "log", ref);
  ASSERT_TRUE(s->Put("filler", test::Pattern(Seed(30), 800000)).ok());
  ASSERT_TRUE(s->Commit().ok());
  ExpectGet(s.get(), "log", ref);
  s.reset();
  CheckRevision(0, {{"log", ref}, {"filler", test::Pattern(Seed(30), 800000)}});
}

// Asynchronous commits (with and without staging) while a stream is open:
// the stream writes on while each commit is in flight, and puts reuse the
// space the commits free.
TEST_F(StreamCommitTest, StreamOpenAcrossAsynchronousCommits) {
  for (uint64_t staging : {uint64_t(0), uint64_t(256 * 1024)}) {
    SCOPED_TRACE("staging_bytes " + std::to_string(staging));
    Options o = Small(1);
    o.staging_bytes = staging;
    {
      auto s = Open(o);
      std::unique_ptr<StreamWriter> w;
      ASSERT_TRUE(s->OpenWriteStream("s", {}, &w).ok());
      std::string ref, filler;
      for (int i = 0; i < 5; i++) {
        std::string part = test::Pattern(Seed(40 + i), 120000);
        WritePieces(w.get(), part, 5000);
        ref += part;
        filler = test::Pattern(Seed(50 + i), 500000);
        ASSERT_TRUE(s->Put("filler", filler).ok());
        AsyncCommit h;
        ASSERT_TRUE(s->CommitAsync(&h).ok());
        std::string more = test::Pattern(Seed(60 + i), 90000);
        WritePieces(w.get(), more, 3000);  // while the commit is in flight
        ref += more;
        h.Test();
        ASSERT_TRUE(s->Put("during", test::Pattern(Seed(70 + i), 300000)).ok());
        ASSERT_TRUE(h.Wait().ok());
      }
      ASSERT_TRUE(w->Seek(1000).ok());
      Status ow = w->Write("overwritten", 11);  // rereads the stream's first chunk
      ASSERT_TRUE(ow.ok()) << ow.ToString();
      ref.replace(1000, 11, "overwritten");
      ASSERT_TRUE(w->Close().ok());
      AsyncCommit h;
      ASSERT_TRUE(s->CommitAsync(&h).ok());
      ASSERT_TRUE(s->Put("filler", test::Pattern(Seed(80), 600000)).ok());
      ASSERT_TRUE(h.Wait().ok());
      ASSERT_TRUE(s->Commit().ok());
      ExpectGet(s.get(), "s", ref);
      s.reset();
      CheckRevision(0, {{"s", ref},
                        {"filler", test::Pattern(Seed(80), 600000)},
                        {"during", test::Pattern(Seed(74), 300000)}});
    }
    MPI_Barrier(MPI_COMM_WORLD);
    if (Rank() == 0) std::filesystem::remove_all(Path());
    MPI_Barrier(MPI_COMM_WORLD);
  }
}

// keep_revisions = 2 and a Drop while a stream is open: the drop frees the
// dropped revision's extents at the next commit, never the stream's.
TEST_F(StreamCommitTest, KeepTwoAndDropWhileAStreamIsOpen) {
  auto s = Open(Small(2));
  std::unique_ptr<StreamWriter> w;
  ASSERT_TRUE(s->OpenWriteStream("s", {}, &w).ok());
  std::string ref;
  uint64_t rev = 0;
  for (int i = 0; i < 4; i++) {
    std::string part = test::Pattern(Seed(90 + i), 200000);
    WritePieces(w.get(), part, 6000);
    ref += part;
    ASSERT_TRUE(s->Put("filler", test::Pattern(Seed(100 + i), 400000)).ok());
    ASSERT_TRUE(s->Commit(&rev).ok());
  }
  ASSERT_TRUE(s->Drop(rev - 1).ok());  // the older of the two kept
  ASSERT_TRUE(s->Put("filler", test::Pattern(Seed(110), 700000)).ok());
  ASSERT_TRUE(s->Commit().ok());
  ASSERT_TRUE(s->Put("filler", test::Pattern(Seed(111), 700000)).ok());
  ASSERT_TRUE(s->Commit().ok());
  std::string tail = test::Pattern(Seed(112), 50000);
  WritePieces(w.get(), tail, 5000);
  ref += tail;
  ASSERT_TRUE(w->Close().ok());
  ASSERT_TRUE(s->Commit().ok());
  ExpectGet(s.get(), "s", ref);
  s.reset();
  CheckRevision(0, {{"s", ref}, {"filler", test::Pattern(Seed(111), 700000)}});
}

// A Put or Delete of the key while its stream is open acts at once, like
// any put; the stream's Close then replaces the key (Close is the put).
TEST_F(StreamCommitTest, PutAndDeleteOfTheKeyWhileItsStreamIsOpen) {
  auto s = Open(Small(1));
  std::unique_ptr<StreamWriter> w;
  ASSERT_TRUE(s->OpenWriteStream("k", {}, &w).ok());
  std::string a = test::Pattern(Seed(120), 300000);
  WritePieces(w.get(), a, 8000);
  std::string put = test::Pattern(Seed(121), 250000);
  ASSERT_TRUE(s->Put("k", put).ok());
  ExpectGet(s.get(), "k", put);
  ASSERT_TRUE(s->Commit().ok());  // 1: the put
  ASSERT_TRUE(s->Delete("k").ok());
  uint64_t size;
  EXPECT_EQ(s->GetSize("k", &size).code(), Status::Code::kNotFound);
  ASSERT_TRUE(s->Put("filler", test::Pattern(Seed(122), 600000)).ok());
  ASSERT_TRUE(s->Commit().ok());  // 2: no "k"
  ASSERT_TRUE(w->Close().ok());
  ExpectGet(s.get(), "k", a);
  ASSERT_TRUE(s->Commit().ok());  // 3: the stream
  ExpectGet(s.get(), "k", a);
  s.reset();
  CheckRevision(3, {{"k", a}, {"filler", test::Pattern(Seed(122), 600000)}});
}

// One write stream per key at a time (per rank): a second is refused,
// naming the key, until the first is closed; other keys are unaffected.
TEST_F(StreamCommitTest, SecondWriteStreamOnAKeyIsRefused) {
  auto s = Open(Small(0));
  std::unique_ptr<StreamWriter> w, w2, other;
  ASSERT_TRUE(s->OpenWriteStream("k", {}, &w).ok());
  ASSERT_TRUE(w->Write("first", 5).ok());
  Status st = s->OpenWriteStream("k", {}, &w2);
  EXPECT_EQ(st.code(), Status::Code::kInvalidArgument);
  EXPECT_NE(st.message().find("'k'"), std::string::npos) << st.ToString();
  EXPECT_NE(st.message().find("already open"), std::string::npos) << st.ToString();
  EXPECT_FALSE(w2);
  {
    cairn::ostream out(*s, "k");
    EXPECT_TRUE(out.bad());
    EXPECT_EQ(out.status().code(), Status::Code::kInvalidArgument);
  }
  ASSERT_TRUE(s->OpenWriteStream("other", {}, &other).ok());
  ASSERT_TRUE(other->Close().ok());
  ASSERT_TRUE(w->Close().ok());
  ASSERT_TRUE(s->OpenWriteStream("k", {}, &w2).ok());  // free again
  ASSERT_TRUE(w2->Write("second", 6).ok());
  w2.reset();  // destruction closes it
  ASSERT_TRUE(s->OpenWriteStream("k", {}, &w2).ok());
  ASSERT_TRUE(w2->Close().ok());
  ASSERT_TRUE(s->Commit().ok());
  ExpectGet(s.get(), "k", "");
}

// A reader sees its object as it was when opened, even after commits that
// expire that revision and reuse its space (keep_revisions = 1).
TEST_F(StreamCommitTest, ReaderKeepsItsObjectAcrossCommitsThatExpireIt) {
  auto s = Open(Small(1));
  std::string old = test::Pattern(Seed(130), 400000);
  ASSERT_TRUE(s->Put("k", old).ok());
  ASSERT_TRUE(s->Commit().ok());
  std::unique_ptr<StreamReader> r;
  ASSERT_TRUE(s->OpenReadStream("k", &r).ok());
  for (int i = 0; i < 4; i++) {
    ASSERT_TRUE(s->Put("k", test::Pattern(Seed(131 + i), 400000)).ok());
    ASSERT_TRUE(s->Commit().ok());
  }
  std::string got(old.size(), '\0');
  Status st = r->ReadAt(0, got.data(), got.size());
  ASSERT_TRUE(st.ok()) << st.ToString();
  EXPECT_TRUE(got == old);
  r.reset();
  // Closed readers hold nothing: the next commits reuse that space again.
  ASSERT_TRUE(s->Put("k", test::Pattern(Seed(140), 400000)).ok());
  ASSERT_TRUE(s->Commit().ok());
  ExpectGet(s.get(), "k", test::Pattern(Seed(140), 400000));
}

// Puts made while an asynchronous commit is in flight belong to the next
// revision; the space they were written to is never handed out by the
// commit in flight (keep_revisions = 1, so every commit frees space).
TEST_F(StreamCommitTest, PutsDuringAnAsynchronousCommitKeepTheirSpace) {
  Options o = Small(1);
  o.staging_bytes = 256 * 1024;
  auto s = Open(o);
  std::map<std::string, std::string> want;
  for (int i = 0; i < 6; i++) {
    ASSERT_TRUE(s->Put("filler", test::Pattern(Seed(150 + i), 500000)).ok());
    AsyncCommit h;
    ASSERT_TRUE(s->CommitAsync(&h).ok());
    std::string key = "during" + std::to_string(i);
    want[key] = test::Pattern(Seed(160 + i), 200000 + 20000 * size_t(i));
    ASSERT_TRUE(s->Put(key, want[key]).ok());
    h.Test();
    ASSERT_TRUE(h.Wait().ok());
  }
  ASSERT_TRUE(s->Put("filler", test::Pattern(Seed(170), 900000)).ok());
  ASSERT_TRUE(s->Commit().ok());
  want["filler"] = test::Pattern(Seed(170), 900000);
  for (const auto& [k, v] : want) ExpectGet(s.get(), k, v);
  s.reset();
  CheckRevision(0, want);
}

// Streams committed by asynchronous commits, keep 2: the space of expired
// streams is reused, so the data files stop growing. Each stream is one
// write of two to four extents. An asynchronous commit hands a rank its new
// share of free extents beside what is left of its old list; those runs
// were kept in one-extent pieces, and a stream write needing a run longer
// than any piece took new space from the end of the file every time
// (27-58 KB more per commit, 55 MB after 2,000 commits at one rank).
TEST_F(StreamCommitTest, AsynchronouslyCommittedStreamsReuseExpiredSpace) {
  Options o = Small(2);
  o.sync = false;
  auto s = Open(o);
  const int kCommits = 300;
  uint64_t at_100 = 0;
  std::string last;
  for (int i = 1; i <= kCommits; i++) {
    std::unique_ptr<StreamWriter> w;
    ASSERT_TRUE(s->OpenWriteStream("s", {}, &w).ok());
    last = test::Pattern(Seed(200 + i), 130000 + 10007 * size_t(i % 13));
    ASSERT_TRUE(w->Write(last).ok());
    ASSERT_TRUE(w->Close().ok());
    AsyncCommit h;
    ASSERT_TRUE(s->CommitAsync(&h).ok());
    ASSERT_TRUE(h.Wait().ok());
    if (i == 100) at_100 = test::DataFileBytesBetweenBarriers(Path());
  }
  uint64_t at_end = test::DataFileBytesBetweenBarriers(Path());
  // 200 more commits of about 190 KB per rank: growth would be tens of MB.
  EXPECT_LE(at_end, at_100 + 2 * o.extent_size * uint64_t(test::Size()))
      << "data files grew from " << at_100 << " bytes after 100 commits to " << at_end << " after " << kCommits;
  ExpectGet(s.get(), "s", last);
  s.reset();
  CheckRevision(0, {{"s", last}});
}

}  // namespace
}  // namespace cairn

CAIRN_MPI_TEST_MAIN
