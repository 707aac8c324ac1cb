// Calls made while this process can allocate nothing at all (every byte
// under RLIMIT_AS taken: Exhausted below), not mocked:
//  - a job of the I/O thread that runs out of memory (the manifest job of an
//    asynchronous commit) fails the commit, with an IOError, and the process
//    goes on (it ended in std::terminate); the committed revision is intact
//    and the store commits again;
//  - Put moves the commit in flight on (Progress) without std::bad_alloc out
//    of it, and the commit ends as it would have;
//  - DeleteArray, StreamWriter::Flush, StreamWriter::Seek and Store::Flush
//    return a status, not std::bad_alloc, and change nothing;
//  - so do Pin, Unpin, Drop, ListRevisions, the array reads, a stream's
//    Read, QueryAll, Commit and CommitAsync (then the store commits), and
//    Close with a commit in flight that cannot move on;
//  - an index table too large for the memory left (a real limit, not all
//    memory taken) fails Open and each read that loads it with an IOError.
// glibc's malloc is held to one arena (set before main, below), so that
// the I/O thread allocates from the same memory the test takes.
#include <gtest/gtest.h>
#include <malloc.h>

#include <chrono>
#include <cstdlib>
#include <new>
#include <string>
#include <thread>
#include <vector>

#include "address_limit.h"
#include "cairn/stream.h"
#include "store_test_util.h"
#include "test_util.h"

namespace cairn {
namespace {

using namespace cairn::test;

// Before any thread exists: one arena for all, so no thread keeps memory
// of its own (a thread's arena grows within its reserved heap, which
// RLIMIT_AS does not bound).
const int kOneArena = mallopt(M_ARENA_MAX, 1);

// Takes every byte malloc can still hand out, under a limit of the current
// size plus `room`, until destroyed: every allocation fails meanwhile. With
// `reserve`, this thread keeps a few small blocks (7 of each size class up
// to 1 KiB: glibc's per-thread cache, which no other thread can use), so
// that it can still queue a job while the I/O thread gets nothing.
class Exhausted {
 public:
  explicit Exhausted(uint64_t room, bool reserve = false) : limit_(room) {
    void* kept = nullptr;
    if (reserve)
      for (size_t sz = 24; sz <= 1032; sz += 16)
        for (int i = 0; i < 7; i++) Push(&kept, std::malloc(sz));
    for (size_t sz : {size_t(16) << 20, size_t(1) << 20, size_t(64) << 10, size_t(4096)})
      while (Push(&taken_, std::malloc(sz))) {
      }
    for (size_t sz = 24; sz <= 1032; sz += 16)  // every small size class, this thread's cache too
      while (Push(&taken_, std::malloc(sz))) {
      }
    while (Push(&taken_, std::malloc(sizeof(void*)))) {
    }
    Free(kept);  // into this thread's cache
  }
  ~Exhausted() { Free(taken_); }
  bool ok() const { return limit_.ok(); }

 private:
  static bool Push(void** list, void* p) {
    if (!p) return false;
    *static_cast<void**>(p) = *list;
    *list = p;
    return true;
  }
  static void Free(void* list) {
    while (list) {
      void* next = *static_cast<void**>(list);
      std::free(list);
      list = next;
    }
  }
  AddressLimit limit_;
  void* taken_ = nullptr;
};

Options Staged() {
  Options o = SmallOptions();
  o.staging_bytes = 4u << 20;
  return o;
}

// Waits until this store's write requests pass `before` (the writes a
// commit queued are done), then `settle` for the jobs queued behind them.
void WaitForWrites(Store* s, uint64_t before, std::chrono::milliseconds settle) {
  auto t0 = std::chrono::steady_clock::now();
  while (s->stats().write_requests <= before) {
    ASSERT_LT(std::chrono::steady_clock::now() - t0, std::chrono::seconds(20)) << "the commit's writes never ran";
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  std::this_thread::sleep_for(settle);
}

// A staged store at revision 1 (holding a) whose asynchronous commit of
// revision 2 (b) is in flight with its writes done.
void StartCommitOfB(const TempDir& dir, const std::string& a, const std::string& b, std::unique_ptr<Store>* out,
                    AsyncCommit* h) {
  auto s = MustOpen(dir.sub("s"), Staged());
  ASSERT_TRUE(s);
  ASSERT_TRUE(s->Put("a", a).ok());
  ASSERT_TRUE(s->Commit().ok());
  ASSERT_TRUE(s->Put("b", b).ok());
  ASSERT_TRUE(s->Flush().ok());
  uint64_t before = s->stats().write_requests;
  ASSERT_TRUE(s->CommitAsync(h).ok());
  WaitForWrites(s.get(), before, std::chrono::milliseconds(100));
  *out = std::move(s);
}

TEST(ExhaustedMemory, AJobOfTheIoThreadOutOfMemoryFailsTheCommitNotTheProcess) {
  SKIP_UNDER_ASAN();
  ASSERT_EQ(kOneArena, 1);
  TempDir dir;
  Options o = Staged();
  o.sync = false;  // no fsync job: the manifest job follows the writes
  // Each job of this store's I/O thread starts 100 ms after it is taken:
  // the manifest job is queued, and this thread stops allocating, before
  // it runs (read when the queue is made, at the first staged put).
  setenv("CAIRN_TEST_IO_DELAY_US", "100000", 1);
  auto s = MustOpen(dir.sub("s"), o);
  ASSERT_TRUE(s);
  const std::string a = Pattern(1, 200000), b = Pattern(2, 200000);
  ASSERT_TRUE(s->Put("a", a).ok());
  unsetenv("CAIRN_TEST_IO_DELAY_US");
  uint64_t rev = 0;
  ASSERT_TRUE(s->Commit(&rev).ok());
  ASSERT_EQ(rev, 1u);
  ASSERT_TRUE(s->Put("b", b).ok());
  ASSERT_TRUE(s->Flush().ok());
  uint64_t before = s->stats().write_requests;
  AsyncCommit h;
  ASSERT_TRUE(s->CommitAsync(&h).ok());
  WaitForWrites(s.get(), before, std::chrono::milliseconds(400));  // and the barrier job behind them
  {
    Exhausted none(16u << 20, /*reserve=*/true);
    ASSERT_TRUE(none.ok());
    h.Test();  // queues rank 0's manifest job, which runs 100 ms later, with no memory
    std::this_thread::sleep_for(std::chrono::milliseconds(1500));
  }
  // The failure is the next commit's (nobody waited for this one) ...
  Status c = s->Commit(&rev);
  EXPECT_TRUE(c.IsIOError()) << c.ToString();
  EXPECT_NE(c.message().find("out of memory"), std::string::npos) << c.ToString();
  EXPECT_NE(c.message().find("was not appended"), std::string::npos) << c.ToString();
  EXPECT_EQ(s->revision(), 1u);
  // ... and Wait's.
  Status w = h.Wait();
  EXPECT_EQ(w.ToString(), c.ToString());
  EXPECT_FALSE(h.committed());
  // Revision 1 is intact; the puts since were discarded (the message says
  // so); the store commits again.
  std::string v;
  ASSERT_TRUE(s->Get("a", &v).ok());
  EXPECT_EQ(v, a);
  EXPECT_TRUE(s->Get("b", &v).IsNotFound());
  ASSERT_TRUE(s->Put("b", b).ok());
  Status again = s->Commit(&rev);
  ASSERT_TRUE(again.ok()) << again.ToString();
  EXPECT_EQ(rev, 2u);
  ASSERT_TRUE(s->Close().ok());
  Options ro = SmallOptions();
  ro.read_only = true;
  auto r = MustOpen(dir.sub("s"), ro);
  ASSERT_TRUE(r);
  std::vector<RevisionInfo> revs;
  ASSERT_TRUE(r->ListRevisions(&revs).ok());
  ASSERT_EQ(revs.size(), 2u);
  EXPECT_EQ(revs.back().revision, 2u);
  ASSERT_TRUE(r->Get("a", &v).ok());
  EXPECT_EQ(v, a);
  ASSERT_TRUE(r->Get("b", &v).ok());
  EXPECT_EQ(v, b);
}

TEST(ExhaustedMemory, PutMovesTheCommitInFlightOnWithoutThrowing) {
  SKIP_UNDER_ASAN();
  TempDir dir;
  const std::string a = Pattern(1, 200000), b = Pattern(2, 200000);
  std::unique_ptr<Store> s;
  AsyncCommit h;
  // Its writes done, the next step (a reduction over the ranks of the
  // data file) allocates its request: Put's Progress runs out of memory.
  StartCommitOfB(dir, a, b, &s, &h);
  ASSERT_FALSE(HasFatalFailure());
  Status put;
  bool threw = false;
  {
    Exhausted none(16u << 20);
    ASSERT_TRUE(none.ok());
    put = StatusUnlessThrown([&] { return s->Put("c", "c-value"); }, &threw);
  }
  EXPECT_FALSE(threw) << "std::bad_alloc out of Store::Put";
  EXPECT_TRUE(put.IsIOError()) << put.ToString();  // the put itself had no memory either
  // The commit goes on from where it was: revision 2, with b and not c.
  uint64_t rev = 0;
  Status w = h.Wait(&rev);
  ASSERT_TRUE(w.ok()) << w.ToString();
  EXPECT_EQ(rev, 2u);
  std::string v;
  ASSERT_TRUE(s->Get("b", &v).ok());
  EXPECT_EQ(v, b);
  EXPECT_TRUE(s->Get("c", &v).IsNotFound());
  ASSERT_TRUE(s->Put("c", "c-value").ok());
  ASSERT_TRUE(s->Commit(&rev).ok());
  EXPECT_EQ(rev, 3u);
}

TEST(ExhaustedMemory, DeleteArrayAndFlushesAndSeekReturnAStatus) {
  SKIP_UNDER_ASAN();
  TempDir dir;
  auto s = MustOpen(dir.sub("s"), Staged());
  ASSERT_TRUE(s);
  const std::string name = "temperature_field_2d";  // longer than a string's inline buffer
  std::vector<double> t(64, 1.5);
  ASSERT_TRUE(s->PutArray(name, DType::kFloat64, {8, 8}, {0, 0}, {8, 8}, t.data()).ok());
  ASSERT_TRUE(s->Commit().ok());
  const std::string key = "stream_with_a_long_key";
  std::unique_ptr<StreamWriter> open, closed;
  ASSERT_TRUE(s->OpenWriteStream(key, {}, &open).ok());
  const std::string bytes = Pattern(3, 100000);  // past the inline limit: in the store's writer
  ASSERT_TRUE(open->Write(bytes.data(), bytes.size()).ok());
  ASSERT_TRUE(s->OpenWriteStream("other_stream_long_key", {}, &closed).ok());
  ASSERT_TRUE(closed->Close().ok());
  ASSERT_TRUE(s->Put("pending", bytes).ok());
  Status del, flush, flush_closed, seek_closed, store_flush;
  bool threw = false;
  {
    Exhausted none(16u << 20);
    ASSERT_TRUE(none.ok());
    del = StatusUnlessThrown([&] { return s->DeleteArray(name); }, &threw);
    flush = StatusUnlessThrown([&] { return open->Flush(); }, &threw);
    flush_closed = StatusUnlessThrown([&] { return closed->Flush(); }, &threw);
    seek_closed = StatusUnlessThrown([&] { return closed->Seek(0); }, &threw);
    store_flush = StatusUnlessThrown([&] { return s->Flush(); }, &threw);  // queues an fsync job (Options::sync)
  }
  EXPECT_FALSE(threw) << "std::bad_alloc out of DeleteArray, StreamWriter::Flush, StreamWriter::Seek or Store::Flush";
  EXPECT_TRUE(del.IsIOError()) << del.ToString();
  EXPECT_NE(del.message().find("out of memory"), std::string::npos) << del.ToString();
  EXPECT_TRUE(flush.ok() || flush.IsIOError()) << flush.ToString();
  EXPECT_TRUE(flush_closed.IsIOError()) << flush_closed.ToString();
  EXPECT_TRUE(seek_closed.IsIOError()) << seek_closed.ToString();
  EXPECT_TRUE(store_flush.IsIOError()) << store_flush.ToString();
  // Nothing changed: the array is still there, the stream goes on.
  ArrayInfo info;
  ASSERT_TRUE(s->GetArrayInfo(name, &info).ok());
  ASSERT_TRUE(open->Write(bytes.data(), bytes.size()).ok());
  ASSERT_TRUE(open->Close().ok());
  ASSERT_TRUE(s->Commit().ok());
  ASSERT_TRUE(s->GetArrayInfo(name, &info).ok());
  std::string v;
  ASSERT_TRUE(s->Get(key, &v).ok());
  EXPECT_EQ(v, bytes + bytes);
  ASSERT_TRUE(s->Get("pending", &v).ok());
  EXPECT_EQ(v, bytes);
  // And with memory, they work.
  ASSERT_TRUE(s->DeleteArray(name).ok());
  ASSERT_TRUE(s->Commit().ok());
  EXPECT_TRUE(s->GetArrayInfo(name, &info).IsNotFound());
}


// Runs each call, noting (without allocating) the ones an exception left.
struct Calls {
  int threw = 0;
  const char* names[32] = {};
  template <typename F>
  Status operator()(const char* name, F&& f) {
    try {
      return f();
    } catch (const std::exception&) {
      if (threw < 32) names[threw] = name;
      threw++;
      return Status();
    }
  }
  std::string which() const {
    std::string w;
    for (int i = 0; i < threw && i < 32; i++) w += std::string(" ") + names[i];
    return w;
  }
};

// `s` is an IOError of a process out of memory.
void ExpectOom(const Status& s, const char* call) {
  EXPECT_TRUE(s.IsIOError()) << call << ": " << s.ToString();
  EXPECT_NE(s.message().find("out of memory"), std::string::npos) << call << ": " << s.ToString();
}

// A whole index table loaded when it does not fit (a real limit, room for
// everything but the table): the store's first read of a namespace, and
// the open. Before, std::bad_alloc left each call (Rep::ReadTable).
TEST(ExhaustedMemory, IndexTablesThatDoNotFitAreAnErrorNotAnException) {
  SKIP_UNDER_ASAN();
  TempDir dir;
  constexpr size_t kTag = 64u << 20;
  const std::string path = dir.sub("s");
  {
    auto w = MustOpen(path);
    ASSERT_TRUE(w);
    TagList big{{"t", TagValue::Bytes(std::string(kTag, 'x'))}};
    ASSERT_TRUE(w->Put("own", "o", big).ok());
    ASSERT_TRUE(w->PutShared("shared", Pattern(4, 100000), big).ok());
    ASSERT_TRUE(w->Commit().ok());
    ASSERT_TRUE(w->Close().ok());
  }
  Options ro = SmallOptions();
  ro.read_only = true;
  auto r = MustOpen(path, ro);  // reads its own table; the shared one on demand
  ASSERT_TRUE(r);
  ReadOptions sh;
  sh.rank = ReadOptions::kShared;
  Calls call;
  Status open_w, open_r, get, range, size, tags, list, query, multi, stream, shared;
  std::unique_ptr<Store> w2, r2;
  std::unique_ptr<StreamReader> reader;
  std::string v;
  char buf[8];
  {
    AddressLimit limit(kTag / 2);
    ASSERT_TRUE(limit.ok());
    open_w = call("Open", [&] { return Store::Open(SmallOptions(), path, &w2); });
    open_r = call("Open read-only", [&] { return Store::Open(ro, path, &r2); });
    get = call("Get", [&] { return r->Get("shared", &v, sh); });
    range = call("GetRange", [&] { return r->GetRange("shared", 0, buf, 8, sh); });
    size = call("GetSize", [&] {
      uint64_t n;
      return r->GetSize("shared", &n, sh);
    });
    tags = call("GetTags", [&] {
      TagList t;
      return r->GetTags("shared", &t, sh);
    });
    list = call("List", [&] {
      std::vector<ObjectInfo> objects;
      return r->List(&objects, sh);
    });
    query = call("Query", [&] {
      std::vector<std::string> keys;
      return r->Query({}, &keys, sh);
    });
    multi = call("MultiGet", [&] {
      std::vector<std::string> values;
      std::vector<Status> statuses;
      return r->MultiGet({"shared"}, &values, &statuses, sh);
    });
    stream = call("OpenReadStream", [&] { return r->OpenReadStream("shared", &reader, sh); });
    shared = call("GetShared", [&] { return r->GetShared("shared", &v); });
  }
  EXPECT_EQ(call.threw, 0) << "an exception out of:" << call.which();
  ExpectOom(open_w, "Open");
  ExpectOom(open_r, "Open read-only");
  EXPECT_FALSE(w2);
  EXPECT_FALSE(r2);
  ExpectOom(get, "Get");
  ExpectOom(range, "GetRange");
  ExpectOom(size, "GetSize");
  ExpectOom(tags, "GetTags");
  ExpectOom(list, "List");
  ExpectOom(query, "Query");
  ExpectOom(multi, "MultiGet");
  ExpectOom(stream, "OpenReadStream");
  ExpectOom(shared, "GetShared");
  // With the memory back, the same calls work.
  ASSERT_TRUE(r->Get("shared", &v, sh).ok());
  EXPECT_EQ(v, Pattern(4, 100000));
  ASSERT_TRUE(r->GetShared("shared", &v).ok());
  ASSERT_TRUE(r->OpenReadStream("shared", &reader, sh).ok());
  ASSERT_TRUE(Store::Open(SmallOptions(), path, &w2).ok());
  ASSERT_TRUE(w2->Get("own", &v).ok());
  EXPECT_EQ(v, "o");
}

// Calls made with no memory at all: each returns a status and changes
// nothing; then, with memory, the store commits. Before, std::bad_alloc
// left each of them.
TEST(ExhaustedMemory, RevisionsArraysStreamsAndCommitReturnAStatus) {
  SKIP_UNDER_ASAN();
  TempDir dir;
  auto s = MustOpen(dir.sub("s"));
  ASSERT_TRUE(s);
  const std::string name = "temperature_field_2d";  // longer than a string's inline buffer
  std::vector<double> t(64, 1.5);
  ASSERT_TRUE(s->PutArray(name, DType::kFloat64, {8, 8}, {0, 0}, {8, 8}, t.data()).ok());
  const std::string bytes = Pattern(5, 100000);  // chunked: a stream read fills its chunk cache
  ASSERT_TRUE(s->Put("stream_key_of_some_length", bytes).ok());
  ASSERT_TRUE(s->Commit().ok());
  ASSERT_TRUE(s->Put("pending_key_of_some_length", "p").ok());
  ASSERT_TRUE(s->Commit().ok());
  ASSERT_TRUE(s->Put("pending_after", bytes).ok());
  std::unique_ptr<StreamReader> reader;
  ASSERT_TRUE(s->OpenReadStream("stream_key_of_some_length", &reader).ok());
  Calls call;
  Status pin, unpin, drop, revs, arrays, info, qarrays, get_array, read, commit, async, query_all;
  std::vector<double> out(64);
  const std::vector<uint64_t> origin{0, 0}, box{8, 8};  // (made before: the test allocates nothing below)
  ASSERT_TRUE(s->Pin(1).ok());
  {
    Exhausted none(16u << 20);
    ASSERT_TRUE(none.ok());
    pin = call("Pin", [&] { return s->Pin(2); });
    unpin = call("Unpin", [&] { return s->Unpin(1); });
    drop = call("Drop", [&] { return s->Drop(2); });
    revs = call("ListRevisions", [&] {
      std::vector<RevisionInfo> r;
      return s->ListRevisions(&r);
    });
    arrays = call("ListArrays", [&] {
      std::vector<ArrayInfo> a;
      return s->ListArrays(&a);
    });
    info = call("GetArrayInfo", [&] {
      ArrayInfo i;
      return s->GetArrayInfo(name, &i, true);
    });
    qarrays = call("QueryArrays", [&] {
      std::vector<std::string> names;
      return s->QueryArrays({}, &names);
    });
    get_array = call("GetArray", [&] { return s->GetArray(name, origin, box, out.data()); });
    read = call("StreamReader::Read", [&] {
      size_t got = 0;
      return reader->Read(out.data(), 64, &got);
    });
    query_all = call("QueryAll", [&] {
      std::vector<QueryHit> hits;
      return s->QueryAll({}, &hits);
    });
    commit = call("Commit", [&] { return s->Commit(); });
    async = call("CommitAsync", [&] {
      AsyncCommit h;
      return s->CommitAsync(&h);
    });
  }
  EXPECT_EQ(call.threw, 0) << "an exception out of:" << call.which();
  ExpectOom(pin, "Pin");
  ExpectOom(unpin, "Unpin");
  ExpectOom(drop, "Drop");
  ExpectOom(revs, "ListRevisions");
  ExpectOom(arrays, "ListArrays");
  ExpectOom(info, "GetArrayInfo");
  ExpectOom(qarrays, "QueryArrays");
  ExpectOom(get_array, "GetArray");
  ExpectOom(read, "StreamReader::Read");
  ExpectOom(query_all, "QueryAll");
  ExpectOom(commit, "Commit");
  ExpectOom(async, "CommitAsync");
  // Nothing changed: two revisions, the first pinned, the put still
  // pending; and the store goes on.
  std::vector<RevisionInfo> revisions;
  ASSERT_TRUE(s->ListRevisions(&revisions).ok());
  ASSERT_EQ(revisions.size(), 2u);
  EXPECT_TRUE(revisions[0].pinned);
  EXPECT_FALSE(revisions[1].pinned);
  EXPECT_EQ(s->revision(), 2u);
  size_t got = 0;
  std::string first(100, '\0');
  ASSERT_TRUE(reader->Read(first.data(), first.size(), &got).ok());
  EXPECT_EQ(first, bytes.substr(0, 100));
  uint64_t rev = 0;
  Status c = s->Commit(&rev);
  ASSERT_TRUE(c.ok()) << c.ToString();
  EXPECT_EQ(rev, 3u);
  std::string v;
  ASSERT_TRUE(s->Get("pending_after", &v).ok());
  EXPECT_EQ(v, bytes);
  ASSERT_TRUE(s->Unpin(1).ok());
  ASSERT_TRUE(s->Drop(1).ok());
}

// Close with a commit in flight that cannot move on (its next step
// allocates a request): an IOError, and the store is closed (before,
// std::bad_alloc left Close, the store still open). The revision in flight
// is not made; the last committed one is intact.
TEST(ExhaustedMemory, CloseWithACommitInFlightReturnsAStatus) {
  SKIP_UNDER_ASAN();
  TempDir dir;
  const std::string a = Pattern(1, 200000), b = Pattern(2, 200000);
  std::unique_ptr<Store> s;
  AsyncCommit h;
  StartCommitOfB(dir, a, b, &s, &h);
  ASSERT_FALSE(HasFatalFailure());
  Status closed;
  bool threw = false;
  {
    Exhausted none(16u << 20);
    ASSERT_TRUE(none.ok());
    closed = StatusUnlessThrown([&] { return s->Close(); }, &threw);
  }
  EXPECT_FALSE(threw) << "std::bad_alloc out of Store::Close";
  if (threw) return;  // (the store is still open: its destructor would close it)
  EXPECT_TRUE(closed.IsIOError()) << closed.ToString();
  std::string v;
  EXPECT_FALSE(s->Get("a", &v).ok());  // closed
  s.reset();
  Options ro = SmallOptions();
  ro.read_only = true;
  auto r = MustOpen(dir.sub("s"), ro);
  ASSERT_TRUE(r);
  EXPECT_EQ(r->revision(), 1u);
  ASSERT_TRUE(r->Get("a", &v).ok());
  EXPECT_EQ(v, a);
}

}  // namespace
}  // namespace cairn
