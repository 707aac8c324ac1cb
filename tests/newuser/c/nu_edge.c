/* Edge cases a user meets sooner or later, through the C API, any rank count:
 * nu_edge STORE_DIR (fresh). Rollback to an older revision, streams that
 * outlive their store, empty values, key and name limits, string range and
 * array-equal queries, a second writer, array dtype disagreement between
 * ranks, 16 dimensions, async handles, collective errors. */
#include <stdint.h>

#include "nu_check.h"

static int me, np;

static void test_limits(cairn_store_t* st) {
  /* empty values */
  OK(cairn_put(st, "empty", "", 0, NULL, 0));
  uint64_t size = 99;
  char c;
  OK(cairn_get(st, "empty", -1, &c, 0, &size));
  CHECK(size == 0, "empty size %llu", (unsigned long long)size);
  OK(cairn_get_range(st, "empty", -1, 0, &c, 0));
  /* key of 65535 bytes is fine, 65536 is not */
  char* key = malloc(65537);
  memset(key, 'k', 65536);
  key[65535] = 0;
  OK(cairn_put(st, key, "v", 1, NULL, 0));
  key[65535] = 'k';
  key[65536] = 0;
  CODE(cairn_put(st, key, "v", 1, NULL, 0), CAIRN_INVALID_ARGUMENT);
  /* tag name of 65536 bytes */
  cairn_tag_t t = {.name = key, .type = CAIRN_TAG_INT64, .i = 1};
  CODE(cairn_set_tag(st, "empty", &t), CAIRN_INVALID_ARGUMENT);
  free(key);
  /* string ranges and array equality in queries */
  cairn_tag_t s1 = {.name = "name", .type = CAIRN_TAG_STRING, .data = "beta", .len = 4};
  int32_t arr[2] = {4, 5};
  cairn_tag_t a1 = {.name = "shape", .type = CAIRN_TAG_ARRAY | CAIRN_TAG_INT32, .data = arr, .len = 8};
  cairn_tag_t both[2] = {s1, a1};
  OK(cairn_put(st, "q", "v", 1, both, 2));
  cairn_query_t q;
  memset(&q, 0, sizeof q);
  q.name = "name";
  q.op = CAIRN_QUERY_RANGE;
  q.value = (cairn_tag_t){.type = CAIRN_TAG_STRING, .data = "alpha", .len = 5};
  q.upper = (cairn_tag_t){.type = CAIRN_TAG_STRING, .data = "gamma", .len = 5};
  cairn_hit_t* hits = NULL;
  size_t nh = 0;
  OK(cairn_query(st, &q, 1, -1, &hits, &nh));
  CHECK(nh == 1, "string range: %zu hits", nh);
  cairn_free(hits);
  memset(&q, 0, sizeof q);
  q.name = "shape";
  q.op = CAIRN_QUERY_EQUAL;
  q.value = a1;
  OK(cairn_query(st, &q, 1, -1, &hits, &nh));
  CHECK(nh == 1, "array equal: %zu hits", nh);
  cairn_free(hits);
  int64_t arr64[2] = {4, 5};
  q.value = (cairn_tag_t){.type = CAIRN_TAG_ARRAY | CAIRN_TAG_INT64, .data = arr64, .len = 16};
  OK(cairn_query(st, &q, 1, -1, &hits, &nh));
  CHECK(nh == 0, "array equal of another type: %zu hits (documented: same type only)", nh);
  cairn_free(hits);
}

static void test_arrays(cairn_store_t* st) {
  /* 16 dimensions of extent 1 or 2, and 17 refused */
  uint64_t shape[17], start[17], count[17];
  for (int d = 0; d < 17; d++) {
    shape[d] = d < 2 ? 2 : 1;
    start[d] = 0;
    count[d] = shape[d];
  }
  double v[4] = {1, 2, 3, 4};
  if (me == 0) OK(cairn_put_array(st, "d16", CAIRN_FLOAT64, 16, shape, start, count, v, 0, NULL, 0));
  CODE(cairn_put_array(st, "d17", CAIRN_FLOAT64, 17, shape, start, count, v, 0, NULL, 0), CAIRN_INVALID_ARGUMENT);
  /* a name of 4097 bytes refused */
  char* name = malloc(4098);
  memset(name, 'n', 4097);
  name[4097] = 0;
  CODE(cairn_put_array(st, name, CAIRN_FLOAT64, 1, shape, start, count, v, 0, NULL, 0), CAIRN_INVALID_ARGUMENT);
  free(name);
}

int main(int argc, char** argv) {
  int prov;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &prov);
  MPI_Comm_rank(MPI_COMM_WORLD, &me);
  MPI_Comm_size(MPI_COMM_WORLD, &np);
  nu_rank = me;
  const char* dir = argv[1];
  cairn_store_t* st = NULL;
  cairn_options_t to;
  cairn_options_init(&to);
  to.collective_timeout_s = 60; /* a collective some rank misses aborts the job instead of hanging */
  OK(cairn_open(dir, MPI_COMM_WORLD, &to, &st));
  if (!st) return 1;
  test_limits(st);
  test_arrays(st);
  uint64_t rev = 0;
  OK(cairn_commit(st, &rev));
  double got[4] = {0};
  uint64_t s16[16] = {0}, c16[16];
  for (int d = 0; d < 16; d++) c16[d] = d < 2 ? 2 : 1;
  OK(cairn_get_array(st, "d16", 16, s16, c16, got, sizeof got, 0));
  CHECK(got[0] == 1 && got[3] == 4, "16-d array");

  /* ranks disagree on an array's dtype: the commit fails on every rank */
  if (np > 1) {
    const uint64_t sh[1] = {8}, s0[1] = {(uint64_t)me}, c1[1] = {1};
    double d = me;
    float f = (float)me;
    if (me == 0) OK(cairn_put_array(st, "mixed", CAIRN_FLOAT32, 1, sh, s0, c1, &f, 0, NULL, 0));
    else OK(cairn_put_array(st, "mixed", CAIRN_FLOAT64, 1, sh, s0, c1, &d, 0, NULL, 0));
    CODE(cairn_commit(st, &rev), CAIRN_INVALID_ARGUMENT);
    CHECK(strstr(cairn_last_error(), "mixed") != NULL, "names the array: %s", cairn_last_error());
  }

  /* a collective read of a missing shared object fails on every rank */
  char buf[16];
  uint64_t size = 0;
  CODE(cairn_get_shared(st, "no-such-shared", buf, sizeof buf, &size), CAIRN_NOT_FOUND);

  /* collective calls with bad arguments on one rank only: that rank reports
   * them, the others finish (cairn.h: every rank takes part) */
  {
    cairn_query_t q;
    memset(&q, 0, sizeof q);
    q.name = "name";
    cairn_hit_t* hits = NULL;
    size_t nh = 0;
    if (me == 0) CODE(cairn_query_all(st, NULL, 1, &hits, &nh), CAIRN_INVALID_ARGUMENT);
    else OK(cairn_query_all(st, &q, 1, &hits, &nh));
    cairn_free(hits);
    if (me == 0) OK(cairn_put_shared(st, "cfg", "abc", 3));
    OK(cairn_commit(st, &rev));
    if (np > 1 && me == np - 1) CODE(cairn_get_shared(st, "cfg", NULL, 8, &size), CAIRN_INVALID_ARGUMENT);
    else OK(cairn_get_shared(st, "cfg", buf, sizeof buf, &size));
    if (me == 0) CODE(cairn_pin(st, 999), CAIRN_NOT_FOUND);
    else CODE(cairn_pin(st, 999), CAIRN_NOT_FOUND);
  }

  /* a second writer (another handle, same job) is refused with the holder's name */
  cairn_store_t* second = NULL;
  int rc = cairn_open(dir, MPI_COMM_WORLD, NULL, &second);
  CHECK(rc == CAIRN_IO_ERROR, "second writer: %s", cairn_code_name(rc));
  if (second) cairn_close(second);

  /* async: wait twice gives the same outcome; close waits for a commit in flight */
  OK(cairn_put(st, "r2", "2", 1, NULL, 0));
  cairn_async_t* h = NULL;
  OK(cairn_commit_async(st, &h));
  uint64_t r1 = 0, r2 = 0;
  OK(cairn_async_wait(h, &r1));
  OK(cairn_async_wait(h, &r2));
  CHECK(r1 == 3 && r1 == r2, "wait twice %llu %llu", (unsigned long long)r1, (unsigned long long)r2);
  cairn_async_free(h);
  OK(cairn_put(st, "r3", "3", 1, NULL, 0));
  OK(cairn_commit_async(st, &h));
  cairn_async_free(h); /* the commit goes on; close waits for it */

  /* a stream that outlives its store */
  cairn_stream_t* w = NULL;
  OK(cairn_stream_open_write(st, "orphan", NULL, 0, &w));
  OK(cairn_stream_write(w, "abc", 3));
  OK(cairn_close(st));
  st = NULL;
  CODE(cairn_stream_write(w, "d", 1), CAIRN_INVALID_ARGUMENT);
  CHECK(strstr(cairn_last_error(), "closed") != NULL, "says closed: %s", cairn_last_error());
  CODE(cairn_stream_close(w), CAIRN_INVALID_ARGUMENT);

  /* reopen: revision 3 (the async commit close waited for); no orphan */
  OK(cairn_open(dir, MPI_COMM_WORLD, NULL, &st));
  if (st) {
    CHECK(cairn_revision(st) == 4, "after close: revision %llu", (unsigned long long)cairn_revision(st));
    CODE(cairn_get_size(st, "orphan", -1, &size), CAIRN_NOT_FOUND);
    OK(cairn_close(st));
  }
  /* rollback: open revision 1 read-write; the next commit's parent is 1 */
  cairn_options_t o;
  cairn_options_init(&o);
  o.revision = 1;
  OK(cairn_open(dir, MPI_COMM_WORLD, &o, &st));
  if (st) {
    CODE(cairn_get_size(st, "r2", -1, &size), CAIRN_NOT_FOUND);
    OK(cairn_put(st, "after-rollback", "x", 1, NULL, 0));
    OK(cairn_commit(st, &rev));
    CHECK(rev == 5, "rollback commit %llu", (unsigned long long)rev);
    cairn_revision_info_t* revs = NULL;
    size_t nr = 0;
    OK(cairn_list_revisions(st, &revs, &nr));
    CHECK(nr == 5 && revs[4].parent == 1, "parent of the rollback commit %llu",
          nr == 5 ? (unsigned long long)revs[4].parent : 0ull);
    cairn_free(revs);
    CODE(cairn_get_size(st, "r2", -1, &size), CAIRN_NOT_FOUND);
    OK(cairn_close(st));
  }
  int fails = nu_finish("nu_edge");
  MPI_Finalize();
  return fails;
}
