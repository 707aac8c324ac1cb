/* What the C API tests share: CHECK, which counts a failed condition and
 * prints it with cairn_last_error(), a shared temporary directory, and the
 * end of a test program. */
#ifndef CAIRN_TESTS_CAPI_CHECK_H
#define CAIRN_TESTS_CAPI_CHECK_H

#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

/* Collective: rank 0 makes a fresh directory "$TMPDIR/cairn-<tag>-XXXXXX"
 * (aborting the job if it cannot) and every rank learns its name in `dir`
 * (256 bytes). */
static void capi_test_dir(const char* tag, char dir[256], int rank) {
  memset(dir, 0, 256);
  if (rank == 0) {
    const char* base = getenv("TMPDIR");
    snprintf(dir, 256, "%s/cairn-%s-XXXXXX", base ? base : "/tmp", tag);
    if (!mkdtemp(dir)) MPI_Abort(MPI_COMM_WORLD, 1);
  }
  MPI_Bcast(dir, 256, MPI_CHAR, 0, MPI_COMM_WORLD);
}

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
