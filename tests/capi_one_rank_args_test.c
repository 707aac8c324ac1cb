/* Collective C API calls with a bad argument on one rank only (an outside
 * test pass, tests/breaker/FINDINGS5.md 1-2): the last rank (then rank 0)
 * passes an options struct not filled by cairn_options_init, a NULL path,
 * a NULL store pointer, or a NULL async handle, while the other ranks'
 * arguments are fine. No rank may be left waiting in the collective (before the fix the
 * others hung in cairn_open for ever, and cairn_commit_async ended the job
 * with MPI_ERR_TRUNCATE at the next collective call); an open fails on
 * every rank (a store open on some ranks only would hang their next
 * collective call). alarm() turns a hang into a failure. 1, 2 and 4 ranks. */
#include <mpi.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cairn/cairn.h"
#include "capi_check.h"

/* Opens `path` with rank `bad`'s arguments spoiled by `spoil`; every rank
 * must fail, no store left open, and rank `bad`'s message must contain
 * `why`. */
enum { SIZE0, NEWER, NULL_PATH, NULL_STORE };

static void open_spoiled(const char* path, int rank, int bad, int spoil, const char* why) {
  cairn_options_t o;
  cairn_options_init(&o);
  o.staging_bytes = 1 << 20; /* not the default: a refused struct's defaults differ */
  const char* p = path;
  cairn_store_t* s = NULL;
  cairn_store_t** out = &s;
  if (rank == bad) {
    if (spoil == SIZE0) o.struct_size = 0;
    if (spoil == NEWER) o.struct_size = sizeof o + 8;
    if (spoil == NULL_PATH) p = NULL;
    if (spoil == NULL_STORE) out = NULL;
  }
  int rc = cairn_open(p, MPI_COMM_WORLD, &o, out);
  CHECK(rc == CAIRN_INVALID_ARGUMENT);
  CHECK(s == NULL);
  /* Every rank names the refusing rank and its cause (the others said
   * "write_buffer_size" before: the option it took part with). */
  CHECK(strstr(cairn_last_error(), why) != NULL);
  if (rank != bad) {
    char who[64];
    snprintf(who, sizeof who, "InvalidArgument: rank %d: ", bad);
    CHECK(strncmp(cairn_last_error(), who, strlen(who)) == 0);
    /* the code once, not again after the rank ("rank 1: InvalidArgument: ...") */
    CHECK(strstr(cairn_last_error() + strlen(who), "InvalidArgument") == NULL);
  }
  if (s) cairn_close(s);
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  alarm(60); /* a rank left in a collective: the job fails instead of hanging */
  char dir[256];
  capi_test_dir("one-rank-args", dir, rank);
  char path[300];
  snprintf(path, sizeof path, "%s/store", dir);

  for (int bad = size - 1; bad >= 0; bad = bad ? 0 : -1) { /* the last rank, then rank 0 */
    open_spoiled(path, rank, bad, SIZE0, "cairn_options_init");
    open_spoiled(path, rank, bad, NEWER, "newer cairn.h");
    open_spoiled(path, rank, bad, NULL_PATH, "NULL");
    open_spoiled(path, rank, bad, NULL_STORE, "NULL");
  }
  /* A wrapper's own refusal on the last rank (cairn_open_refused): every
   * rank fails with its cause, the others naming that rank. */
  {
    cairn_options_t o;
    cairn_options_init(&o);
    cairn_store_t* s = NULL;
    int rc = rank == size - 1 ? cairn_open_refused(path, MPI_COMM_WORLD, "the wrapper's cause", 30.0)
                              : cairn_open(path, MPI_COMM_WORLD, &o, &s);
    CHECK(rc == CAIRN_INVALID_ARGUMENT && s == NULL);
    CHECK(strstr(cairn_last_error(), "the wrapper's cause") != NULL);
    char who[64];
    snprintf(who, sizeof who, "InvalidArgument: rank %d: the wrapper's cause", size - 1);
    if (rank != size - 1) CHECK(strcmp(cairn_last_error(), who) == 0);
  }
  CHECK(access(path, F_OK) != 0); /* no store was made */
  /* The store still opens and works after those. */
  cairn_options_t o;
  cairn_options_init(&o);
  o.staging_bytes = 1 << 20;
  cairn_store_t* s = NULL;
  CHECK(cairn_open(path, MPI_COMM_WORLD, &o, &s) == CAIRN_OK && s != NULL);
  if (!s) MPI_Abort(MPI_COMM_WORLD, 2);

  /* cairn_commit_async with a NULL handle on the last rank: that rank
   * takes part (the commit is made, and waited for) and says its handle
   * was NULL; the others get their commit. */
  CHECK(cairn_put(s, "k", "value", 5, NULL, 0) == CAIRN_OK);
  cairn_async_t* h = NULL;
  int rc = cairn_commit_async(s, rank == size - 1 ? NULL : &h);
  if (rank == size - 1) {
    CHECK(rc == CAIRN_INVALID_ARGUMENT && h == NULL);
    CHECK(strstr(cairn_last_error(), "NULL") != NULL);
  } else {
    CHECK(rc == CAIRN_OK && h != NULL);
    uint64_t rev = 0;
    CHECK(h && cairn_async_wait(h, &rev) == CAIRN_OK && rev == 1);
    cairn_async_free(h);
  }
  /* cairn_query_all with a NULL condition array on the last rank: every
   * rank fails and no rank gets hits. The last rank once took part with no
   * conditions, which match every key: the others got its keys (here
   * "plain", with no tag at all) as OK hits (a review of this pass). */
  CHECK(cairn_put(s, "plain", "x", 1, NULL, 0) == CAIRN_OK);
  {
    cairn_query_t q;
    memset(&q, 0, sizeof q);
    q.name = "step";
    q.op = CAIRN_QUERY_EQUAL;
    q.value.type = CAIRN_TAG_INT32;
    q.value.i = 1;
    cairn_hit_t* hits = NULL;
    size_t nhits = 7;
    int qrc = cairn_query_all(s, rank == size - 1 ? NULL : &q, 1, &hits, &nhits);
    if (size > 1 || rank == size - 1) {
      CHECK(qrc == CAIRN_INVALID_ARGUMENT);
      CHECK(strstr(cairn_last_error(), "cairn_query_all: NULL argument") != NULL);
      if (rank != size - 1) CHECK(hits == NULL && nhits == 0);
    }
    if (qrc == CAIRN_OK) cairn_free(hits);
  }
  /* cairn_query_all with another value on the last rank: each rank answered
   * its own conditions and the union came back as OK; now every rank fails,
   * told rank 0's conditions and the last rank's. */
  {
    cairn_query_t q;
    memset(&q, 0, sizeof q);
    q.name = "step";
    q.op = CAIRN_QUERY_EQUAL;
    q.value.type = CAIRN_TAG_INT32;
    q.value.i = rank == size - 1 ? 2 : 1;
    cairn_hit_t* hits = NULL;
    size_t nhits = 7;
    int qrc = cairn_query_all(s, &q, 1, &hits, &nhits);
    if (size > 1) {
      CHECK(qrc == CAIRN_INVALID_ARGUMENT);
      CHECK(strstr(cairn_last_error(), "differ from rank 0's") != NULL);
      CHECK(hits == NULL && nhits == 0);
    }
    if (qrc == CAIRN_OK) cairn_free(hits);
  }
  /* The next collective calls line up. */
  uint64_t rev = 0;
  CHECK(cairn_put(s, "k", "again", 5, NULL, 0) == CAIRN_OK);
  CHECK(cairn_commit(s, &rev) == CAIRN_OK && rev == 2);
  CHECK(cairn_close(s) == CAIRN_OK);
  return capi_test_finish("capi_one_rank_args_test", dir, rank);
}
