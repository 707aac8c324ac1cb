// The first commit of an open syncs the store directory and its parent
// (beside the data fsync, on a thread of its own: SideTask). If that fsync
// fails, the commit fails and makes no revision, the record never being
// appended before the directories are synced (a commit that did not wait
// for them returned OK here); once the directory is back, the next commit
// makes the revision. Written by an outside review (fifteenth session).
#include <gtest/gtest.h>
#include <filesystem>
#include "cairn/store.h"
#include "store_test_util.h"
#include "test_util.h"

namespace cairn {
namespace {
namespace fs = std::filesystem;
using namespace cairn::test;

void RunDirSync(bool async) {
  TempDir dir;
  std::string p = dir.sub("p"), q = dir.sub("q");
  fs::create_directories(p);
  std::unique_ptr<Store> s = MustOpen(p + "/s");
  ASSERT_TRUE(s->Put("k", "v1").ok());
  fs::rename(p, q);  // the store directory's path is gone: its SyncDir fails
  Status st;
  if (async) {
    AsyncCommit h;
    st = s->CommitAsync(&h);
    if (st.ok()) st = h.Wait();
  } else {
    st = s->Commit();
  }
  EXPECT_FALSE(st.ok());
  EXPECT_NE(st.ToString().find("directory"), std::string::npos) << st.ToString();
  EXPECT_EQ(s->revision(), 0u);
  fs::rename(q, p);
  ASSERT_TRUE(s->Put("k", "v2").ok());
  uint64_t rev = 0;
  st = s->Commit(&rev);
  EXPECT_TRUE(st.ok()) << st.ToString();
  EXPECT_EQ(rev, 1u);
  ASSERT_TRUE(s->Close().ok());
  std::unique_ptr<Store> r;
  Options ro = SmallOptions();
  ro.read_only = true;
  ASSERT_TRUE(Store::Open(ro, p + "/s", &r).ok());
  std::string v;
  ASSERT_TRUE(r->Get("k", &v).ok());
  EXPECT_EQ(v, "v2");
}

TEST(FirstCommitDirSync, SyncCommitFailsWhenTheDirectorySyncFails) { RunDirSync(false); }
TEST(FirstCommitDirSync, AsyncCommitFailsWhenTheDirectorySyncFails) { RunDirSync(true); }

}  // namespace
}  // namespace cairn
