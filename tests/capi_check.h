/* What the C API tests share: CHECK, which counts a failed condition and
 * prints it with cairn_last_error(), and the end of a test program. */
#ifndef CAIRN_TESTS_CAPI_CHECK_H
#define CAIRN_TESTS_CAPI_CHECK_H

#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#include "cairn/cairn.h"

static int failures = 0;
#define CHECK(cond)                                                              \
  do {                                                                           \
    if (!(cond)) {                                                               \
      fprintf(stderr, "%s:%d: %s failed (%s)\n", __FILE__, __LINE__, #cond,     \
              cairn_last_error());                                               \
      failures++;                                                                \
    }                                                                            \
  } while (0)

/* Collective: agrees whether any rank failed, has rank 0 remove `dir` and
 * print "<name>: passed" or "FAILED", finalizes MPI; the exit status. */
static int capi_test_finish(const char* name, const char* dir, int rank) {
  int worst = 0;
  MPI_Allreduce(&failures, &worst, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0) {
    char cmd[400];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (system(cmd) != 0) worst = 1;
    printf("%s: %s\n", name, worst ? "FAILED" : "passed");
  }
  MPI_Finalize();
  return worst != 0;
}

#endif
