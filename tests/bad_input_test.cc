// Bad input in a single process: keys at and over their limits, bad tags,
// large values, bad store paths (a file, a path under a file, a directory
// the process may not write: as root, checked in a child that gives up
// root), stores from a newer format version, calls on
// a closed or read-only handle. Every case gets a clear error, and a
// refused call changes nothing.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstring>
#include <fstream>
#include <functional>

#include "cairn/store.h"
#include "format/checksum.h"
#include "format/coding.h"
#include "format/index_format.h"
#include "format/manifest_format.h"
#include "store/inspect.h"
#include "store_test_util.h"
#include "test_util.h"

namespace cairn {
namespace {

using test::Pattern;
using test::TempDir;

using test::MustOpen;
Options Small() { return test::SmallOptions(); }

std::string ReadFile(const std::string& p) {
  std::ifstream in(p, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}
void WriteFile(const std::string& p, const std::string& b) { std::ofstream(p, std::ios::binary) << b; }

TEST(BadInput, KeysAtAndOverTheirLimits) {
  TempDir dir;
  auto s = MustOpen(dir.sub("s"));
  std::string longest(kMaxKeyLength, 'k'), too_long(kMaxKeyLength + 1, 'k');
  ASSERT_TRUE(s->Put(longest, "v").ok());
  ASSERT_TRUE(s->Put("a", "keep").ok());
  std::string v;
  char buf[4];
  uint64_t size;
  TagList tags;
  for (const std::string& k : {std::string(), too_long}) {
    EXPECT_TRUE(s->Put(k, "x").IsInvalidArgument());
    EXPECT_TRUE(s->Get(k, &v).IsInvalidArgument());
    EXPECT_TRUE(s->GetRange(k, 0, buf, 1).IsInvalidArgument());
    EXPECT_TRUE(s->GetSize(k, &size).IsInvalidArgument());
    EXPECT_TRUE(s->GetTags(k, &tags).IsInvalidArgument());
    EXPECT_TRUE(s->Delete(k).IsInvalidArgument());
    EXPECT_TRUE(s->SetTags(k, {}).IsInvalidArgument());
  }
  ASSERT_TRUE(s->Commit().ok());
  s.reset();
  s = MustOpen(dir.sub("s"));
  ASSERT_TRUE(s->Get(longest, &v).ok());
  EXPECT_EQ(v, "v");
  std::vector<ObjectInfo> objs;
  ASSERT_TRUE(s->List(&objs).ok());
  EXPECT_EQ(objs.size(), 2u);  // nothing of the refused calls was stored
}

TEST(BadInput, BadTagsAreRefusedAndLeaveTheObjectAlone) {
  TempDir dir;
  auto s = MustOpen(dir.sub("s"));
  ASSERT_TRUE(s->Put("k", "before", {{"t", TagValue::Int(1)}}).ok());
  const TagList bad[] = {
      {{"", TagValue::Int(1)}},                                     // empty name
      {{std::string(kMaxTagNameLength + 1, 'n'), TagValue::Int(1)}},  // name too long
      {{"a", TagValue::Int(1)}, {"a", TagValue::Int(2)}},           // name twice
      {{"w", TagValue::Int(300, TagType::kInt8)}},                  // does not fit its width
      {{"w", TagValue::UInt(70000, TagType::kUInt16)}},
  };
  for (const TagList& tags : bad) {
    EXPECT_TRUE(s->Put("k", "after", tags).IsInvalidArgument());
    EXPECT_TRUE(s->SetTags("k", tags).IsInvalidArgument());
  }
  std::string v;
  TagList tags;
  ASSERT_TRUE(s->Get("k", &v).ok());
  EXPECT_EQ(v, "before");
  ASSERT_TRUE(s->GetTags("k", &tags).ok());
  EXPECT_EQ(tags, (TagList{{"t", TagValue::Int(1)}}));
}

TEST(BadInput, ValuesAcrossEveryLimitRoundTrip) {
  // No value size limit: values at the inline limit, just over it, over the
  // chunk size, the write buffer and the extent size all read back.
  TempDir dir;
  auto s = MustOpen(dir.sub("s"));
  const size_t sizes[] = {0, 100, 101, 16 * 1024, 16 * 1024 + 1, 32 * 1024 + 7, 64 * 1024 + 1, 5 << 20};
  for (size_t n : sizes) ASSERT_TRUE(s->Put("v" + std::to_string(n), Pattern(n, n)).ok());
  ASSERT_TRUE(s->Commit().ok());
  s.reset();
  s = MustOpen(dir.sub("s"));
  for (size_t n : sizes) {
    std::string v;
    ASSERT_TRUE(s->Get("v" + std::to_string(n), &v).ok());
    EXPECT_EQ(v, Pattern(n, n)) << n;
  }
  char c;
  EXPECT_TRUE(s->GetRange("v101", 101, &c, 1).IsInvalidArgument());
  EXPECT_TRUE(s->GetRange("v101", ~0ull, &c, 2).IsInvalidArgument());  // offset + length wraps
}

TEST(BadInput, StorePathsThatCannotBeAStore) {
  TempDir dir;
  std::unique_ptr<Store> s;
  std::string file = dir.sub("file");
  WriteFile(file, "not a store");
  Status st = Store::Open(Small(), file, &s);
  EXPECT_TRUE(st.IsInvalidArgument()) << st.ToString();
  // Under a file: fails for root too.
  st = Store::Open(Small(), file + "/store", &s);
  EXPECT_FALSE(st.ok());
  EXPECT_NE(st.message().find(file), std::string::npos) << st.ToString();
  EXPECT_TRUE(st.IsIOError() || st.IsNotFound()) << st.ToString();
  // A MANIFEST that is a directory.
  ASSERT_EQ(::mkdir(dir.sub("d").c_str(), 0755), 0);
  ASSERT_EQ(::mkdir(dir.sub("d/MANIFEST").c_str(), 0755), 0);
  st = Store::Open(Small(), dir.sub("d"), &s);
  EXPECT_FALSE(st.ok());
  EXPECT_NE(st.message().find("MANIFEST"), std::string::npos) << st.ToString();
  // /proc refuses new directories whoever asks.
  st = Store::Open(Small(), "/proc/self/cairn-store", &s);
  EXPECT_TRUE(st.IsIOError()) << st.ToString();
  Options o = Small();
  EXPECT_TRUE(Store::Open(o, "", &s).IsInvalidArgument());
  o.chunk_size = 5000;
  EXPECT_TRUE(Store::Open(o, dir.sub("x"), &s).IsInvalidArgument());
  o = Small();
  o.write_buffer_size = 100;
  EXPECT_TRUE(Store::Open(o, dir.sub("x"), &s).IsInvalidArgument());
  o = Small();
  o.subfiles = -1;
  EXPECT_TRUE(Store::Open(o, dir.sub("x"), &s).IsInvalidArgument());
  EXPECT_FALSE(std::filesystem::exists(dir.sub("x")));  // a refused open creates nothing
}

// Runs `check` in a child process without root's right to write anywhere
// (uid and gid 65534, "nobody", when the test runs as root); its result is
// the child's exit code.
bool AsUnprivileged(const std::function<bool()>& check) {
  pid_t pid = ::fork();
  if (pid == 0) {
    if (::geteuid() == 0 && (::setgid(65534) != 0 || ::setuid(65534) != 0)) ::_exit(3);
    ::_exit(check() ? 0 : 1);
  }
  int status = 0;
  ::waitpid(pid, &status, 0);
  return WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

TEST(BadInput, DirectoryWithoutWritePermission) {
  TempDir dir;
  ASSERT_EQ(::chmod(dir.path().c_str(), 0755), 0);
  std::string empty = dir.sub("empty"), store = dir.sub("store");
  ASSERT_EQ(::mkdir(empty.c_str(), 0555), 0);
  {
    auto s = MustOpen(store);
    ASSERT_TRUE(s->Put("k", Pattern(3, 5000)).ok());
    ASSERT_TRUE(s->Commit().ok());
  }
  // A store written by someone else, whose files this user may only read.
  ASSERT_EQ(::chmod(store.c_str(), 0555), 0);
  for (auto f : std::filesystem::directory_iterator(store)) ASSERT_EQ(::chmod(f.path().c_str(), 0444), 0);
  EXPECT_TRUE(AsUnprivileged([&] {
    std::unique_ptr<Store> s;
    Status st = Store::Open(Small(), empty, &s);  // cannot create the manifest
    if (!st.IsIOError() || st.message().find("Permission denied") == std::string::npos) return false;
    st = Store::Open(Small(), empty + "/sub", &s);  // cannot make the directory
    if (!st.IsIOError()) return false;
    st = Store::Open(Small(), store, &s);  // cannot write the store
    if (!st.IsIOError() || st.message().find("Permission denied") == std::string::npos) return false;
    Options ro = Small();
    ro.read_only = true;  // but can read it
    std::string v;
    st = Store::Open(ro, store, &s);
    return st.ok() && s->Get("k", &v).ok() && v == Pattern(3, 5000);
  })) << "see the child's checks above";
  ::chmod(store.c_str(), 0755);
}

// A write buffer (allocated at open) or a staging budget (prefaulted at
// open) larger than the node's memory: InvalidArgument naming the option,
// not std::bad_alloc out of Open (nor the OOM killer, for staging). A
// read-only open allocates neither and is not refused.
TEST(BadInput, BuffersLargerThanTheNodesMemoryAreRefusedAtOpen) {
  TempDir dir;
  { auto made = test::MustOpen(dir.sub("s")); }
  for (int which = 0; which < 2; which++) {
    Options o = test::SmallOptions();
    (which == 0 ? o.write_buffer_size : o.staging_bytes) = uint64_t(1) << 50;
    std::unique_ptr<Store> s;
    Status st = Store::Open(o, dir.sub("s"), &s);
    std::printf("%s\n", st.ToString().c_str());
    EXPECT_TRUE(st.IsInvalidArgument()) << st.ToString();
    EXPECT_NE(st.message().find(which == 0 ? "write_buffer_size" : "staging_bytes"), std::string::npos);
    EXPECT_NE(st.message().find("memory"), std::string::npos);
    EXPECT_EQ(s, nullptr);
    o.read_only = true;
    EXPECT_TRUE(Store::Open(o, dir.sub("s"), &s).ok());
  }
}

TEST(BadInput, ReadOnlyAndClosedHandlesRefuseWrites) {
  TempDir dir;
  {
    auto s = MustOpen(dir.sub("s"));
    ASSERT_TRUE(s->Put("k", "v").ok());
    ASSERT_TRUE(s->Commit().ok());
    ASSERT_TRUE(s->Close().ok());
    std::string v;
    EXPECT_TRUE(s->Put("k", "w").IsInvalidArgument());
    EXPECT_TRUE(s->Get("k", &v).IsInvalidArgument());
    EXPECT_TRUE(s->Commit().IsInvalidArgument());
    EXPECT_TRUE(s->Close().ok());  // twice is fine
  }
  Options o = Small();
  o.read_only = true;
  auto s = MustOpen(dir.sub("s"), o);
  EXPECT_TRUE(s->Put("k", "w").IsInvalidArgument());
  EXPECT_TRUE(s->Delete("k").IsInvalidArgument());
  EXPECT_TRUE(s->Commit().IsInvalidArgument());
  o.revision = 9;
  std::unique_ptr<Store> t;
  EXPECT_TRUE(Store::Open(o, dir.sub("s"), &t).IsNotFound());
}

// The store at `path` (one revision), with the version field of its newest
// revision's rank-0 index table set to 2 and every checksum over it fixed,
// as a newer cairn would have written it.
void BumpIndexTableVersion(const std::string& path) {
  std::string man = ReadFile(path + "/MANIFEST");
  ParsedManifest pm;
  ASSERT_TRUE(ParseManifest(man, &pm).ok());
  RevisionRecord rec = pm.revisions.back();
  std::string data = ReadFile(path + "/data.00000");
  NamespaceDesc& d = rec.namespaces[0];
  std::string table = data.substr(d.offset, d.length);
  table[8] = 2;
  EncodeFixed64(table.data() + table.size() - 8, Checksum(table.data(), table.size() - 8));
  data.replace(d.offset, d.length, table);
  d.checksum = Checksum(table);
  WriteFile(path + "/data.00000", data);
  std::string rebuilt = man.substr(0, kManifestHeaderSize);
  for (size_t i = 0; i + 1 < pm.revisions.size(); i++)
    rebuilt += FrameRecord(RecordType::kRevision, EncodeRevisionPayload(pm.revisions[i]));
  rebuilt += FrameRecord(RecordType::kRevision, EncodeRevisionPayload(rec));
  WriteFile(path + "/MANIFEST", rebuilt);
}

TEST(BadInput, NewerFormatVersionsOfEveryFileAreNotSupported) {
  TempDir dir;
  auto make = [&](const std::string& name) {
    auto s = MustOpen(dir.sub(name));
    EXPECT_TRUE(s->Put("k", Pattern(1, 3000)).ok());
    EXPECT_TRUE(s->Commit().ok());
    return dir.sub(name);
  };
  Options ro = Small();
  ro.read_only = true;
  std::unique_ptr<Store> s;
  // Data file header: version at offset 8, checksum of bytes 0..39 at 40.
  std::string p = make("data");
  std::string data = ReadFile(p + "/data.00000");
  data[8] = 2;
  EncodeFixed64(data.data() + 40, Checksum(data.data(), 40));
  WriteFile(p + "/data.00000", data);
  Status st = Store::Open(Small(), p, &s);
  EXPECT_TRUE(st.IsNotSupported()) << st.ToString();
  ASSERT_TRUE(Store::Open(ro, p, &s).ok());  // readers do not need the header...
  VerifyReport rep;
  ASSERT_TRUE(Inspector::Verify(s.get(), &rep).ok());
  ASSERT_EQ(rep.problems.size(), 1u);  // ...verify reports it
  EXPECT_NE(rep.problems[0].find("NotSupported"), std::string::npos) << rep.problems[0];
  EXPECT_NE(rep.problems[0].find("data.00000"), std::string::npos) << rep.problems[0];
  // Index table: version at offset 8 (u16).
  p = make("index");
  BumpIndexTableVersion(p);
  st = Store::Open(ro, p, &s);
  EXPECT_TRUE(st.IsNotSupported()) << st.ToString();
  st = Store::Open(Small(), p, &s);
  EXPECT_TRUE(st.IsNotSupported()) << st.ToString();
  // An unknown manifest record type (from a newer writer).
  p = make("record");
  std::string man = ReadFile(p + "/MANIFEST") + FrameRecord(RecordType(99), "future");
  WriteFile(p + "/MANIFEST", man);
  st = Store::Open(ro, p, &s);
  EXPECT_TRUE(st.IsNotSupported()) << st.ToString();
}

// Replaces the rank-0 table of the store's newest revision by `table`,
// appended to the data file, with every checksum over it made valid: what
// a buggy writer (not damage) would leave.
void ReplaceTable(const std::string& path, const std::string& table) {
  std::string man = ReadFile(path + "/MANIFEST");
  ParsedManifest pm;
  ASSERT_TRUE(ParseManifest(man, &pm).ok());
  std::string data = ReadFile(path + "/data.00000");
  RevisionRecord rec = pm.revisions.back();
  rec.namespaces[0].offset = data.size();
  rec.namespaces[0].length = table.size();
  rec.namespaces[0].checksum = Checksum(table);
  rec.namespaces[0].objects = 1;
  WriteFile(path + "/data.00000", data + table);
  std::string rebuilt = man.substr(0, kManifestHeaderSize);
  for (size_t i = 0; i + 1 < pm.revisions.size(); i++)
    rebuilt += FrameRecord(RecordType::kRevision, EncodeRevisionPayload(pm.revisions[i]));
  WriteFile(path + "/MANIFEST", rebuilt + FrameRecord(RecordType::kRevision, EncodeRevisionPayload(rec)));
}

TEST(BadInput, ATableClaimingAHugeValueIsAnErrorNotACrash) {
  TempDir dir;
  std::string path = dir.sub("s");
  {
    auto s = MustOpen(path);
    ASSERT_TRUE(s->Put("k", Pattern(1, 3000)).ok());
    ASSERT_TRUE(s->Commit().ok());
  }
  // One entry whose chunks claim 2^61 bytes, past the end of the data file
  // (and one whose chunk's end would wrap around 2^64).
  for (uint64_t offset : {uint64_t(65536), ~uint64_t(0) - 10}) {
    std::vector<ChunkRef> chunks(1);
    chunks[0].offset = offset;
    chunks[0].length = chunks[0].raw_length = 1ull << 61;
    std::string body;
    EncodeEntryBody("huge", ValueKind::kChunked, 1ull << 61, {}, chunks, std::string(1, '\0'), &body);
    IndexTableBuilder b;
    b.Begin(0, 1, 1, {}, body.size());
    b.Add(body);
    ReplaceTable(path, b.Finish());
    Options o = Small();
    o.read_only = true;
    std::unique_ptr<Store> s;
    Status st = Store::Open(o, path, &s);
    if (!st.ok()) {  // refused at open: fine, if clearly
      EXPECT_TRUE(st.IsCorruption()) << st.ToString();
      continue;
    }
    std::string v;
    st = s->Get("huge", &v);
    EXPECT_TRUE(st.IsCorruption()) << st.ToString();
    char buf[16];
    st = s->GetRange("huge", 0, buf, sizeof buf);
    EXPECT_TRUE(st.IsCorruption()) << st.ToString();
    std::vector<std::string> vals;
    std::vector<Status> sts;
    st = s->MultiGet({"huge"}, &vals, &sts);
    EXPECT_TRUE(st.IsCorruption()) << st.ToString();
    VerifyReport rep;
    ASSERT_TRUE(Inspector::Verify(s.get(), &rep).ok());
    ASSERT_EQ(rep.problems.size(), 1u);
    EXPECT_NE(rep.problems[0].find("'huge'"), std::string::npos) << rep.problems[0];
  }
}

TEST(BadInput, ATableWithAnEmptyTagNameIsCorruption) {
  TempDir dir;
  std::string path = dir.sub("s");
  {
    auto s = MustOpen(path);
    ASSERT_TRUE(s->Put("k", "v").ok());
    ASSERT_TRUE(s->Commit().ok());
  }
  std::string body;
  EncodeEntryBody("k", ValueKind::kInline, 1, "v", {}, std::string(1, '\0'), &body);
  IndexTableBuilder b;
  b.Begin(0, 1, 1, {""}, body.size());  // tag names are 1 to 65535 bytes
  b.Add(body);
  ReplaceTable(path, b.Finish());
  std::unique_ptr<Store> s;
  Status st = Store::Open(Small(), path, &s);
  EXPECT_TRUE(st.IsCorruption()) << st.ToString();
  EXPECT_NE(st.message().find("tag name"), std::string::npos) << st.ToString();
}

// A data file the newest revision has data in, deleted: a writable open
// reports it and does not make an empty one in its place (it did, and
// `cairn verify` then said "truncated" instead of "missing"; found by an
// outside pass). A new store still creates its files.
TEST(BadInput, AMissingDataFileIsReportedNotRecreated) {
  TempDir dir;
  std::string path = dir.sub("s");
  {
    auto s = MustOpen(path);
    ASSERT_TRUE(s->Put("k", std::string(100000, 'v')).ok());
    ASSERT_TRUE(s->Commit().ok());
  }
  const std::string data = path + "/data.00000";
  ASSERT_EQ(::unlink(data.c_str()), 0);
  std::unique_ptr<Store> s;
  Status st = Store::Open(Small(), path, &s);
  EXPECT_TRUE(st.IsCorruption()) << st.ToString();
  EXPECT_NE(st.message().find("data.00000 is missing"), std::string::npos) << st.ToString();
  struct stat fst;
  EXPECT_NE(::stat(data.c_str(), &fst), 0) << "an empty data file was made in place of the missing one";
  Options ro = Small();
  ro.read_only = true;
  st = Store::Open(ro, path, &s);
  if (st.ok()) {
    std::string v;
    EXPECT_FALSE(s->Get("k", &v).ok());
  }
  EXPECT_NE(::stat(data.c_str(), &fst), 0);
  // Cut below its header: refused too, and nothing is written into it.
  { std::ofstream(data, std::ios::binary | std::ios::trunc) << "abc"; }
  st = Store::Open(Small(), path, &s);
  EXPECT_TRUE(st.IsCorruption()) << st.ToString();
  EXPECT_NE(st.message().find("below its"), std::string::npos) << st.ToString();
  EXPECT_EQ(test::FileSize(data), 3u) << "a header was written into the damaged file";
}

}  // namespace
}  // namespace cairn
