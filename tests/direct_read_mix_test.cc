// Direct reads (CAIRN_DIRECT_READ_BYTES) in one process against the
// features that move bytes under them: retention reusing the extents of an
// expired revision (keep_revisions 1), staged puts, asynchronous commits
// (read while one is in flight) and a read stream held across commits
// that expire its revision. Whatever the page cache holds or not, every
// read returns exactly the bytes of the revision it reads (never those of
// the older revision the device still has at that place, never a
// Corruption); bytes only on the device are read directly, bytes in the
// cache (dirty or clean) are not. The store lives under $TMPDIR (a real
// disk here); the tests skip where clean pages cannot be dropped (tmpfs).
// mpi_direct_read_mix_test does the same across ranks.
#include <gtest/gtest.h>
#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <string>
#include <tuple>
#include <vector>

#include "cairn/store.h"
#include "cairn/stream.h"
#include "direct_mix.h"

namespace cairn {
namespace {

using test::kMixBytes;
using test::kMixExtent;
using test::MixOffsets;
using test::MixWant;
using test::ReadMix;

// The 64 bytes at `offset` of `file`, read past the page cache's copy
// being kept (the pages read are dropped again).
std::string BytesAt(const std::string& file, uint64_t offset) {
  std::string b(64, '\0');
  int fd = ::open(file.c_str(), O_RDONLY);
  EXPECT_GE(fd, 0) << file;
  EXPECT_EQ(::pread(fd, b.data(), b.size(), off_t(offset)), ssize_t(b.size()));
  ::posix_fadvise(fd, off_t(offset), 4096, POSIX_FADV_DONTNEED);
  ::close(fd);
  return b;
}

// CAIRN_TEST_IO_DELAY_US (io_queue.h) while it lives, if `on`: the
// background I/O thread of a store opened meanwhile sleeps 10 ms before
// each job.
struct IoDelay {
  explicit IoDelay(bool on) {
    if (on) setenv("CAIRN_TEST_IO_DELAY_US", "10000", 1);
  }
  ~IoDelay() { unsetenv("CAIRN_TEST_IO_DELAY_US"); }
};

void CommitMix(Store* s, bool async) {
  if (!async) {
    Status st = s->Commit();
    ASSERT_TRUE(st.ok()) << st.ToString();
    return;
  }
  AsyncCommit h;
  ASSERT_TRUE(s->CommitAsync(&h).ok());
  Status st = h.Wait();
  ASSERT_TRUE(st.ok()) << st.ToString();
}

// sync, staging, async commits.
class DirectReadMix : public ::testing::TestWithParam<std::tuple<bool, bool, bool>> {
 protected:
  bool sync() const { return std::get<0>(GetParam()); }
  bool staging() const { return std::get<1>(GetParam()); }
  bool async() const { return std::get<2>(GetParam()); }
};

// The first revision whose puts go into the space of revision 1: with
// synchronous commits the third (the second's commit expires 1 and frees
// its extents); with asynchronous ones the fourth (a commit in flight that
// expires its parent holds the parent's extents until the next commit,
// retention.h HoldExpiringParent).
int FirstReuse(bool async) { return async ? 4 : 3; }

// A (revision 1) is committed and dropped from the cache; the revisions
// after it are put in new space, and their commits expire A; C, the first
// revision put into A's extents, goes where the device still holds A's
// bytes. C read before its commit (dirty, or staged and written by the
// I/O thread), while its asynchronous commit is in flight, and after it:
// C's bytes, through the cache; dropped from the cache: C's bytes,
// directly; and so after a restart.
TEST_P(DirectReadMix, ValuesPutIntoTheExtentsOfAnEvictedRevision) {
  test::TempDir d;
  SKIP_UNLESS_COLD(d.path());
  test::DirectEnv env;
  // Staged writes lag behind the puts (the I/O thread sleeps before each),
  // so that C's last value is still staged when it is read back.
  IoDelay delay(staging());
  const std::string path = d.sub("store"), file = path + "/data.00000";
  auto s = test::MustOpen(path, test::MixOptions(sync(), staging()));
  ASSERT_TRUE(s);
  const int reuse = FirstReuse(async());
  const auto a = MixWant(0, 1), c = MixWant(0, reuse);

  test::PutMix(s.get(), 0, 0, 1);
  CommitMix(s.get(), async());
  const std::vector<uint64_t> a_at = MixOffsets(file, a);
  test::DropTree(path);
  test::ExpectDirect(ReadMix(s.get(), a), kMixBytes, "A, only on the device");

  for (int rev = 2; rev < reuse; rev++) {
    test::PutMix(s.get(), 0, 0, rev);
    CommitMix(s.get(), async());
  }
  std::vector<RevisionInfo> revs;
  ASSERT_TRUE(s->ListRevisions(&revs).ok());
  ASSERT_EQ(revs.size(), 1u);
  EXPECT_EQ(revs[0].revision, uint64_t(reuse - 1));
  test::DropTree(path);

  test::PutMix(s.get(), 0, 0, reuse);
  test::ExpectCached(ReadMix(s.get(), c), "C put, not committed");
  const std::string late = test::MixValue(0, 9, 0);
  if (async()) {
    AsyncCommit h;
    ASSERT_TRUE(s->CommitAsync(&h).ok());
    // In flight: the revision being made as this handle shows it, and a
    // put for the next one.
    test::ExpectCached(ReadMix(s.get(), c), "C in flight");
    ASSERT_TRUE(s->Put("late", late).ok());
    test::ExpectCached(ReadMix(s.get(), {{"late", late}}), "a put while C is in flight");
    Status st = h.Wait();
    ASSERT_TRUE(st.ok()) << st.ToString();
  } else {
    ASSERT_TRUE(s->Commit().ok());
  }
  EXPECT_EQ(MixOffsets(file, c), a_at) << "C was not put into A's extents";
  test::ExpectCached(ReadMix(s.get(), c), "C just committed");
  test::DropTree(path);
  test::ExpectDirect(ReadMix(s.get(), c), kMixBytes, "C, only on the device");
  if (async()) {
    ASSERT_TRUE(s->Commit().ok());  // "late" joins C
    ReadMix(s.get(), {{"late", late}});  // (cold or not: put before the last DropTree)
    test::DropTree(path);
    test::ExpectDirect(ReadMix(s.get(), c), kMixBytes, "C, only on the device, after late's commit");
  }
  uint64_t rev = s->revision();
  ASSERT_TRUE(s->Close().ok());
  s.reset();

  test::DropTree(path);
  Options ro = test::MixOptions(sync(), false);
  ro.read_only = true;
  auto r = test::MustOpen(path, ro);
  ASSERT_TRUE(r);
  EXPECT_EQ(r->revision(), rev);
  test::ExpectDirect(ReadMix(r.get(), c), kMixBytes, "C after a restart");
}

INSTANTIATE_TEST_SUITE_P(SyncStagingAsync, DirectReadMix,
                         ::testing::Combine(::testing::Bool(), ::testing::Bool(), ::testing::Bool()));

// A read stream opened on A's k0 holds its extent across the commits that
// expire A and reuse A's other extents: read directly after them, it
// returns A's bytes; once it is closed, the extent is reused.
TEST_P(DirectReadMix, AReadStreamKeepsItsExtentAcrossReusingCommits) {
  test::TempDir d;
  SKIP_UNLESS_COLD(d.path());
  test::DirectEnv env;
  const std::string path = d.sub("store"), file = path + "/data.00000";
  auto s = test::MustOpen(path, test::MixOptions(sync(), staging()));
  ASSERT_TRUE(s);
  const int reuse = FirstReuse(async());
  const auto a = MixWant(0, 1);
  const std::string& k0 = a.at("k0");

  test::PutMix(s.get(), 0, 0, 1);
  CommitMix(s.get(), async());
  const std::vector<uint64_t> a_at = MixOffsets(file, a);  // by key: k0 first
  std::unique_ptr<StreamReader> r;
  ASSERT_TRUE(s->OpenReadStream("k0", &r).ok());
  ASSERT_EQ(r->Size(), kMixExtent);
  test::PageArena whole(kMixExtent);
  uint64_t before = s->stats().direct_read_bytes;
  Status st = r->ReadAt(0, whole.data, kMixExtent);
  ASSERT_TRUE(st.ok()) << st.ToString();
  EXPECT_EQ(std::memcmp(whole.data, k0.data(), kMixExtent), 0);
  EXPECT_EQ(s->stats().direct_read_bytes - before, 0u) << "A's k0, just committed (in the cache), read directly";
  test::DropTree(path);

  for (int rev = 2; rev <= reuse + 1; rev++) {
    test::PutMix(s.get(), 0, 0, rev);
    CommitMix(s.get(), async());
    std::vector<uint64_t> at = MixOffsets(file, MixWant(0, rev));
    EXPECT_EQ(std::count(at.begin(), at.end(), a_at[0]), 0) << "revision " << rev << " took the stream's extent";
    if (rev == reuse) {  // A's other extents
      for (int i = 1; i < test::kMixKeys; i++)
        EXPECT_EQ(std::count(at.begin(), at.end(), a_at[size_t(i)]), 1) << "A's extent of k" << i << " not reused";
    }
  }
  EXPECT_EQ(BytesAt(file, a_at[0]), k0.substr(0, 64));
  test::DropTree(path);

  std::memset(whole.data, 0, kMixExtent);
  before = s->stats().direct_read_bytes;
  st = r->ReadAt(0, whole.data, kMixExtent);
  ASSERT_TRUE(st.ok()) << st.ToString();
  EXPECT_EQ(std::memcmp(whole.data, k0.data(), kMixExtent), 0) << "the stream did not read A's bytes";
  EXPECT_EQ(s->stats().direct_read_bytes - before, kMixExtent) << "A's k0, only on the device, not read directly";
  // In pieces that are not whole chunks (through a chunk-sized copy).
  std::string got(kMixExtent, '\0');
  size_t pos = 0, n = 0;
  while (pos < got.size()) {
    st = r->Read(got.data() + pos, std::min<size_t>(300000, got.size() - pos), &n);
    ASSERT_TRUE(st.ok()) << st.ToString();
    ASSERT_GT(n, 0u);
    pos += n;
  }
  EXPECT_TRUE(got == k0) << "the stream did not read A's bytes (in pieces)";

  r.reset();
  const int last = reuse + 3;
  for (int rev = reuse + 2; rev <= last; rev++) {
    test::PutMix(s.get(), 0, 0, rev);
    CommitMix(s.get(), async());
  }
  EXPECT_NE(BytesAt(file, a_at[0]), k0.substr(0, 64)) << "a closed stream still holds its extent";
  test::DropTree(path);
  test::ExpectDirect(ReadMix(s.get(), MixWant(0, last)), kMixBytes, "the last revision, only on the device");
}

}  // namespace
}  // namespace cairn
