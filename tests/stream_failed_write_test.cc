// A write stream whose Write failed (the file system refused the bytes:
// here RLIMIT_FSIZE, EFBIG) must not publish the bytes of that failed
// write as data: either Close reports the failure (the key keeps its
// previous object), or the object the next commit holds is exactly the
// bytes of the writes that succeeded. Found by an outside test pass
// (tests/breaker_repro/r1_stream_close_after_failed_write.cc).
#include <gtest/gtest.h>
#include <sys/resource.h>

#include <csignal>
#include <string>

#include "cairn/iostream.h"
#include "cairn/store.h"
#include "cairn/stream.h"
#include "store_test_util.h"

namespace cairn {
namespace {

class FileSizeLimit {  // lowers RLIMIT_FSIZE for its lifetime
 public:
  explicit FileSizeLimit(uint64_t bytes) {
    std::signal(SIGXFSZ, SIG_IGN);  // a write past the limit fails with EFBIG instead
    getrlimit(RLIMIT_FSIZE, &old_);
    rlimit lim = old_;
    lim.rlim_cur = rlim_t(bytes);
    setrlimit(RLIMIT_FSIZE, &lim);
  }
  ~FileSizeLimit() { Restore(); }
  void Restore() { setrlimit(RLIMIT_FSIZE, &old_); }

 private:
  rlimit old_;
};

TEST(StreamFailedWrite, TheFailedWritesBytesAreNotCommitted) {
  test::TempDir dir;
  Options o;
  o.extent_size = 1 << 20;
  o.chunk_size = 1 << 16;
  o.sync = false;
  std::unique_ptr<Store> st = test::MustOpen(dir.sub("s"), o);
  ASSERT_TRUE(st->Put("s", "previous object").ok());
  ASSERT_TRUE(st->Commit().ok());

  std::string written;  // the bytes of the writes that returned ok
  Status failed;
  {
    FileSizeLimit limit(test::FileSize(dir.sub("s/data.00000")) + (3 << 20) + 12345);
    std::unique_ptr<StreamWriter> w;
    ASSERT_TRUE(st->OpenWriteStream("s", {}, &w).ok());
    for (int i = 0; i < 8 && failed.ok(); ++i) {
      std::string piece = test::Pattern(uint64_t(i), 1 << 20);
      failed = w->Write(piece);
      if (failed.ok()) written += piece;
    }
    ASSERT_FALSE(failed.ok()) << "the file size limit did not make a Write fail";
    limit.Restore();  // space is back: the handle writes and commits again
    Status closed = w->Close();
    ASSERT_TRUE(st->Commit().ok());
    std::string v;
    ASSERT_TRUE(st->Get("s", &v).ok());
    if (closed.ok()) {
      EXPECT_EQ(v.size(), written.size())
          << "Close returned ok after '" << failed.ToString()
          << "', and the commit holds bytes of the failed write";
      EXPECT_EQ(v.compare(0, written.size(), written), 0) << "the successful writes' bytes differ";
    } else {
      EXPECT_TRUE(v == "previous object") << "Close failed (" << closed.ToString()
                                      << ") but the key changed";
    }
  }
}

// The same through cairn::ostream, whose close() does return the write's
// error: the commit after it must not publish the cut stream either.
TEST(StreamFailedWrite, AnOstreamWhoseCloseFailedIsNotCommitted) {
  test::TempDir dir;
  Options o;
  o.extent_size = 1 << 20;
  o.chunk_size = 1 << 16;
  o.sync = false;
  std::unique_ptr<Store> st = test::MustOpen(dir.sub("s"), o);
  ASSERT_TRUE(st->Put("state.bin", "previous object").ok());
  ASSERT_TRUE(st->Commit().ok());
  Status closed;
  {
    FileSizeLimit limit(test::FileSize(dir.sub("s/data.00000")) + (2 << 20) + 777);
    cairn::ostream out(*st, "state.bin");
    std::string piece = test::Pattern(7, 1 << 20);
    for (int i = 0; i < 6; ++i) out.write(piece.data(), std::streamsize(piece.size()));
    EXPECT_FALSE(out.good());
    limit.Restore();
    closed = out.close();
  }
  ASSERT_FALSE(closed.ok()) << "the file size limit did not make a write fail";
  ASSERT_TRUE(st->Commit().ok());
  std::string v;
  ASSERT_TRUE(st->Get("state.bin", &v).ok());
  EXPECT_TRUE(v == "previous object") << "close() returned '" << closed.ToString()
                                  << "', yet the commit holds a " << v.size()
                                  << "-byte cut stream";
}

}  // namespace
}  // namespace cairn
