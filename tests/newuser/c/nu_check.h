/* What the new-user C programs share: a CHECK that counts failures and
 * prints the library's last error, and OK/CODE wrappers of cairn calls. */
#ifndef NU_CHECK_H
#define NU_CHECK_H

#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cairn/cairn.h>

static int nu_fails = 0;
static int nu_rank = 0;

#define CHECK(cond, ...)                                                              \
  do {                                                                                \
    if (!(cond)) {                                                                    \
      fprintf(stderr, "[rank %d] FAIL %s:%d: %s: ", nu_rank, __FILE__, __LINE__, #cond); \
      fprintf(stderr, __VA_ARGS__);                                                   \
      fprintf(stderr, " (last error: %s)\n", cairn_last_error());                     \
      nu_fails++;                                                                     \
    }                                                                                 \
  } while (0)

/* A call that must succeed. */
#define OK(call)                                                                      \
  do {                                                                                \
    int rc_ = (call);                                                                 \
    CHECK(rc_ == CAIRN_OK, "%s returned %s", #call, cairn_code_name(rc_));            \
  } while (0)

/* A call that must fail with `code` and say something. */
#define CODE(call, code)                                                              \
  do {                                                                                \
    int rc_ = (call);                                                                 \
    CHECK(rc_ == (code), "%s returned %s, expected %s", #call, cairn_code_name(rc_),  \
          cairn_code_name(code));                                                     \
    if (rc_ != CAIRN_OK) CHECK(cairn_last_error()[0] != '\0', "no message for %s", #call); \
  } while (0)

/* Collective: the worst failure count over the ranks; rank 0 prints it. */
static int nu_finish(const char* what) {
  int worst = 0;
  MPI_Allreduce(&nu_fails, &worst, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  if (nu_rank == 0) printf("%s: %s\n", what, worst ? "FAILED" : "passed");
  return worst != 0;
}

#endif
