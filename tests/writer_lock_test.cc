// The store's writer lock, the directories a writable open accepts, and
// the directory syncs of a writable open's first commit (issue 10, items
// 2, 8 and 11), under mpiexec with 1, 2 and 4 ranks. The lock between
// processes, kill -9 of a holder and the tool's refusal are in
// lock_test.sh.
#include <gtest/gtest.h>
#include <mpi.h>
#include <stdlib.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "cairn/store.h"
#include "mpi_main.h"

namespace cairn {
namespace {

using test::Rank;
using test::Size;

namespace fs = std::filesystem;

Options Small() {
  Options o;
  o.extent_size = 64 * 1024;
  o.chunk_size = 16 * 1024;
  o.write_buffer_size = 32 * 1024;
  o.inline_value_limit = 64;
  return o;
}

// Rank 0's string, on every rank.
std::string FromRankZero(std::string s) {
  uint64_t n = s.size();
  MPI_Bcast(&n, 1, MPI_UINT64_T, 0, MPI_COMM_WORLD);
  s.resize(n);
  MPI_Bcast(s.data(), int(n), MPI_CHAR, 0, MPI_COMM_WORLD);
  return s;
}

std::string ReadFile(const std::string& path) {
  std::ifstream f(path);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

class WriterLockTest : public test::MpiDirTest {
 protected:
  Status OpenAt(const std::string& path, std::unique_ptr<Store>* s, Options o = Small()) {
    return Store::Open(o, path, MPI_COMM_WORLD, s);
  }
  // Every rank got this very status (a collective error path).
  void ExpectSameOnEveryRank(const Status& st) {
    EXPECT_EQ(st.ToString(), FromRankZero(st.ToString())) << "rank " << Rank();
  }
};

TEST_F(WriterLockTest, SecondWriteHandleInOneProcessIsRefusedNamingTheHolder) {
  // The batch job id of rank 0's process goes into the description.
  if (Rank() == 0) setenv("SLURM_JOB_ID", "4242", 1);
  std::unique_ptr<Store> a, b;
  ASSERT_TRUE(OpenAt(Path(), &a).ok());
  ASSERT_TRUE(a->Put("x", "first writer").ok());
  ASSERT_TRUE(a->Commit().ok());
  if (Rank() == 0) unsetenv("SLURM_JOB_ID");

  Status st = OpenAt(Path(), &b);
  ExpectSameOnEveryRank(st);
  EXPECT_TRUE(st.IsIOError()) << st.ToString();
  EXPECT_FALSE(b);
  std::string host(256, '\0');
  gethostname(host.data(), host.size() - 1);
  host.resize(std::strlen(host.c_str()));
  std::string pid = FromRankZero(std::to_string(getpid()));
  std::string msg = st.ToString();
  EXPECT_NE(msg.find("store " + Path() + " is open for writing by another handle in this process"),
            std::string::npos) << msg;
  EXPECT_NE(msg.find("host " + host + ", pid " + pid + ", SLURM_JOB_ID 4242, since 20"), std::string::npos) << msg;

  // The description in LOCK, as doc/format.md gives it.
  if (Rank() == 0) {
    std::string text = ReadFile(Path() + "/LOCK");
    EXPECT_EQ(text.rfind("cairn-lock 1\nhost " + host + "\npid " + pid + "\njob SLURM_JOB_ID=4242\nsince 20", 0), 0u)
        << text;
  }

  // Read-only opens neither take nor wait for the lock.
  Options ro = Small();
  ro.read_only = true;
  std::unique_ptr<Store> r;
  ASSERT_TRUE(OpenAt(Path(), &r, ro).ok());
  std::string v;
  EXPECT_TRUE(r->Get("x", &v).ok());
  EXPECT_EQ(v, "first writer");

  // The first writer is unharmed, and once it closes the next one opens.
  ASSERT_TRUE(a->Put("x", "first writer, again").ok());
  ASSERT_TRUE(a->Commit().ok());
  ASSERT_TRUE(a->Close().ok());
  st = OpenAt(Path(), &b);
  ASSERT_TRUE(st.ok()) << st.ToString();
  EXPECT_EQ(b->revision(), 2u);
  ASSERT_TRUE(b->Put("x", "second writer").ok());
  EXPECT_TRUE(b->Commit().ok());
  EXPECT_TRUE(r->Close().ok());
}

// A file system that cannot lock (Lustre without -o flock: ENOSYS),
// simulated with CAIRN_TEST_FLOCK_ERRNO on rank 0, where the lock is taken.
TEST_F(WriterLockTest, FileSystemWithoutLocksFailsUnlessOptedOut) {
  if (Rank() == 0) setenv("CAIRN_TEST_FLOCK_ERRNO", std::to_string(ENOSYS).c_str(), 1);
  std::unique_ptr<Store> a, b;
  Status st = OpenAt(Path(), &a);
  ExpectSameOnEveryRank(st);
  EXPECT_TRUE(st.IsNotSupported()) << st.ToString();
  EXPECT_NE(st.ToString().find("cannot lock files"), std::string::npos) << st.ToString();
  EXPECT_NE(st.ToString().find("-o flock"), std::string::npos) << st.ToString();
  EXPECT_NE(st.ToString().find("require_writer_lock"), std::string::npos) << st.ToString();

  // The explicit opt-out: a warning, and the store works.
  Options o = Small();
  o.require_writer_lock = false;
  if (Rank() == 0) testing::internal::CaptureStderr();
  st = OpenAt(Path(), &a, o);
  if (Rank() == 0) {
    std::string err = testing::internal::GetCapturedStderr();
    EXPECT_NE(err.find("cairn: warning: the file system of " + Path() + " cannot lock files"), std::string::npos) << err;
  }
  ASSERT_TRUE(st.ok()) << st.ToString();
  ASSERT_TRUE(a->Put("k", "unlocked").ok());
  ASSERT_TRUE(a->Commit().ok());
  // A second handle in this process is still refused.
  st = OpenAt(Path(), &b, o);
  ExpectSameOnEveryRank(st);
  EXPECT_NE(st.ToString().find("is open for writing by another handle in this process"), std::string::npos)
      << st.ToString();
  ASSERT_TRUE(a->Close().ok());
  if (Rank() == 0) unsetenv("CAIRN_TEST_FLOCK_ERRNO");
  EXPECT_TRUE(OpenAt(Path(), &b).ok());
}

TEST_F(WriterLockTest, LockIsPerOpenAndTheLockFileStays) {
  for (int i = 0; i < 3; i++) {
    std::unique_ptr<Store> s;
    ASSERT_TRUE(OpenAt(Path(), &s).ok()) << i;
    ASSERT_TRUE(s->Put("k", std::to_string(i)).ok());
    ASSERT_TRUE(s->Commit().ok());
    ASSERT_TRUE(s->Commit().ok());  // no lock traffic per commit: same handle, same lock
    ASSERT_TRUE(s->Close().ok());
    EXPECT_TRUE(fs::exists(Path() + "/LOCK"));
  }
  // A handle destroyed without Close releases it too.
  { std::unique_ptr<Store> s; ASSERT_TRUE(OpenAt(Path(), &s).ok()); }
  std::unique_ptr<Store> s;
  EXPECT_TRUE(OpenAt(Path(), &s).ok());
}

TEST_F(WriterLockTest, DirectoryThatIsNotAStoreIsRefused) {
  std::string d = dir_ + "/home";
  if (Rank() == 0) {
    fs::create_directory(d);
    std::ofstream(d + "/notes.txt") << "mine";
    fs::create_directory(d + "/src");
  }
  MPI_Barrier(MPI_COMM_WORLD);
  std::unique_ptr<Store> s;
  Status st = OpenAt(d, &s);
  ExpectSameOnEveryRank(st);
  EXPECT_TRUE(st.IsInvalidArgument()) << st.ToString();
  EXPECT_NE(st.ToString().find("directory " + d + " is not a cairn store: it holds 'notes.txt', 'src' and no MANIFEST"),
            std::string::npos) << st.ToString();
  MPI_Barrier(MPI_COMM_WORLD);
  // Nothing was written into it.
  EXPECT_FALSE(fs::exists(d + "/MANIFEST"));
  EXPECT_FALSE(fs::exists(d + "/LOCK"));
  EXPECT_FALSE(fs::exists(d + "/data.00000"));
  MPI_Barrier(MPI_COMM_WORLD);

  // A file named MANIFEST that is not cairn's does not make it a store.
  if (Rank() == 0) std::ofstream(d + "/MANIFEST") << "include *.txt\nrecursive-include src *\n";
  MPI_Barrier(MPI_COMM_WORLD);
  st = OpenAt(d, &s);
  ExpectSameOnEveryRank(st);
  EXPECT_NE(st.ToString().find("a MANIFEST that is not a cairn manifest"), std::string::npos) << st.ToString();
  EXPECT_EQ(ReadFile(d + "/MANIFEST"), "include *.txt\nrecursive-include src *\n");
}

TEST_F(WriterLockTest, EmptyInterruptedAndExistingStoresOpen) {
  // Empty.
  std::string empty = dir_ + "/empty";
  if (Rank() == 0) fs::create_directory(empty);
  MPI_Barrier(MPI_COMM_WORLD);
  std::unique_ptr<Store> s;
  Status st = OpenAt(empty, &s);
  ASSERT_TRUE(st.ok()) << st.ToString();
  ASSERT_TRUE(s->Close().ok());

  // A creation cut short: mkdir, then a LOCK, an empty MANIFEST and a data
  // file with no header (a job killed before its first commit).
  std::string cut = dir_ + "/cut";
  if (Rank() == 0) {
    fs::create_directory(cut);
    std::ofstream(cut + "/LOCK");
    std::ofstream(cut + "/MANIFEST");
    std::ofstream(cut + "/data.00000");
  }
  MPI_Barrier(MPI_COMM_WORLD);
  st = OpenAt(cut, &s);
  ASSERT_TRUE(st.ok()) << st.ToString();
  ASSERT_TRUE(s->Put("k", "v").ok());
  ASSERT_TRUE(s->Commit().ok());
  ASSERT_TRUE(s->Close().ok());
  // Only its lock file.
  std::string lockonly = dir_ + "/lockonly";
  if (Rank() == 0) {
    fs::create_directory(lockonly);
    std::ofstream(lockonly + "/LOCK");
  }
  MPI_Barrier(MPI_COMM_WORLD);
  st = OpenAt(lockonly, &s);
  ASSERT_TRUE(st.ok()) << st.ToString();
  ASSERT_TRUE(s->Close().ok());

  // A store with a file of the user's beside it.
  if (Rank() == 0) std::ofstream(cut + "/README") << "checkpoints of run 7";
  MPI_Barrier(MPI_COMM_WORLD);
  st = OpenAt(cut, &s);
  ASSERT_TRUE(st.ok()) << st.ToString();
  EXPECT_EQ(s->revision(), 1u);
  ASSERT_TRUE(s->Close().ok());

  // create_if_missing = false on an empty directory: NotFound, and no LOCK left.
  std::string empty2 = dir_ + "/empty2";
  if (Rank() == 0) fs::create_directory(empty2);
  MPI_Barrier(MPI_COMM_WORLD);
  Options o = Small();
  o.create_if_missing = false;
  st = OpenAt(empty2, &s, o);
  EXPECT_TRUE(st.IsNotFound()) << st.ToString();
  MPI_Barrier(MPI_COMM_WORLD);
  EXPECT_TRUE(fs::is_empty(empty2));
}

// Files that bear cairn's names but not its bytes are not a store's
// leftovers: a user's data.00000, a short MANIFEST or a LOCK of their own
// are refused and left as they were (they used to be overwritten).
TEST_F(WriterLockTest, FilesWithCairnNamesButNotItsBytesAreRefused) {
  struct Case { const char* name; const char* text; const char* says; };
  for (const Case& c : {Case{"data.00000", "my dataset part\n", "'data.00000' is not a cairn data file"},
                        Case{"MANIFEST", "my notes\n", "is not a cairn manifest"},
                        Case{"LOCK", "do not touch\n", "'LOCK' is not cairn's"}}) {
    std::string d = dir_ + "/named-" + c.name;
    if (Rank() == 0) {
      fs::create_directory(d);
      std::ofstream(d + "/" + c.name) << c.text;
    }
    MPI_Barrier(MPI_COMM_WORLD);
    std::unique_ptr<Store> s;
    Status st = OpenAt(d, &s);
    ExpectSameOnEveryRank(st);
    EXPECT_FALSE(st.ok()) << c.name;
    EXPECT_NE(st.ToString().find(c.says), std::string::npos) << st.ToString();
    MPI_Barrier(MPI_COMM_WORLD);
    EXPECT_EQ(ReadFile(d + "/" + c.name), c.text) << c.name;
    // Nothing else was written, but for the LOCK when the file is a
    // MANIFEST: the lock is taken before the manifest is read (so that no
    // writer can change it meanwhile), and only the manifest's own bytes
    // tell a store from a stranger's file of that name.
    std::vector<std::string> names;
    for (auto& e : fs::directory_iterator(d))
      if (!(std::string(c.name) == "MANIFEST" && e.path().filename() == "LOCK"))
        names.push_back(e.path().filename().string());
    EXPECT_EQ(names.size(), 1u) << c.name << ": the open wrote files into the directory";
    MPI_Barrier(MPI_COMM_WORLD);
  }
}

// A store whose MANIFEST was cut inside its header (or lost) while its data
// files hold committed data: a writable open must not start a new store
// over them (it used to, re-stamping data.00000 with a new store id).
TEST_F(WriterLockTest, LostManifestBesideDataIsNotRecreated) {
  std::string d = dir_ + "/lost";
  std::unique_ptr<Store> s;
  ASSERT_TRUE(OpenAt(d, &s).ok());
  ASSERT_TRUE(s->Put("k", std::string(100000, 'x')).ok());
  ASSERT_TRUE(s->Commit().ok());
  ASSERT_TRUE(s->Close().ok());
  s.reset();
  std::string data_before;
  if (Rank() == 0) {
    fs::resize_file(d + "/MANIFEST", 40);
    data_before = ReadFile(d + "/data.00000");
  }
  MPI_Barrier(MPI_COMM_WORLD);
  Status st = OpenAt(d, &s);
  ExpectSameOnEveryRank(st);
  EXPECT_TRUE(st.IsCorruption()) << st.ToString();
  EXPECT_NE(st.ToString().find("the manifest was lost or damaged"), std::string::npos) << st.ToString();
  MPI_Barrier(MPI_COMM_WORLD);
  if (Rank() == 0) {
    EXPECT_EQ(fs::file_size(d + "/MANIFEST"), 40u);
    EXPECT_TRUE(ReadFile(d + "/data.00000") == data_before) << "data.00000 was rewritten";
    fs::remove(d + "/MANIFEST");  // lost altogether: the same answer
  }
  MPI_Barrier(MPI_COMM_WORLD);
  st = OpenAt(d, &s);
  ExpectSameOnEveryRank(st);
  EXPECT_TRUE(st.IsCorruption()) << st.ToString();
  MPI_Barrier(MPI_COMM_WORLD);
  if (Rank() == 0) { EXPECT_FALSE(fs::exists(d + "/MANIFEST")); }
}

// fsyncs rank 0 made in one commit.
uint64_t CommitSyncs(Store* s, const std::string& value) {
  uint64_t before = s->stats().fsyncs;
  EXPECT_TRUE(s->Put("k", value).ok());
  Status st = s->Commit();
  EXPECT_TRUE(st.ok()) << st.ToString();
  return s->stats().fsyncs - before;
}

// Item 8: the first commit of every writable open syncs the store
// directory and its parent (two fsyncs more than its later commits),
// whoever made the directory, MANIFEST and data files.
TEST_F(WriterLockTest, FirstCommitOfEveryWritableOpenSyncsTheDirectories) {
  Options o = Small();
  auto first_minus_second = [&](Options opt) {
    std::unique_ptr<Store> s;
    Status st = OpenAt(Path(), &s, opt);
    EXPECT_TRUE(st.ok()) << st.ToString();
    if (!s) return int64_t(-100);
    uint64_t first = CommitSyncs(s.get(), "a"), second = CommitSyncs(s.get(), "b");
    EXPECT_TRUE(s->Close().ok());
    return int64_t(first) - int64_t(second);
  };
  // An open that made the directory, MANIFEST and data file, then ended
  // without a commit (as a job killed before its first one).
  {
    std::unique_ptr<Store> s;
    ASSERT_TRUE(OpenAt(Path(), &s, o).ok());
    ASSERT_TRUE(s->Close().ok());
  }
  ASSERT_TRUE(fs::exists(Path() + "/MANIFEST"));
  // The next open made none of them: its first commit still syncs both.
  EXPECT_EQ(first_minus_second(o), Rank() == 0 ? 2 : 0);
  // A plain reopen of a store with revisions: the same, once per open.
  EXPECT_EQ(first_minus_second(o), Rank() == 0 ? 2 : 0);
  if (Size() >= 2) {
    // A second data file made by an open that never committed, reused by
    // the next open of a store that has revisions.
    Options two = o;
    two.subfiles = 2;
    {
      std::unique_ptr<Store> s;
      ASSERT_TRUE(OpenAt(Path(), &s, two).ok());
      ASSERT_TRUE(s->Close().ok());
    }
    ASSERT_TRUE(fs::exists(Path() + "/data.00001"));
    EXPECT_EQ(first_minus_second(two), Rank() == 0 ? 2 : 0);
  }
}

}  // namespace
}  // namespace cairn

CAIRN_MPI_TEST_MAIN
