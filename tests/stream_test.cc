// Streams under mpiexec (run with 1, 2 and 4 ranks): random writes, seeks,
// overwrites and flushes checked against an in-memory copy; random reads
// before and after commit and reopen, of one's own and another rank's
// stream; the iostream adaptors; errors.
#include <gtest/gtest.h>
#include <mpi.h>

#include <filesystem>
#include <random>

#include "cairn/iostream.h"
#include "cairn/stream.h"
#include "mpi_main.h"
#include "test_util.h"

namespace cairn {
namespace {

using test::Rank;
using test::Size;


class StreamTest : public test::MpiDirTest {
 protected:
  static Options Small() {
    Options o;
    o.extent_size = 256 * 1024;
    o.chunk_size = 16 * 1024;  // many chunks: reads and overwrites cross them
    o.write_buffer_size = 64 * 1024;
    o.inline_value_limit = 64;
    return o;
  }
  std::unique_ptr<Store> Open(Options o = Small()) {
    std::unique_ptr<Store> s;
    Status st = Store::Open(o, Path(), MPI_COMM_WORLD, &s);
    EXPECT_TRUE(st.ok()) << st.ToString();
    return s;
  }
};

// Writes a stream with a seeded random mix of appends, overwrites, seeks
// past the end and flushes, mirroring every write in `ref`.
void WriteRandomStream(Store* s, const std::string& key, uint64_t seed, std::string* ref) {
  std::mt19937_64 g(seed);
  std::unique_ptr<StreamWriter> w;
  ASSERT_TRUE(s->OpenWriteStream(key, {{"kind", TagValue::String("stream")}}, &w).ok());
  ref->clear();
  uint64_t pos = 0;
  for (int op = 0; op < 300; op++) {
    int what = int(g() % 10);
    if (what == 0 && !ref->empty()) {  // seek back somewhere
      pos = g() % ref->size();
      ASSERT_TRUE(w->Seek(pos).ok());
    } else if (what == 1) {  // seek past the end: a gap of zeros
      pos = ref->size() + g() % 5000;
      ASSERT_TRUE(w->Seek(pos).ok());
    } else if (what == 2) {
      ASSERT_TRUE(w->Flush().ok());
      continue;
    }
    // Sizes from 1 byte to several chunks.
    size_t n = size_t(1) << (g() % 17);
    n += g() % n;
    std::string data = test::Pattern(g(), n);
    ASSERT_TRUE(w->Write(data).ok());
    if (ref->size() < pos + n) ref->resize(pos + n, '\0');
    ref->replace(pos, n, data);
    pos += n;
    ASSERT_EQ(w->Tell(), pos);
    ASSERT_EQ(w->Size(), ref->size());
  }
  ASSERT_TRUE(w->Close().ok());
}

void CheckRandomReads(Store* s, const std::string& key, const std::string& ref, uint64_t seed,
                      ReadOptions ro = {}) {
  std::unique_ptr<StreamReader> r;
  Status st = s->OpenReadStream(key, &r, ro);
  ASSERT_TRUE(st.ok()) << st.ToString();
  ASSERT_EQ(r->Size(), ref.size());
  std::mt19937_64 g(seed);
  for (int i = 0; i < 200; i++) {
    uint64_t off = g() % (ref.size() + 1);
    size_t n = size_t(g() % 70000);
    std::string buf(n, '\0');
    ASSERT_TRUE(r->Seek(off).ok());
    size_t got = 0;
    ASSERT_TRUE(r->Read(buf.data(), n, &got).ok());
    ASSERT_EQ(got, std::min<uint64_t>(n, ref.size() - off));
    ASSERT_EQ(r->Tell(), off + got);
    ASSERT_EQ(buf.substr(0, got), ref.substr(off, got)) << "read at " << off << " of " << n;
  }
  // Sequential 4 KiB reads to the end reproduce the whole stream.
  ASSERT_TRUE(r->Seek(0).ok());
  std::string all, buf(4096, '\0');
  size_t got = 0;
  do {
    ASSERT_TRUE(r->Read(buf.data(), buf.size(), &got).ok());
    all.append(buf, 0, got);
  } while (got > 0);
  EXPECT_EQ(all, ref);
}

TEST_F(StreamTest, RandomWritesSeeksAndReadsMatchAReference) {
  int me = Rank(), n = Size();
  {
    auto s = Open();
    std::string ref;
    WriteRandomStream(s.get(), "log", 1000 + uint64_t(me), &ref);
    CheckRandomReads(s.get(), "log", ref, 7);  // pending, not committed
    ASSERT_TRUE(s->Commit().ok());
    CheckRandomReads(s.get(), "log", ref, 8);
  }
  // After reopening, the references are rebuilt by replaying the same
  // seeded writes into a scratch store of one process (the writes are
  // deterministic in their seed), for my stream and another rank's.
  auto s = Open();
  std::string mine;
  {
    auto scratch_dir = dir_ + "/scratch" + std::to_string(me);
    std::unique_ptr<Store> scratch;
    ASSERT_TRUE(Store::Open(Small(), scratch_dir, &scratch).ok());
    WriteRandomStream(scratch.get(), "log", 1000 + uint64_t(me), &mine);
  }
  CheckRandomReads(s.get(), "log", mine, 9);
  // Another rank's stream, by naming the rank.
  int other = (me + 1) % n;
  std::string theirs;
  {
    auto scratch_dir = dir_ + "/scratch-other" + std::to_string(me);
    std::unique_ptr<Store> scratch;
    ASSERT_TRUE(Store::Open(Small(), scratch_dir, &scratch).ok());
    WriteRandomStream(scratch.get(), "log", 1000 + uint64_t(other), &theirs);
  }
  ReadOptions ro;
  ro.rank = other;
  CheckRandomReads(s.get(), "log", theirs, 10, ro);
  // A stream is an object like any other: listed with its size and tags.
  std::vector<ObjectInfo> objs;
  ASSERT_TRUE(s->List(&objs).ok());
  ASSERT_EQ(objs.size(), 1u);
  EXPECT_EQ(objs[0].key, "log");
  EXPECT_EQ(objs[0].size, mine.size());
  ASSERT_EQ(objs[0].tags.size(), 1u);
  EXPECT_EQ(objs[0].tags[0].value.bytes(), "stream");
  std::string v;
  ASSERT_TRUE(s->Get("log", &v).ok());
  EXPECT_EQ(v, mine);
}

TEST_F(StreamTest, StreamOpenAtCommitJoinsTheNextRevision) {
  auto s = Open();
  std::unique_ptr<StreamWriter> w;
  ASSERT_TRUE(s->OpenWriteStream("late", {}, &w).ok());
  std::string part = test::Pattern(Rank(), 50000);
  ASSERT_TRUE(w->Write(part).ok());
  ASSERT_TRUE(s->Put("other", "x").ok());
  ASSERT_TRUE(s->Commit().ok());
  uint64_t size;
  EXPECT_EQ(s->GetSize("late", &size).code(), Status::Code::kNotFound);
  ASSERT_TRUE(w->Write(part).ok());
  ASSERT_TRUE(w->Close().ok());
  ASSERT_TRUE(s->Commit().ok());
  std::string v;
  ASSERT_TRUE(s->Get("late", &v).ok());
  EXPECT_EQ(v, part + part);
}

TEST_F(StreamTest, SmallStreamIsInlineAndEmptyStreamWorks) {
  auto s = Open();
  std::unique_ptr<StreamWriter> w;
  ASSERT_TRUE(s->OpenWriteStream("tiny", {}, &w).ok());
  ASSERT_TRUE(w->Write("abc", 3).ok());
  ASSERT_TRUE(w->Close().ok());
  ASSERT_TRUE(s->OpenWriteStream("empty", {}, &w).ok());
  ASSERT_TRUE(w->Close().ok());
  ASSERT_TRUE(s->Commit().ok());
  std::vector<ObjectInfo> objs;
  ASSERT_TRUE(s->List(&objs).ok());
  ASSERT_EQ(objs.size(), 2u);
  EXPECT_EQ(objs[0].key, "empty");
  EXPECT_EQ(objs[0].size, 0u);
  EXPECT_TRUE(objs[1].inlined);
  std::unique_ptr<StreamReader> r;
  ASSERT_TRUE(s->OpenReadStream("empty", &r).ok());
  char c;
  size_t got = 9;
  ASSERT_TRUE(r->Read(&c, 1, &got).ok());
  EXPECT_EQ(got, 0u);
}

TEST_F(StreamTest, ErrorsAreClear) {
  auto s = Open();
  std::unique_ptr<StreamWriter> w;
  EXPECT_EQ(s->OpenWriteStream("", {}, &w).code(), Status::Code::kInvalidArgument);
  ASSERT_TRUE(s->OpenWriteStream("k", {}, &w).ok());
  ASSERT_TRUE(w->Write("12345", 5).ok());
  ASSERT_TRUE(w->Close().ok());
  EXPECT_EQ(w->Write("x", 1).code(), Status::Code::kInvalidArgument);
  std::unique_ptr<StreamReader> r;
  EXPECT_EQ(s->OpenReadStream("missing", &r).code(), Status::Code::kNotFound);
  ASSERT_TRUE(s->OpenReadStream("k", &r).ok());
  EXPECT_EQ(r->Seek(6).code(), Status::Code::kInvalidArgument);
  char buf[8];
  EXPECT_EQ(r->ReadAt(3, buf, 3).code(), Status::Code::kInvalidArgument);
  ASSERT_TRUE(r->ReadAt(3, buf, 2).ok());
  EXPECT_EQ(std::string(buf, 2), "45");
}

TEST_F(StreamTest, IostreamAdaptorsRoundTrip) {
  int me = Rank();
  {
    auto s = Open();
    {
      cairn::ostream out(*s, "state.txt", {{"format", TagValue::String("text")}});
      ASSERT_TRUE(out.good());
      out << "rank " << me << "\n";
      for (int i = 0; i < 10000; i++) out << i * 3 << ' ';
      out << std::endl;
      std::streampos mark = out.tellp();
      out << "XXXX";
      out.seekp(mark);
      out << "done";  // overwrites XXXX
      std::string big = test::Pattern(me, 200000);
      out.write(big.data(), std::streamsize(big.size()));
      ASSERT_TRUE(out.close().ok());
    }
    ASSERT_TRUE(s->Commit().ok());
  }
  auto s = Open();
  cairn::istream in(*s, "state.txt");
  ASSERT_TRUE(in.good());
  std::string word;
  int r = -1;
  in >> word >> r;
  EXPECT_EQ(word, "rank");
  EXPECT_EQ(r, me);
  for (int i = 0; i < 10000; i++) {
    int v = -1;
    in >> v;
    ASSERT_EQ(v, i * 3);
  }
  in.get();  // ' '
  in.get();  // '\n'
  std::string done(4, '\0');
  in.read(done.data(), 4);
  EXPECT_EQ(done, "done");
  std::string big(200000, '\0');
  in.read(big.data(), std::streamsize(big.size()));
  EXPECT_EQ(big, test::Pattern(me, 200000));
  EXPECT_TRUE(in.good());
  in.get();
  EXPECT_TRUE(in.eof());
  // seekg back to the start and read again.
  in.clear();
  in.seekg(0);
  in >> word;
  EXPECT_EQ(word, "rank");
  cairn::istream missing(*s, "nope");
  EXPECT_TRUE(missing.bad());
  EXPECT_EQ(missing.status().code(), Status::Code::kNotFound);
}

}  // namespace
}  // namespace cairn

CAIRN_MPI_TEST_MAIN
