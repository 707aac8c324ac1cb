// A probe of tests/mpi_main.h itself, run by mpi_main_abort_test.sh: with
// CAIRN_TEST_PROBE=fail in the environment, rank 1 fails an ASSERT while
// the other ranks go on to a barrier, as a failing collective test does.
#include <stdlib.h>

#include <string>

#include "mpi_main.h"

TEST(Probe, AFatalFailureOnOneRankEndsTheJob) {
  const char* probe = getenv("CAIRN_TEST_PROBE");
  const bool fail = probe && std::string(probe) == "fail";
  if (cairn::test::Rank() == 1) {
    ASSERT_FALSE(fail) << "the probe's deliberate failure";
  }
  EXPECT_EQ(MPI_Barrier(MPI_COMM_WORLD), MPI_SUCCESS);
}

CAIRN_MPI_TEST_MAIN
