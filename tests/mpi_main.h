// main() for tests run under mpiexec: MPI is initialized around the gtest
// run, rank 0 prints the usual report, the other ranks print only their
// failed assertions (each line prefixed with the rank), and the exit code is
// the worst over all ranks. On more than one rank a fatal failure (ASSERT_*,
// FAIL) ends the job at once: the rank that failed leaves the test body, and
// the others would wait for it in their next collective until ctest's
// timeout (300 s), with no word of why.
#pragma once

#include <gtest/gtest.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#include <filesystem>
#include <string>

#include "test_util.h"

namespace cairn::test {

// This process's rank in `c`.
inline int Rank(MPI_Comm c = MPI_COMM_WORLD) {
  int r;
  MPI_Comm_rank(c, &r);
  return r;
}

// The number of processes in `c`.
inline int Size(MPI_Comm c = MPI_COMM_WORLD) {
  int n;
  MPI_Comm_size(c, &n);
  return n;
}

// A listener that knows its rank and the test running (for its messages).
// OnTestPartResult is called with gtest's lock held: the subclasses'
// must not call back into UnitTest.
class RankListener : public ::testing::EmptyTestEventListener {
 public:
  explicit RankListener(int rank) : rank_(rank) {}
  void OnTestStart(const ::testing::TestInfo& t) override {
    test_ = std::string(t.test_suite_name()) + "." + t.name();
  }

 protected:
  int rank_;
  std::string test_ = "(outside a test)";
};

// Prints the failed assertions of a rank other than 0, which has no report
// of its own: "[rank R] FAILED Suite.Test at file:line" and the message, to stderr.
class RankFailurePrinter : public RankListener {
 public:
  using RankListener::RankListener;
  void OnTestPartResult(const ::testing::TestPartResult& r) override {
    if (!r.failed()) return;
    fprintf(stderr, "[rank %d] FAILED %s at %s:%d\n%s\n", rank_, test_.c_str(),
            r.file_name() ? r.file_name() : "?", r.line_number(), r.message());
    fflush(stderr);
  }
};

// Ends the job when an assertion of this rank fails fatally (after the
// printers before it in the listener list have reported the failure): the
// other ranks would otherwise wait for this one in their next collective.
class AbortOnFatalFailure : public RankListener {
 public:
  using RankListener::RankListener;
  void OnTestPartResult(const ::testing::TestPartResult& r) override {
    if (!r.fatally_failed()) return;
    fprintf(stderr,
            "[rank %d] a fatal assertion failed in %s: ending the job (MPI_Abort), since the other ranks "
            "would wait for this one in their next collective\n",
            rank_, test_.c_str());
    fflush(stderr);
    fflush(stdout);
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
};

// A directory every rank agrees on: rank 0 makes it, all learn its name.
inline std::string SharedTempDir(MPI_Comm comm) {
  int rank;
  MPI_Comm_rank(comm, &rank);
  char buf[256] = {0};
  if (rank == 0) {
    const char* base = getenv("TMPDIR");
    std::string tmpl = std::string(base ? base : "/tmp") + "/cairn-mpi-XXXXXX";
    snprintf(buf, sizeof buf, "%s", mkdtemp(tmpl.data()));
  }
  MPI_Bcast(buf, sizeof buf, MPI_CHAR, 0, comm);
  return buf;
}

// DataFileBytes of the store at `store_dir`, read between two barriers of
// `comm` so that no rank writes while the files are measured (collective).
inline uint64_t DataFileBytesBetweenBarriers(const std::string& store_dir, MPI_Comm comm = MPI_COMM_WORLD) {
  MPI_Barrier(comm);
  uint64_t b = DataFileBytes(store_dir);
  MPI_Barrier(comm);
  return b;
}

// A test fixture with a fresh directory shared by all ranks, removed by
// rank 0 after the test.
class MpiDirTest : public ::testing::Test {
 protected:
  void SetUp() override { dir_ = SharedTempDir(MPI_COMM_WORLD); }
  void TearDown() override {
    MPI_Barrier(MPI_COMM_WORLD);
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0) std::filesystem::remove_all(dir_);
  }
  std::string Path() const { return dir_ + "/store"; }
  std::string dir_;
};


// Runs every test of the binary under MPI (MPI_Init and MPI_Finalize
// around it) and returns the worst exit code over all ranks: rank 0 prints
// gtest's report, the others their failed assertions; on more than one
// rank a fatal failure ends the job (AbortOnFatalFailure).
inline int RunMpiTests(int* argc, char*** argv) {
  MPI_Init(argc, argv);
  ::testing::InitGoogleTest(argc, *argv);
  const int rank = Rank();
  auto& listeners = ::testing::UnitTest::GetInstance()->listeners();
  if (rank != 0) {
    delete listeners.Release(listeners.default_result_printer());
    listeners.Append(new RankFailurePrinter(rank));
  }
  if (Size() > 1) listeners.Append(new AbortOnFatalFailure(rank));
  int rc = RUN_ALL_TESTS(), worst = 0;
  MPI_Allreduce(&rc, &worst, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  MPI_Finalize();
  return worst;
}

}  // namespace cairn::test

// main() of a binary of collective tests.
#define CAIRN_MPI_TEST_MAIN \
  int main(int argc, char** argv) { return ::cairn::test::RunMpiTests(&argc, &argv); }
