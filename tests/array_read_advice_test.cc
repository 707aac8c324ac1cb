// Array reads tell the kernel (WILLNEED) about short streams ahead of the
// requests and leave long ones to its own readahead (io/coalescing_reader.h,
// ShortStreams; measured in bench/arrays/HISTORY.md): which streams are
// advised, that a stream the next call continues keeps its kind, and that
// the bytes read are the file's either way.
#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "io/coalescing_reader.h"
#include "io/file.h"
#include "test_util.h"

namespace cairn {
namespace {

constexpr uint64_t kKiB = 1024;

struct Fixture {
  test::TempDir dir;
  std::string bytes;
  IoStats stats;
  std::unique_ptr<File> file;
  std::string out;
  // A file of `size` patterned bytes, read into `out` of the same size.
  explicit Fixture(size_t size = 1 << 20) : bytes(test::Pattern(5, size)), out(size, '\0') {
    std::unique_ptr<File> w;
    EXPECT_TRUE(File::Open(dir.sub("f"), File::kCreate, &stats, &w).ok());
    EXPECT_TRUE(w->PWrite(0, bytes.data(), bytes.size()).ok());
    EXPECT_TRUE(File::Open(dir.sub("f"), File::kReadOnly, &stats, &file).ok());
  }
  // Reads [from, to) as ranges of 4 KiB (touching: one stream), each into
  // the same place of `out`.
  void Add(std::vector<ReadRange>* r, uint64_t from, uint64_t to) {
    for (uint64_t at = from; at < to; at += 4 * kKiB)
      r->push_back(ReadRange{0, at, 4 * kKiB, out.data() + at, 0});
  }
  // One array-window read, as ReadGrainWindow makes it.
  void Read(std::vector<ReadRange> r, ShortStreams* st) {
    ReadPlanLimits l;
    l.gap_limit = 0;
    l.max_amplification = 1.0;
    l.readahead = false;
    l.streams = st;
    File* f = file.get();
    FileResolver files = [f](uint32_t, File** out) {
      *out = f;
      return Status::OK();
    };
    ASSERT_TRUE(ReadCoalesced(std::move(r), l, files).ok());
  }
  bool Same(uint64_t from, uint64_t to) const {
    return out.compare(from, to - from, bytes, from, to - from) == 0;
  }
};

TEST(ArrayReadAdvice, ShortStreamsAreAdvisedLongOnesAndTheirContinuationsAreNot) {
  Fixture fx;
  ShortStreams st;
  st.stream_bytes = 64 * kKiB;
  st.ahead_bytes = 1 << 20;
  // Two short streams (32 and 16 KiB) and a long one (256 KiB), last, as
  // a window's ranges come: sorted by file offset.
  std::vector<ReadRange> r;
  fx.Add(&r, 0, 32 * kKiB);
  fx.Add(&r, 128 * kKiB, 144 * kKiB);
  fx.Add(&r, 256 * kKiB, 512 * kKiB);
  fx.Read(r, &st);
  EXPECT_EQ(st.advised, 2u);
  EXPECT_TRUE(fx.Same(0, 32 * kKiB));
  EXPECT_TRUE(fx.Same(128 * kKiB, 144 * kKiB));
  EXPECT_TRUE(fx.Same(256 * kKiB, 512 * kKiB));
  // The next window: 32 KiB continuing the long stream (short by itself,
  // but the kernel's readahead already follows it), and a new short one.
  r.clear();
  fx.Add(&r, 512 * kKiB, 544 * kKiB);
  fx.Add(&r, 900 * kKiB, 904 * kKiB);
  fx.Read(r, &st);
  EXPECT_EQ(st.advised, 3u);
  EXPECT_TRUE(fx.Same(512 * kKiB, 544 * kKiB));
  EXPECT_TRUE(fx.Same(900 * kKiB, 904 * kKiB));
}

TEST(ArrayReadAdvice, RunsWithSmallHolesAreOneStreamAndLongOnesAreNotAdvised) {
  // A reader's quarter of a block: 16 KiB runs with 16 KiB holes, 1 MiB
  // from first to last. Holes up to join_hole and the run before them
  // make one stream, whose length counts them: longer than stream_bytes,
  // so not advised.
  auto quarter = [](Fixture* fx, std::vector<ReadRange>* r, uint64_t hole) {
    for (uint64_t at = 0; at + 16 * kKiB <= fx->bytes.size(); at += 16 * kKiB + hole) fx->Add(r, at, at + 16 * kKiB);
  };
  {
    Fixture fx;
    std::vector<ReadRange> r;
    quarter(&fx, &r, 16 * kKiB);
    ShortStreams st;
    st.stream_bytes = 256 * kKiB;
    st.join_hole = 16 * kKiB;
    fx.Read(r, &st);
    EXPECT_EQ(st.advised, 0u) << "runs 16 KiB apart spanning 1 MiB are one long stream";
    for (const ReadRange& x : r) EXPECT_TRUE(fx.Same(x.offset, x.offset + x.length));
  }
  {  // Without joining, every run is a short stream of its own: advised.
    Fixture fx;
    std::vector<ReadRange> r;
    quarter(&fx, &r, 16 * kKiB);
    ShortStreams st;
    st.stream_bytes = 256 * kKiB;
    st.join_hole = 0;
    fx.Read(r, &st);
    EXPECT_EQ(st.advised, 32u);
  }
  {  // Holes wider than join_hole still part streams: each run advised.
    Fixture fx;
    std::vector<ReadRange> r;
    quarter(&fx, &r, 12 * kKiB);
    ShortStreams st;
    st.stream_bytes = 256 * kKiB;
    st.join_hole = 8 * kKiB;
    fx.Read(r, &st);
    EXPECT_EQ(st.advised, 37u);
  }
  {  // ... and so do holes longer than the run before them (a slab's runs
     // far apart), whatever join_hole allows: each run advised.
    Fixture fx;
    std::vector<ReadRange> r;
    quarter(&fx, &r, 48 * kKiB);
    ShortStreams st;
    st.stream_bytes = 256 * kKiB;
    st.join_hole = 1 << 20;
    fx.Read(r, &st);
    EXPECT_EQ(st.advised, 16u);
  }
  {  // Joined runs short in all (3 runs, 80 KiB with their holes): advised,
     // the runs only (one WILLNEED each, never the holes between them).
    Fixture fx;
    std::vector<ReadRange> r;
    for (uint64_t at : {uint64_t(0), 32 * kKiB, 64 * kKiB}) fx.Add(&r, at, at + 16 * kKiB);
    ShortStreams st;
    st.stream_bytes = 256 * kKiB;
    st.join_hole = 16 * kKiB;
    fx.Read(r, &st);
    EXPECT_EQ(st.advised, 3u);
  }
}

TEST(ArrayReadAdvice, ByDefaultAWholeExtentIsLeftToTheKernelAndA4MiBStreamIsAdvised) {
  // The defaults: a stream of 16 MiB (a block's run of one default
  // extent) is not advised; one of 4 MiB (a slab of a block) is.
  const uint64_t kMiB = 1 << 20;
  Fixture fx(21 * kMiB);
  std::vector<ReadRange> r;
  ShortStreams extent;
  fx.Add(&r, kMiB, 17 * kMiB);
  fx.Read(r, &extent);
  EXPECT_EQ(extent.advised, 0u) << "a 16 MiB stream is the kernel's to read ahead";
  EXPECT_TRUE(fx.Same(kMiB, 17 * kMiB));
  r.clear();
  ShortStreams slab;
  fx.Add(&r, 17 * kMiB, 21 * kMiB);
  fx.Read(r, &slab);
  EXPECT_GT(slab.advised, 0u) << "a 4 MiB stream is advised";
  EXPECT_TRUE(fx.Same(17 * kMiB, 21 * kMiB));
}

TEST(ArrayReadAdvice, AShortStreamContinuedByTheNextWindowStaysAdvised) {
  Fixture fx;
  ShortStreams st;
  st.stream_bytes = 64 * kKiB;
  st.ahead_bytes = 1 << 20;
  std::vector<ReadRange> r;
  fx.Add(&r, 0, 32 * kKiB);
  fx.Read(r, &st);
  EXPECT_EQ(st.advised, 1u);
  r.clear();
  fx.Add(&r, 32 * kKiB, 48 * kKiB);
  fx.Read(r, &st);
  EXPECT_EQ(st.advised, 2u);
  EXPECT_TRUE(fx.Same(0, 48 * kKiB));
}

TEST(ArrayReadAdvice, AStreamReachingTheEndOfAWindowThatMoreFollowIsLong) {
  // A box read in windows closed by a bound (cut grains: 1 MiB each): its
  // stream goes on window after window, and advising each piece just
  // before it is read replaced the kernel's readahead (1 -> 8 full reads
  // 0.77x of main, bench/arrays/HISTORY.md).
  Fixture fx;
  ShortStreams st;
  st.stream_bytes = 64 * kKiB;
  st.ahead_bytes = 1 << 20;
  std::vector<ReadRange> r;
  fx.Add(&r, 0, 16 * kKiB);          // short, ends inside the window
  fx.Add(&r, 128 * kKiB, 160 * kKiB);  // short, but runs to the window's end
  st.more_follow = true;
  fx.Read(r, &st);
  EXPECT_EQ(st.advised, 1u);
  // The last window continues it: still not advised.
  r.clear();
  fx.Add(&r, 160 * kKiB, 176 * kKiB);
  st.more_follow = false;
  fx.Read(r, &st);
  EXPECT_EQ(st.advised, 1u);
  EXPECT_TRUE(fx.Same(0, 16 * kKiB));
  EXPECT_TRUE(fx.Same(128 * kKiB, 176 * kKiB));
  // In the box's last window, a short stream reaching its end ends there.
  ShortStreams last;
  last.stream_bytes = 64 * kKiB;
  r.clear();
  fx.Add(&r, 512 * kKiB, 544 * kKiB);
  fx.Read(r, &last);
  EXPECT_EQ(last.advised, 1u);
}

}  // namespace
}  // namespace cairn
