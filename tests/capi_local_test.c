/* cairn_open_local: the C API in one process that never initializes MPI
 * (a serial tool or test). Creates a store, puts a value and a stream,
 * commits, reopens read-only and reads them back, and checks that MPI was
 * never initialized. Exits non-zero on a failure. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cairn/cairn.h"

/* The structs that cannot grow (cairn.h, "Structs across versions"): a
 * member added to one breaks every program built against an older cairn.h
 * that steps through an array of them. Their sizes on LP64 as released;
 * if one of these fails, add a new struct and a new function instead. */
#if defined(__LP64__)
_Static_assert(sizeof(cairn_tag_t) == 56, "cairn_tag_t cannot grow");
_Static_assert(sizeof(cairn_read_t) == 40, "cairn_read_t cannot grow");
_Static_assert(sizeof(cairn_object_t) == 48, "cairn_object_t cannot grow");
_Static_assert(sizeof(cairn_query_t) == 128, "cairn_query_t cannot grow");
_Static_assert(sizeof(cairn_hit_t) == 24, "cairn_hit_t cannot grow");
_Static_assert(sizeof(cairn_revision_info_t) == 64, "cairn_revision_info_t cannot grow");
_Static_assert(sizeof(cairn_array_block_t) == 24, "cairn_array_block_t cannot grow");
_Static_assert(sizeof(cairn_array_info_t) == 80, "cairn_array_info_t cannot grow");
_Static_assert(sizeof(cairn_array_block_info_t) == 48, "cairn_array_block_info_t cannot grow");
_Static_assert(sizeof(cairn_name_t) == 16, "cairn_name_t cannot grow");
#endif
/* The counter structs filled by size grow by whole uint64_t members. */
_Static_assert(sizeof(cairn_io_stats_t) % 8 == 0, "cairn_io_stats_t: uint64_t members only");
_Static_assert(sizeof(cairn_array_read_stats_t) % 8 == 0, "cairn_array_read_stats_t: uint64_t members only");

static int failures = 0;
#define CHECK(cond)                                                                              \
  do {                                                                                           \
    if (!(cond)) {                                                                               \
      fprintf(stderr, "%s:%d: %s failed (%s)\n", __FILE__, __LINE__, #cond, cairn_last_error()); \
      failures++;                                                                                \
    }                                                                                            \
  } while (0)

int main(void) {
  const char* base = getenv("TMPDIR");
  char dir[256], path[300], cmd[400];
  snprintf(dir, sizeof dir, "%s/cairn-local-XXXXXX", base ? base : "/tmp");
  if (!mkdtemp(dir)) return 2;
  snprintf(path, sizeof path, "%s/store", dir);

  cairn_options_t o;
  cairn_options_init(&o);
  cairn_store_t* s = NULL;
  CHECK(cairn_open_local(path, &o, &s) == CAIRN_OK && s);
  CHECK(cairn_rank(s) == 0 && cairn_size(s) == 1);
  CHECK(cairn_put(s, "k", "value", 5, NULL, 0) == CAIRN_OK);
  /* A number in a member its tag type does not read (a uint32 given in i,
   * a float in i) is refused naming the member; it was stored as 0, and a
   * query condition so given compared with 0. What cairn_get_tag gives
   * back (i and u the same bits, d the value) goes back in as it is. */
  {
    cairn_tag_t tu = {.name = "n", .type = CAIRN_TAG_UINT32, .i = 5};
    CHECK(cairn_put(s, "t", "v", 1, &tu, 1) == CAIRN_INVALID_ARGUMENT &&
          strstr(cairn_last_error(), "member u") != NULL);
    cairn_tag_t ti = {.name = "n", .type = CAIRN_TAG_INT16, .u = 7};
    CHECK(cairn_set_tags(s, "k", &ti, 1) == CAIRN_INVALID_ARGUMENT &&
          strstr(cairn_last_error(), "member i") != NULL);
    cairn_tag_t tf = {.name = "n", .type = CAIRN_TAG_FLOAT64, .i = 3};
    CHECK(cairn_set_tag(s, "k", &tf) == CAIRN_INVALID_ARGUMENT &&
          strstr(cairn_last_error(), "member d") != NULL);
    cairn_query_t q = {.name = "n", .op = CAIRN_QUERY_EQUAL, .value = {.type = CAIRN_TAG_UINT64, .i = 7}};
    cairn_hit_t* hits = NULL;
    size_t nh = 0;
    CHECK(cairn_query(s, &q, 1, CAIRN_RANK_OWN, &hits, &nh) == CAIRN_INVALID_ARGUMENT &&
          strstr(cairn_last_error(), "member u") != NULL);
    tu.u = 5;
    cairn_tag_t both[2] = {tu, {.name = "f", .type = CAIRN_TAG_FLOAT32, .d = 0.5}};
    CHECK(cairn_put(s, "t", "v", 1, both, 2) == CAIRN_OK);
    cairn_tag_t* got = NULL;
    size_t ng = 0;
    CHECK(cairn_get_tags(s, "t", CAIRN_RANK_OWN, &got, &ng) == CAIRN_OK && ng == 2 && got[0].u == 5);
    if (got && ng == 2) CHECK(cairn_set_tags(s, "t", got, ng) == CAIRN_OK);
    cairn_free(got);
    q.value.u = 5;
    CHECK(cairn_query(s, &q, 1, CAIRN_RANK_OWN, &hits, &nh) == CAIRN_OK && nh == 1);
    cairn_free(hits);
  }
  /* A condition no tag can meet is refused naming it (it matched nothing,
   * silently): a range from an int to a string, a prefix or wildcard
   * given an int. The same bounds of one kind are accepted. */
  {
    cairn_query_t q = {.name = "n",
                       .op = CAIRN_QUERY_RANGE,
                       .value = {.type = CAIRN_TAG_INT64, .i = 1},
                       .upper = {.type = CAIRN_TAG_STRING, .data = "z", .len = 1}};
    cairn_hit_t* hits = NULL;
    size_t nh = 0;
    CHECK(cairn_query(s, &q, 1, CAIRN_RANK_OWN, &hits, &nh) == CAIRN_INVALID_ARGUMENT &&
          strstr(cairn_last_error(), "condition 0 on 'n'") != NULL &&
          strstr(cairn_last_error(), "both numbers or both strings") != NULL);
    CHECK(cairn_query_all(s, &q, 1, &hits, &nh) == CAIRN_INVALID_ARGUMENT &&
          strstr(cairn_last_error(), "condition 0 on 'n'") != NULL);
    cairn_name_t* names = NULL;
    CHECK(cairn_query_arrays(s, &q, 1, &names, &nh) == CAIRN_INVALID_ARGUMENT &&
          strstr(cairn_last_error(), "condition 0 on 'n'") != NULL);
    q.upper = (cairn_tag_t){.type = CAIRN_TAG_UINT32, .u = 9};
    CHECK(cairn_query(s, &q, 1, CAIRN_RANK_OWN, &hits, &nh) == CAIRN_OK && nh == 1);
    cairn_free(hits);
    cairn_query_t p[2] = {{.name = "n", .op = CAIRN_QUERY_EXISTS},
                          {.name = "s", .op = CAIRN_QUERY_PREFIX, .value = {.type = CAIRN_TAG_INT32, .i = 5}}};
    CHECK(cairn_query(s, p, 2, CAIRN_RANK_OWN, &hits, &nh) == CAIRN_INVALID_ARGUMENT &&
          strstr(cairn_last_error(), "condition 1 on 's'") != NULL &&
          strstr(cairn_last_error(), "prefix") != NULL);
    p[1].op = CAIRN_QUERY_WILDCARD;
    CHECK(cairn_query(s, p, 2, CAIRN_RANK_OWN, &hits, &nh) == CAIRN_INVALID_ARGUMENT &&
          strstr(cairn_last_error(), "condition 1 on 's'") != NULL &&
          strstr(cairn_last_error(), "wildcard") != NULL);
  }
  /* A NULL store handle (never opened, or closed by the Fortran
   * cairn_close, which sets it to NULL) is named as such, not as "NULL
   * argument", by the functions of each part of the C API. */
  {
    const char* expect[] = {"cairn_put: NULL store handle", "cairn_get_array: NULL store handle",
                            "cairn_array_info: NULL store handle", "cairn_query: NULL store handle",
                            "cairn_commit: NULL store handle"};
    int rc[5];
    uint64_t x = 0;
    cairn_array_info_t* info = NULL;
    cairn_hit_t* hits = NULL;
    size_t nh = 0;
    const char* msg[5];
    char saved[5][200];
    rc[0] = cairn_put(NULL, "k", "v", 1, NULL, 0);
    snprintf(saved[0], sizeof saved[0], "%s", cairn_last_error());
    rc[1] = cairn_get_array(NULL, "a", 1, &x, &x, &x, sizeof x, 0);
    snprintf(saved[1], sizeof saved[1], "%s", cairn_last_error());
    rc[2] = cairn_array_info(NULL, "a", 0, &info);
    snprintf(saved[2], sizeof saved[2], "%s", cairn_last_error());
    rc[3] = cairn_query(NULL, NULL, 0, CAIRN_RANK_OWN, &hits, &nh);
    snprintf(saved[3], sizeof saved[3], "%s", cairn_last_error());
    rc[4] = cairn_commit(NULL, &x);
    snprintf(saved[4], sizeof saved[4], "%s", cairn_last_error());
    for (int i = 0; i < 5; i++) {
      msg[i] = saved[i];
      if (rc[i] != CAIRN_INVALID_ARGUMENT || !strstr(msg[i], expect[i]) || !strstr(msg[i], "closed")) {
        fprintf(stderr, "%s:%d: NULL store: rc %d, message '%s', expected '%s ... closed'\n", __FILE__,
                __LINE__, rc[i], msg[i], expect[i]);
        failures++;
      }
    }
  }
  cairn_stream_t* w = NULL;
  CHECK(cairn_stream_open_write(s, "log", NULL, 0, &w) == CAIRN_OK);
  CHECK(cairn_stream_write(w, "0123456789", 10) == CAIRN_OK);
  CHECK(cairn_stream_close(w) == CAIRN_OK);
  uint64_t rev = 0;
  CHECK(cairn_commit(s, &rev) == CAIRN_OK && rev == 1);
  CHECK(cairn_close(s) == CAIRN_OK);

  o.read_only = 1;
  s = NULL;
  CHECK(cairn_open_local(path, &o, &s) == CAIRN_OK && s && cairn_revision(s) == 1);
  char buf[16] = {0};
  uint64_t size = 0;
  CHECK(cairn_get(s, "k", CAIRN_RANK_OWN, buf, sizeof buf, &size) == CAIRN_OK && size == 5 &&
        memcmp(buf, "value", 5) == 0);
  cairn_stream_t* r = NULL;
  CHECK(cairn_stream_open_read(s, "log", CAIRN_RANK_OWN, &r) == CAIRN_OK);
  CHECK(cairn_stream_read_at(r, 3, buf, 4) == CAIRN_OK && memcmp(buf, "3456", 4) == 0);
  CHECK(cairn_stream_close(r) == CAIRN_OK);
  CHECK(cairn_put(s, "x", "y", 1, NULL, 0) == CAIRN_INVALID_ARGUMENT); /* read-only */
  CHECK(cairn_close(s) == CAIRN_OK);
  /* Bad arguments; a store that is not there (read-only: not created). */
  CHECK(cairn_open_local(NULL, NULL, &s) == CAIRN_INVALID_ARGUMENT);
  snprintf(path, sizeof path, "%s/absent", dir);
  CHECK(cairn_open_local(path, &o, &s) == CAIRN_NOT_FOUND && s == NULL);

  int init = 1;
  MPI_Initialized(&init);
  CHECK(init == 0);
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
  if (system(cmd) != 0) failures++;
  printf("capi_local_test: %s\n", failures ? "FAILED" : "passed");
  return failures != 0;
}
