// File::PReadOnce (src/io/file.h): bytes read once and then kept in memory
// (a large index table at open) arrive exactly as PRead gives them, counted
// as one request, and the pages of the range they came from are no longer
// in the page cache afterwards, so the cache does not hold a second copy.
// A store's open reads a table that is not compact this way. Where the file
// system keeps clean pages even when asked to drop them (tmpfs), the cache
// checks are skipped. A commit's large streamed table is dropped from the
// cache as it is written, for the same reason.
#include <gtest/gtest.h>
#include <fcntl.h>
#include <unistd.h>

#include <fstream>
#include <memory>
#include <string>

#include "cairn/store.h"
#include "io/file.h"
#include "page_cache.h"
#include "store/commit_tables.h"
#include "test_util.h"

namespace cairn {
namespace {

using test::ResidentPages;

// Writes `bytes` to `path` and syncs them (clean pages can be dropped).
std::unique_ptr<File> WriteSynced(const std::string& path, const std::string& bytes, IoStats* stats) {
  std::unique_ptr<File> f;
  EXPECT_TRUE(File::Open(path, File::kCreate, stats, &f).ok());
  EXPECT_TRUE(f->PWrite(0, bytes.data(), bytes.size()).ok());
  EXPECT_TRUE(f->Sync().ok());
  return f;
}

// Whether this file system drops clean cached pages of `path` when asked.
bool DropsCleanPages(const File& f, const std::string& path, uint64_t n) {
  std::string buf(n, '\0');
  if (!f.PRead(0, buf.data(), n).ok() || ResidentPages(path, 0, n) == 0) return false;
  f.DropCache();
  return ResidentPages(path, 0, n) == 0;
}

TEST(PReadOnce, ReadsTheBytesAsOneRequestAcrossPieces) {
  test::TempDir dir;
  IoStats stats;
  const std::string bytes = test::Pattern(11, (20 << 20) + 54321);
  std::unique_ptr<File> f = WriteSynced(dir.sub("f"), bytes, &stats);
  // An unaligned range over three 8 MiB pieces, and one inside a piece.
  for (auto [off, n] : {std::pair<uint64_t, uint64_t>{777, (20 << 20) + 12345}, {4097, 1000}}) {
    std::string got(n, '\0');
    uint64_t reqs = stats.read_requests, bytes_before = stats.read_bytes;
    Status s = f->PReadOnce(off, got.data(), n);
    ASSERT_TRUE(s.ok()) << s.ToString();
    EXPECT_EQ(got, bytes.substr(off, n));
    EXPECT_EQ(stats.read_requests - reqs, 1u);
    EXPECT_EQ(stats.read_bytes - bytes_before, n);
  }
  // Past the end: Corruption, as PRead.
  std::string got(100, '\0');
  EXPECT_TRUE(f->PReadOnce(bytes.size() - 50, got.data(), 100).IsCorruption());
}

TEST(PReadOnce, LeavesNoCachedPagesOfTheRange) {
  test::TempDir dir;
  IoStats stats;
  const std::string path = dir.sub("f");
  const std::string bytes = test::Pattern(12, 24 << 20);
  std::unique_ptr<File> f = WriteSynced(path, bytes, &stats);
  if (!DropsCleanPages(*f, path, bytes.size())) GTEST_SKIP() << "this file system keeps clean pages cached";
  // Cached before (a plain read puts every page there), gone after.
  std::string got(bytes.size(), '\0');
  ASSERT_TRUE(f->PRead(0, got.data(), got.size()).ok());
  ASSERT_EQ(ResidentPages(path, 0, bytes.size()), bytes.size() / size_t(::sysconf(_SC_PAGESIZE)));
  got.assign(got.size(), '\0');
  ASSERT_TRUE(f->PReadOnce(0, got.data(), got.size()).ok());
  EXPECT_EQ(got, bytes);
  EXPECT_EQ(ResidentPages(path, 0, bytes.size()), 0u);
}

// A store's open reads a table of 8 MiB or more (read on its own, not
// compact) with PReadOnce: after a reopen, no page of it is cached, though
// the reads before the open put them all there. A smaller table stays
// cached (a reader that opens often finds it there).
void StoreOpenCaches(int objects, bool expect_cached) {
  test::TempDir dir;
  const std::string path = dir.sub("store");
  Options o;
  o.compact_index_limit = 0;  // every table is read on its own (Rep::ReadTable)
  {
    std::unique_ptr<Store> s;
    ASSERT_TRUE(Store::Open(o, path, &s).ok());
    TagList tags;
    for (int t = 0; t < 20; t++) tags.push_back({"tag" + std::to_string(t), TagValue::Int(t)});
    for (int i = 0; i < objects; i++) ASSERT_TRUE(s->Put("obj" + std::to_string(1000000 + i), "", tags).ok());
    ASSERT_TRUE(s->Commit().ok());
    ASSERT_TRUE(s->Close().ok());
  }
  const std::string data = path + "/data.00000";
  const uint64_t size = test::FileSize(data);
  const size_t pages = size / size_t(::sysconf(_SC_PAGESIZE));
  IoStats stats;
  std::unique_ptr<File> f;
  ASSERT_TRUE(File::Open(data, File::kReadOnly, &stats, &f).ok());
  if (!DropsCleanPages(*f, data, size)) GTEST_SKIP() << "this file system keeps clean pages cached";
  std::string all(size, '\0');
  ASSERT_TRUE(f->PRead(0, all.data(), size).ok());  // every page cached again
  ASSERT_GE(ResidentPages(data, 0, size), pages);
  // The tables lie after the header, past a hole (the first extent).
  int fd = ::open(data.c_str(), O_RDONLY);
  ASSERT_GE(fd, 0);
  const off_t tables = ::lseek(fd, 4096, SEEK_DATA);
  ::close(fd);
  ASSERT_GT(tables, 0);
  const uint64_t table_bytes = size - uint64_t(tables);
  const size_t table_pages = table_bytes / size_t(::sysconf(_SC_PAGESIZE));
  if (expect_cached) ASSERT_LT(table_bytes, 8u << 20);
  else ASSERT_GE(table_bytes, 8u << 20);
  for (bool read_only : {false, true}) {
    Options ro = o;
    ro.read_only = read_only;
    std::unique_ptr<Store> s;
    ASSERT_TRUE(Store::Open(ro, path, &s).ok());
    // Dropped: the pages at the table's two ends may stay, the rest is gone.
    if (expect_cached) EXPECT_GE(ResidentPages(data, uint64_t(tables), table_bytes), table_pages) << read_only;
    else EXPECT_LE(ResidentPages(data, uint64_t(tables), table_bytes), 2u) << "read_only " << read_only;
    TagList got;
    ASSERT_TRUE(s->GetTags("obj1000007", &got).ok());
    EXPECT_EQ(got.size(), 20u);
    ASSERT_TRUE(s->Close().ok());
    ASSERT_TRUE(f->PRead(0, all.data(), size).ok());  // cached again for the next open
  }
}

TEST(PReadOnce, StoreOpenLeavesALargeTableUncached) { StoreOpenCaches(150000, false); }
TEST(PReadOnce, StoreOpenLeavesASmallTableCached) { StoreOpenCaches(20000, true); }

// The same on the write side: a commit streams a large table (every object
// put since the last revision) and drops its pages from the page cache as
// it goes, so the next pieces reuse them (commit_tables.cc,
// WriteStreamedTable): the clean pages up to kStreamDropLag (16 MiB)
// before its end as a hint, and those more than kStreamWaitLag (64 MiB)
// behind after writing them back and waiting. Without the drop the whole
// table stays cached after the commit's fsync (clean pages); with the hint
// alone the pages still dirty or under writeback stay too, all of them on
// a slow device (CI once kept 21,380 of 21,379). With the wait at most
// about kStreamWaitLag + 2 x kStreamDropLag of a 200 MB table stay,
// whatever the device's speed.
TEST(StreamedTable, CommitLeavesMostOfALargeTableUncached) {
  test::TempDir dir;
  const std::string path = dir.sub("store");
  const int objects = 200000;
  const std::string text(100, 'x');
  std::unique_ptr<Store> s;
  ASSERT_TRUE(Store::Open(Options(), path, &s).ok());
  auto tags_of = [&](int i) {
    TagList tags;
    for (int t = 0; t < 10; t++) tags.push_back({"tag" + std::to_string(t), TagValue::String(std::to_string(i) + text)});
    return tags;
  };
  for (int i = 0; i < objects; i++) ASSERT_TRUE(s->Put("obj" + std::to_string(1000000 + i), "", tags_of(i)).ok());
  IoStats before = s->stats();
  ASSERT_TRUE(s->Commit().ok());
  ASSERT_EQ(s->stats().index_tables_streamed - before.index_tables_streamed, 1u);
  const std::string data = path + "/data.00000";
  const uint64_t size = test::FileSize(data);
  // The table lies after the header, past a hole (the first extent).
  int fd = ::open(data.c_str(), O_RDONLY);
  ASSERT_GE(fd, 0);
  const off_t table = ::lseek(fd, 4096, SEEK_DATA);
  ::close(fd);
  ASSERT_GT(table, 0);
  const uint64_t table_bytes = size - uint64_t(table);
  ASSERT_GE(table_bytes, 2 * (kStreamWaitLag + 2 * kStreamDropLag));
  const size_t table_pages = table_bytes / size_t(::sysconf(_SC_PAGESIZE));
  const size_t resident = ResidentPages(data, uint64_t(table), table_bytes);
  {
    IoStats stats;
    std::unique_ptr<File> f;
    ASSERT_TRUE(File::Open(data, File::kReadOnly, &stats, &f).ok());
    if (!DropsCleanPages(*f, data, size)) GTEST_SKIP() << "this file system keeps clean pages cached";
  }
  const size_t page = size_t(::sysconf(_SC_PAGESIZE));
  EXPECT_LE(resident, (kStreamWaitLag + 2 * kStreamDropLag) / page + 2) << "of " << table_pages;
  // The base viewing the arena still answers, and so does a reopened store.
  TagList got;
  ASSERT_TRUE(s->GetTags("obj1000123", &got).ok());
  EXPECT_EQ(got, tags_of(123));
  ASSERT_TRUE(s->Close().ok());
  Options ro;
  ro.read_only = true;
  ASSERT_TRUE(Store::Open(ro, path, &s).ok());
  for (int i : {0, 4567, objects - 1}) {
    ASSERT_TRUE(s->GetTags("obj" + std::to_string(1000000 + i), &got).ok());
    EXPECT_EQ(got, tags_of(i)) << i;
  }
  ASSERT_TRUE(s->Close().ok());
}

}  // namespace

// A writeback error the wait behind the streamed table reports is the
// commit's error: the kernel reports it once per descriptor, so the
// commit's fsync might no longer see it (test hook
// CAIRN_TEST_FAIL_WRITEBACK=1, which fails only that wait), and so is
// every later commit of the handle (the File keeps the error for its
// Sync). The revision before stays the store's newest. With staging the wait runs on the
// queue's thread, behind the table's writes, and the queue reports it.
void WritebackErrorFailsTheCommit(const Options& options) {
  test::TempDir dir;
  const std::string path = dir.sub("store");
  std::unique_ptr<Store> s;
  ASSERT_TRUE(Store::Open(options, path, &s).ok());
  ASSERT_TRUE(s->Put("first", "revision 1").ok());
  ASSERT_TRUE(s->Commit().ok());
  // Every key of revision 1 is put again, so the table keeps no entry of
  // the base and is streamed.
  ASSERT_TRUE(s->Put("first", "revision 2").ok());
  const std::string text(100, 'y');
  for (int i = 0; i < 120000; i++) {  // a table past kStreamWaitLag + kStreamDropLag
    TagList tags;
    for (int t = 0; t < 10; t++) tags.push_back({"tag" + std::to_string(t), TagValue::String(text)});
    ASSERT_TRUE(s->Put("obj" + std::to_string(1000000 + i), "", tags).ok());
  }
  setenv("CAIRN_TEST_FAIL_WRITEBACK", "1", 1);
  IoStats before = s->stats();
  Status st = s->Commit();
  unsetenv("CAIRN_TEST_FAIL_WRITEBACK");
  EXPECT_EQ(s->stats().index_tables_streamed - before.index_tables_streamed, 1u);
  EXPECT_FALSE(st.ok());
  EXPECT_NE(st.ToString().find("CAIRN_TEST_FAIL_WRITEBACK"), std::string::npos) << st.ToString();
  // The kernel reports a writeback error to a descriptor once: a commit on
  // this handle must not succeed after it over pages that may be lost (it
  // did without staging: its fsync no longer saw the error).
  Status again = s->Commit();
  EXPECT_FALSE(again.ok()) << "a second commit after a failed writeback";
  s->Close();
  Options ro;
  ro.read_only = true;
  ASSERT_TRUE(Store::Open(ro, path, &s).ok());
  EXPECT_EQ(s->revision(), 1u);
  std::string v;
  ASSERT_TRUE(s->Get("first", &v).ok());
  EXPECT_EQ(v, "revision 1");
  EXPECT_TRUE(s->Get("obj1000000", &v).IsNotFound());
  ASSERT_TRUE(s->Close().ok());
}

TEST(StreamedTable, AWritebackErrorFailsTheCommit) { WritebackErrorFailsTheCommit(Options()); }
TEST(StreamedTable, AWritebackErrorFailsTheCommitWithStaging) {
  Options o;
  o.staging_bytes = 64u << 20;
  WritebackErrorFailsTheCommit(o);
}

// The same for a large table built in memory because it keeps entries of
// its base (one object of a 130 MB namespace edited): it is written in
// pieces with the same two drop steps (commit_tables.cc, WriteBuiltTable),
// so a writeback error of the wait fails the commit and every later one of
// the handle, and the revision before stays the newest, its tag intact.
void WritebackErrorFailsABuiltTable(const Options& options) {
  test::TempDir dir;
  const std::string path = dir.sub("store");
  std::unique_ptr<Store> s;
  ASSERT_TRUE(Store::Open(options, path, &s).ok());
  const std::string text(100, 'y');
  TagList tags;
  for (int t = 0; t < 10; t++) tags.push_back({"tag" + std::to_string(t), TagValue::String(text)});
  for (int i = 0; i < 120000; i++) ASSERT_TRUE(s->Put("obj" + std::to_string(1000000 + i), "", tags).ok());
  ASSERT_TRUE(s->Commit().ok());  // revision 1: streamed
  ASSERT_TRUE(s->SetTag("obj1000007", {"tag3", TagValue::Int(3)}).ok());
  setenv("CAIRN_TEST_FAIL_WRITEBACK", "1", 1);
  IoStats before = s->stats();
  Status st = s->Commit();
  unsetenv("CAIRN_TEST_FAIL_WRITEBACK");
  EXPECT_EQ(s->stats().index_tables_streamed, before.index_tables_streamed) << "built, not streamed";
  EXPECT_FALSE(st.ok());
  EXPECT_NE(st.ToString().find("CAIRN_TEST_FAIL_WRITEBACK"), std::string::npos) << st.ToString();
  EXPECT_FALSE(s->Commit().ok()) << "a second commit after a failed writeback";
  s->Close();
  Options ro;
  ro.read_only = true;
  ASSERT_TRUE(Store::Open(ro, path, &s).ok());
  EXPECT_EQ(s->revision(), 1u);
  TagList got;
  ASSERT_TRUE(s->GetTags("obj1000007", &got).ok());
  EXPECT_EQ(got, tags);
  ASSERT_TRUE(s->Close().ok());
}

TEST(BuiltTable, AWritebackErrorFailsTheCommit) { WritebackErrorFailsABuiltTable(Options()); }
TEST(BuiltTable, AWritebackErrorFailsTheCommitWithStaging) {
  Options o;
  o.staging_bytes = 64u << 20;
  WritebackErrorFailsABuiltTable(o);
}

}  // namespace cairn
