// Streams that outlive their store (issue 10, item 7): after the store is
// closed, or destroyed, every operation of a StreamWriter, StreamReader,
// cairn::ostream or cairn::istream returns a clear error ("store ... is
// closed"), destroying the stream is harmless, and a write stream's data
// is not committed. Built with -DCAIRN_SANITIZE=ON, a use of freed memory
// fails the test. (The C API's streams: capi_test.c.)
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <iterator>

#include "cairn/iostream.h"
#include "cairn/stream.h"
#include "store_test_util.h"
#include "test_util.h"

namespace cairn {
namespace {

void ExpectClosed(const Status& s, const std::string& key) {
  EXPECT_EQ(s.code(), Status::Code::kInvalidArgument) << s.ToString();
  EXPECT_NE(s.message().find("closed"), std::string::npos) << s.ToString();
  EXPECT_NE(s.message().find("'" + key + "'"), std::string::npos) << s.ToString();
}

// How the store goes away: Close() (the handle lives on) or destruction.
enum class End { kClose, kDestroy };

void EndStore(std::unique_ptr<Store>* s, End how) {
  if (how == End::kClose) {
    ASSERT_TRUE((*s)->Close().ok());
  } else {
    s->reset();
  }
}

class StreamLifetimeTest : public ::testing::TestWithParam<End> {
 protected:
  test::TempDir dir_;
  std::string Path() const { return dir_.sub("store"); }
};

TEST_P(StreamLifetimeTest, WriterAfterStoreEndsFailsAndIsNotCommitted) {
  auto s = test::MustOpen(Path());
  std::unique_ptr<StreamWriter> big, small;
  ASSERT_TRUE(s->OpenWriteStream("big", {}, &big).ok());
  ASSERT_TRUE(s->OpenWriteStream("small", {}, &small).ok());
  std::string data = test::Pattern(1, 300000);  // spilled to the data file, many chunks
  ASSERT_TRUE(big->Write(data).ok());
  ASSERT_TRUE(small->Write("abc", 3).ok());  // inline, in memory only
  EndStore(&s, GetParam());
  for (auto* w : {big.get(), small.get()}) {
    std::string key = w == big.get() ? "big" : "small";
    ExpectClosed(w->Write(data), key);
    ExpectClosed(w->Flush(), key);
    ExpectClosed(w->Seek(0), key);
    Status c = w->Close();
    ExpectClosed(c, key);
    EXPECT_NE(c.message().find("not committed"), std::string::npos) << c.ToString();
    EXPECT_EQ(w->Close().code(), c.code());  // again: the same outcome
  }
  EXPECT_EQ(big->Size(), data.size());  // local state stays readable
  big.reset();
  small.reset();
  s.reset();
  // Nothing of the streams was committed.
  s = test::MustOpen(Path());
  uint64_t size;
  EXPECT_EQ(s->GetSize("big", &size).code(), Status::Code::kNotFound);
  EXPECT_EQ(s->GetSize("small", &size).code(), Status::Code::kNotFound);
}

TEST_P(StreamLifetimeTest, WriterDestroyedAfterStoreWithoutAnyCall) {
  auto s = test::MustOpen(Path());
  std::unique_ptr<StreamWriter> w;
  ASSERT_TRUE(s->OpenWriteStream("k", {}, &w).ok());
  ASSERT_TRUE(w->Write(test::Pattern(2, 200000)).ok());
  EndStore(&s, GetParam());
  w.reset();  // its destructor closes it: must not touch the store
}

TEST_P(StreamLifetimeTest, ReaderAfterStoreEndsFails) {
  auto s = test::MustOpen(Path());
  std::string data = test::Pattern(3, 200000);
  ASSERT_TRUE(s->Put("big", data).ok());
  ASSERT_TRUE(s->Put("small", "xyz").ok());
  ASSERT_TRUE(s->Commit().ok());
  std::unique_ptr<StreamReader> big, small;
  ASSERT_TRUE(s->OpenReadStream("big", &big).ok());
  ASSERT_TRUE(s->OpenReadStream("small", &small).ok());
  std::string buf(1000, '\0');
  size_t got = 0;
  ASSERT_TRUE(big->Read(buf.data(), buf.size(), &got).ok());
  EndStore(&s, GetParam());
  for (auto* r : {big.get(), small.get()}) {
    std::string key = r == big.get() ? "big" : "small";
    got = 7;
    ExpectClosed(r->Read(buf.data(), 2, &got), key);
    EXPECT_EQ(got, 0u);
    ExpectClosed(r->ReadAt(150000, buf.data(), 2), key);
    ExpectClosed(r->Seek(1), key);
  }
  EXPECT_EQ(big->Size(), data.size());
  big.reset();
  small.reset();
}

TEST_P(StreamLifetimeTest, IostreamsAfterStoreEnds) {
  auto s = test::MustOpen(Path());
  std::string data = test::Pattern(4, 300000);
  ASSERT_TRUE(s->Put("in", data).ok());
  ASSERT_TRUE(s->Commit().ok());
  auto out = std::make_unique<cairn::ostream>(*s, "out");
  auto in = std::make_unique<cairn::istream>(*s, "in");
  ASSERT_TRUE(out->good());
  ASSERT_TRUE(in->good());
  out->write(data.data(), std::streamsize(data.size()));
  ASSERT_TRUE(out->good());
  std::string head(100, '\0');
  in->read(head.data(), 100);
  ASSERT_TRUE(in->good());
  EndStore(&s, GetParam());
  *out << "more";
  Status c = out->close();
  ExpectClosed(c, "out");
  EXPECT_TRUE(out->bad());
  ExpectClosed(out->status(), "out");
  // What the 64 KiB buffer already holds may still be read; past it, the
  // reader must fail, not return bytes.
  std::string rest(data.size() - 100, '\0');
  in->read(rest.data(), std::streamsize(rest.size()));
  EXPECT_FALSE(in->good());
  // An error, not an end of stream: iostream.h promises badbit.
  EXPECT_TRUE(in->bad());
  EXPECT_LT(size_t(in->gcount()), rest.size());
  ExpectClosed(in->status(), "in");
  out.reset();
  in.reset();
}

// A writer still open when the store closes holds no space and no key:
// reopening the store (a new handle) opens the key again and commits.
TEST_P(StreamLifetimeTest, StoreReopenedAfterAnOrphanedWriter) {
  auto s = test::MustOpen(Path());
  std::unique_ptr<StreamWriter> w;
  ASSERT_TRUE(s->OpenWriteStream("k", {}, &w).ok());
  ASSERT_TRUE(w->Write(test::Pattern(5, 100000)).ok());
  EndStore(&s, GetParam());
  s = test::MustOpen(Path());
  std::unique_ptr<StreamWriter> w2;
  ASSERT_TRUE(s->OpenWriteStream("k", {}, &w2).ok());
  std::string data = test::Pattern(6, 150000);
  ASSERT_TRUE(w2->Write(data).ok());
  ASSERT_TRUE(w2->Close().ok());
  ExpectClosed(w->Write("x", 1), "k");  // the old one still refers to the closed handle
  ASSERT_TRUE(s->Commit().ok());
  std::string v;
  ASSERT_TRUE(s->Get("k", &v).ok());
  EXPECT_EQ(v, data);
  w.reset();
}

// A chunk that fails its checksum, read through cairn::istream, is an error
// (badbit, as std::ifstream's read error), not an end of stream: the usual
// loops (read until it fails, getline, istreambuf_iterator) must not take
// the part before the damage for the whole object.
TEST(IstreamDamage, ACorruptChunkSetsBadbitNotEndOfStream) {
  test::TempDir dir;
  std::string path = dir.sub("store");
  Options o = test::SmallOptions();
  o.chunk_size = 4096;
  std::string data = test::Pattern(7, 300000);
  {
    auto s = test::MustOpen(path, o);
    ASSERT_TRUE(s->Put("v", data).ok());
    ASSERT_TRUE(s->Commit().ok());
    ASSERT_TRUE(s->Close().ok());
  }
  // Flip one byte of the value at offset 200000, in whichever data file holds it.
  std::string needle = data.substr(200000, 64);
  int flipped = 0;
  for (const auto& e : std::filesystem::directory_iterator(path)) {
    if (e.path().filename().string().rfind("data.", 0) != 0) continue;
    std::fstream f(e.path(), std::ios::in | std::ios::out | std::ios::binary);
    std::string bytes((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
    size_t at = bytes.find(needle);
    if (at == std::string::npos) continue;
    f.clear();
    f.seekp(std::streamoff(at));
    char c = char(bytes[at] ^ 1);
    f.write(&c, 1);
    flipped++;
  }
  ASSERT_EQ(flipped, 1);
  o.read_only = true;
  auto s = test::MustOpen(path, o);
  {
    cairn::istream in(*s, "v");
    std::string buf(4096, '\0');
    size_t total = 0;
    while (in.read(buf.data(), std::streamsize(buf.size())) || in.gcount() > 0) total += size_t(in.gcount());
    EXPECT_LT(total, data.size());
    EXPECT_TRUE(in.bad()) << "a read loop ended at " << total << " of " << data.size()
                          << " bytes as if the object ended there";
    EXPECT_EQ(in.status().code(), Status::Code::kCorruption) << in.status().ToString();
  }
  {
    cairn::istream in(*s, "v");
    std::string line;
    while (std::getline(in, line)) {
    }
    EXPECT_TRUE(in.bad());
    EXPECT_EQ(in.status().code(), Status::Code::kCorruption) << in.status().ToString();
  }
  {
    // No sentry here: the error can only be thrown (std::ios_base::failure,
    // as std::filebuf's read error), never turned into a short object.
    cairn::istream in(*s, "v");
    std::string got;
    bool threw = false;
    try {
      got.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
    } catch (const std::ios_base::failure& e) {
      threw = true;
      EXPECT_NE(std::string(e.what()).find("checksum"), std::string::npos) << e.what();
    }
    EXPECT_TRUE(threw) << "istreambuf_iterator returned " << got.size() << " of " << data.size() << " bytes";
  }
  {
    // The bytes before the damage still read back exactly.
    cairn::istream in(*s, "v");
    std::string head(100000, '\0');
    ASSERT_TRUE(in.read(head.data(), std::streamsize(head.size())));
    EXPECT_EQ(head, data.substr(0, head.size()));
  }
}

INSTANTIATE_TEST_SUITE_P(CloseOrDestroy, StreamLifetimeTest, ::testing::Values(End::kClose, End::kDestroy),
                         [](const ::testing::TestParamInfo<End>& i) {
                           return i.param == End::kClose ? std::string("Closed") : std::string("Destroyed");
                         });

}  // namespace
}  // namespace cairn
