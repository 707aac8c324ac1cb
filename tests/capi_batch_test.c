/* The C API's batch and tag-edit calls under mpiexec (1, 2 and 4 ranks):
 * cairn_multi_get of many values of the caller's and another rank's
 * namespace into caller buffers (a too-small buffer, a missing key and a
 * NULL key each reported per read), cairn_set_tags replacing every tag,
 * cairn_delete_tag, and cairn_put_zero_copy with staging and an
 * asynchronous commit; every value and tag read back after a reopen; the
 * read options of cairn_multi_get_opts (read requests counted by
 * cairn_stats).
 * Exits non-zero on any rank's failure. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cairn/cairn.h"
#include "capi_check.h"

enum { NVALUES = 64 };

/* Value i of `rank`: i * 97 + 1 bytes of a pattern that differs per rank. */
static size_t value_size(int i) { return (size_t)i * 97 + 1; }
static unsigned char value_byte(int rank, int i, size_t j) {
  return (unsigned char)(j * 13 + (size_t)i * 7 + (size_t)rank * 101);
}
static void fill_value(unsigned char* buf, int rank, int i) {
  for (size_t j = 0; j < value_size(i); j++) buf[j] = value_byte(rank, i, j);
}
static int value_ok(const unsigned char* buf, int rank, int i) {
  for (size_t j = 0; j < value_size(i); j++)
    if (buf[j] != value_byte(rank, i, j)) return 0;
  return 1;
}

/* Reads every value of `rank` in one cairn_multi_get and checks them. */
static void check_values(cairn_store_t* s, int rank) {
  cairn_read_t reads[NVALUES];
  char keys[NVALUES][16];
  unsigned char* bufs[NVALUES];
  for (int i = 0; i < NVALUES; i++) {
    snprintf(keys[i], sizeof keys[i], "v%02d", i);
    bufs[i] = malloc(value_size(i));
    memset(bufs[i], 0xEE, value_size(i));
    reads[i].key = keys[i];
    reads[i].data = bufs[i];
    reads[i].capacity = value_size(i);
    reads[i].size = 0;
    reads[i].code = 99;
  }
  CHECK(cairn_multi_get(s, rank, reads, NVALUES) == CAIRN_OK);
  for (int i = 0; i < NVALUES; i++) {
    CHECK(reads[i].code == CAIRN_OK && reads[i].size == value_size(i));
    CHECK(value_ok(bufs[i], rank, i));
    free(bufs[i]);
  }
}

/* The read requests (cairn_stats) one cairn_multi_get_opts of every value
 * of `rank` makes with opts (NULL: the defaults); -1 if a read failed. */
static long requests_of(cairn_store_t* s, int rank, const cairn_read_options_t* opts) {
  cairn_read_t reads[NVALUES];
  char keys[NVALUES][16];
  unsigned char* bufs[NVALUES];
  for (int i = 0; i < NVALUES; i++) {
    snprintf(keys[i], sizeof keys[i], "v%02d", i);
    bufs[i] = malloc(value_size(i));
    reads[i].key = keys[i];
    reads[i].data = bufs[i];
    reads[i].capacity = value_size(i);
  }
  cairn_io_stats_t a, b;
  CHECK(cairn_stats(s, &a, sizeof a) == CAIRN_OK);
  int rc = cairn_multi_get_opts(s, rank, reads, NVALUES, opts);
  CHECK(cairn_stats(s, &b, sizeof b) == CAIRN_OK);
  int ok = rc == CAIRN_OK;
  for (int i = 0; i < NVALUES; i++) {
    ok = ok && reads[i].code == CAIRN_OK && value_ok(bufs[i], rank, i);
    free(bufs[i]);
  }
  return ok ? (long)(b.read_requests - a.read_requests) : -1;
}

/* cairn_multi_get_opts: the values past the inline limit lie one after
 * another in the data file; by default they are read in one or two
 * requests, with max_block = 4096 in one or more each (values 22..63 of
 * up to 6 KiB). A struct not filled by cairn_read_options_init is refused
 * for every read. */
static void check_read_options(cairn_store_t* s, int rank) {
  cairn_read_options_t ro;
  cairn_read_options_init(&ro);
  CHECK(ro.struct_size == sizeof ro && ro.gap_limit == 4u << 20 && ro.max_block == 64u << 20 &&
        ro.max_read_amplification == 2.0);
  long merged = requests_of(s, rank, NULL);
  long same = requests_of(s, rank, &ro);
  ro.max_block = 4096;
  long split = requests_of(s, rank, &ro);
  CHECK(merged >= 1 && merged <= 4 && same == merged);
  CHECK(split >= 40);
  if (rank == 0) printf("capi_batch_test: multi_get read requests: %ld by default, %ld with max_block 4096\n", merged, split);
  cairn_read_options_t bad;
  memset(&bad, 0, sizeof bad);
  cairn_read_t rd = {"v00", NULL, 0, 7, 7};
  CHECK(cairn_multi_get_opts(s, rank, &rd, 1, &bad) == CAIRN_INVALID_ARGUMENT && rd.code == CAIRN_INVALID_ARGUMENT);
  CHECK(strstr(cairn_last_error(), "cairn_read_options_init") != NULL);
}

/* Per-read errors: a buffer one byte short (nothing written to it), a
 * missing key, and the good reads beside them still delivered. */
static void check_errors(cairn_store_t* s) {
  unsigned char small[40], good[98], none[8];
  memset(small, 0x5A, sizeof small);
  cairn_read_t reads[3] = {{"v00", good, 1, 0, 99}, {"v01", small, sizeof small, 0, 99},
                           {"absent", none, sizeof none, 0, 99}};
  reads[0].capacity = value_size(0);
  int rank = cairn_rank(s);
  int rc = cairn_multi_get(s, CAIRN_RANK_OWN, reads, 3);
  CHECK(rc == CAIRN_INVALID_ARGUMENT); /* the first error of the three */
  CHECK(strstr(cairn_last_error(), "v01") != NULL);
  CHECK(reads[0].code == CAIRN_OK && reads[0].size == value_size(0) && value_ok(good, rank, 0));
  CHECK(reads[1].code == CAIRN_INVALID_ARGUMENT && reads[1].size == value_size(1));
  int untouched = 1;
  for (size_t j = 0; j < sizeof small; j++) untouched &= small[j] == 0x5A;
  CHECK(untouched);
  CHECK(reads[2].code == CAIRN_NOT_FOUND);
  /* Bad arguments are refused before anything is read, with every read's
   * code set. */
  cairn_read_t nokey[2] = {{"v00", good, sizeof good, 7, 99}, {NULL, none, sizeof none, 7, 99}};
  CHECK(cairn_multi_get(s, CAIRN_RANK_OWN, nokey, 2) == CAIRN_INVALID_ARGUMENT);
  CHECK(nokey[0].code == CAIRN_INVALID_ARGUMENT && nokey[1].code == CAIRN_INVALID_ARGUMENT && nokey[0].size == 0);
  /* Buffers that share bytes: refused, nothing written (read in place,
   * they would overwrite each other and an intact value read as corrupt). */
  unsigned char arena[300];
  memset(arena, 0x77, sizeof arena);
  cairn_read_t overlap[2] = {{"v01", arena, 98, 0, 99}, {"v02", arena + 97, 195, 0, 99}};
  CHECK(cairn_multi_get(s, CAIRN_RANK_OWN, overlap, 2) == CAIRN_INVALID_ARGUMENT);
  CHECK(strstr(cairn_last_error(), "overlap") != NULL);
  CHECK(overlap[0].code == CAIRN_INVALID_ARGUMENT && overlap[1].code == CAIRN_INVALID_ARGUMENT);
  untouched = 1;
  for (size_t j = 0; j < sizeof arena; j++) untouched &= arena[j] == 0x77;
  CHECK(untouched);
  /* Back to back is fine. */
  overlap[1].data = arena + 98;
  CHECK(cairn_multi_get(s, CAIRN_RANK_OWN, overlap, 2) == CAIRN_OK);
  CHECK(value_ok(arena, rank, 1) && value_ok(arena + 98, rank, 2));
  CHECK(cairn_multi_get(s, CAIRN_RANK_OWN, NULL, 1) == CAIRN_INVALID_ARGUMENT);
  CHECK(cairn_multi_get(s, CAIRN_RANK_OWN, NULL, 0) == CAIRN_OK);
  CHECK(cairn_multi_get(s, 1 << 20, reads, 1) == CAIRN_INVALID_ARGUMENT); /* no such namespace */
}

/* The tags of "v00" must be exactly {step: want_step, unit: "K"} if
 * want_unit, else {step} alone. */
static void check_tags(cairn_store_t* s, int rank, int64_t want_step, int want_unit) {
  cairn_tag_t* tags = NULL;
  size_t n = 99;
  CHECK(cairn_get_tags(s, "v00", rank, &tags, &n) == CAIRN_OK);
  CHECK(n == (size_t)(want_unit ? 2 : 1));
  int seen_step = 0, seen_unit = 0;
  for (size_t i = 0; tags && i < n; i++) {
    if (strcmp(tags[i].name, "step") == 0)
      seen_step = tags[i].type == CAIRN_TAG_INT64 && tags[i].i == want_step;
    if (strcmp(tags[i].name, "unit") == 0)
      seen_unit = tags[i].type == CAIRN_TAG_STRING && tags[i].len == 1 && memcmp(tags[i].data, "K", 1) == 0;
  }
  CHECK(seen_step && seen_unit == want_unit);
  cairn_free(tags);
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  char dir[256];
  capi_test_dir("capi-batch", dir, rank);
  char path[300];
  snprintf(path, sizeof path, "%s/store", dir);

  cairn_options_t o;
  /* An options struct not filled by cairn_options_init, or from a newer
   * header than the library, is refused (every rank alike, before any
   * collective step), and no store is made. */
  memset(&o, 0, sizeof o);
  cairn_store_t* s = NULL;
  CHECK(cairn_open(path, MPI_COMM_WORLD, &o, &s) == CAIRN_INVALID_ARGUMENT && s == NULL);
  CHECK(strstr(cairn_last_error(), "cairn_options_init") != NULL);
  cairn_options_init(&o);
  CHECK(o.struct_size == sizeof o);
  o.struct_size = sizeof o + 8;
  CHECK(cairn_open(path, MPI_COMM_WORLD, &o, &s) == CAIRN_INVALID_ARGUMENT && s == NULL);
  CHECK(strstr(cairn_last_error(), "newer cairn.h") != NULL);
  CHECK(access(path, F_OK) != 0);
  cairn_options_init(&o);
  o.staging_bytes = 1 << 20; /* so cairn_put_zero_copy really does not copy */
  CHECK(cairn_open(path, MPI_COMM_WORLD, &o, &s) == CAIRN_OK);
  /* The same for the array put options. */
  cairn_array_put_options_t po;
  memset(&po, 0, sizeof po);
  uint64_t shape = 4, start = 0, count = 4;
  double four[4] = {1, 2, 3, 4};
  CHECK(cairn_put_array_opts(s, "a", CAIRN_FLOAT64, 1, &shape, &start, &count, four, &po, NULL, 0) ==
        CAIRN_INVALID_ARGUMENT);
  CHECK(strstr(cairn_last_error(), "cairn_array_put_options_init") != NULL);
  cairn_array_put_options_init(&po);
  CHECK(po.struct_size == sizeof po);

  /* Values put without a copy, held until the asynchronous commit ends. */
  unsigned char* held[NVALUES];
  cairn_tag_t three[3] = {{"step", CAIRN_TAG_INT64, 1, 0, 0, NULL, 0},
                          {"unit", CAIRN_TAG_STRING, 0, 0, 0, "K", 1},
                          {"old", CAIRN_TAG_FLOAT64, 0, 0, 2.5, NULL, 0}};
  for (int i = 0; i < NVALUES; i++) {
    char key[16];
    snprintf(key, sizeof key, "v%02d", i);
    held[i] = malloc(value_size(i));
    fill_value(held[i], rank, i);
    CHECK(cairn_put_zero_copy(s, key, held[i], value_size(i), i == 0 ? three : NULL, i == 0 ? 3 : 0) == CAIRN_OK);
  }
  CHECK(cairn_put_zero_copy(s, NULL, held[0], 1, NULL, 0) == CAIRN_INVALID_ARGUMENT);
  cairn_tag_t noname = {NULL, CAIRN_TAG_INT8, 0, 0, 0, NULL, 0};
  CHECK(cairn_put_zero_copy(s, "bad", held[0], 1, &noname, 1) == CAIRN_INVALID_ARGUMENT);
  cairn_async_t* h = NULL;
  uint64_t rev = 0;
  CHECK(cairn_commit_async(s, &h) == CAIRN_OK);
  if (h) CHECK(cairn_async_wait(h, &rev) == CAIRN_OK && rev == 1);
  cairn_async_free(h);
  for (int i = 0; i < NVALUES; i++) free(held[i]);
  check_values(s, rank);
  check_values(s, (rank + 1) % size);
  check_errors(s);

  /* Replace every tag of v00 with two, then delete one; each edit is a
   * revision of its own, and the value is not rewritten. */
  cairn_tag_t two[2] = {{"step", CAIRN_TAG_INT64, 7, 0, 0, NULL, 0}, {"unit", CAIRN_TAG_STRING, 0, 0, 0, "K", 1}};
  CHECK(cairn_set_tags(s, "v00", two, 2) == CAIRN_OK);
  CHECK(cairn_set_tags(s, "absent", two, 2) == CAIRN_NOT_FOUND);
  CHECK(cairn_set_tags(s, "v00", NULL, 2) == CAIRN_INVALID_ARGUMENT);
  CHECK(cairn_set_tags(s, "v00", &noname, 1) == CAIRN_INVALID_ARGUMENT);
  CHECK(cairn_commit(s, &rev) == CAIRN_OK && rev == 2);
  check_tags(s, CAIRN_RANK_OWN, 7, 1);
  CHECK(cairn_delete_tag(s, "v00", "unit") == CAIRN_OK);
  CHECK(cairn_delete_tag(s, "v00", "unit") == CAIRN_NOT_FOUND);
  CHECK(cairn_delete_tag(s, "absent", "unit") == CAIRN_NOT_FOUND);
  CHECK(cairn_delete_tag(s, "v00", NULL) == CAIRN_INVALID_ARGUMENT);
  CHECK(cairn_commit(s, &rev) == CAIRN_OK && rev == 3);
  CHECK(cairn_close(s) == CAIRN_OK);

  /* Reopen read-only: values and tags as committed, the tag edits of one
   * revision visible at that revision only. */
  o.read_only = 1;
  o.create_if_missing = 0;
  s = NULL;
  CHECK(cairn_open(path, MPI_COMM_WORLD, &o, &s) == CAIRN_OK);
  check_values(s, rank);
  check_read_options(s, rank);
  check_tags(s, (rank + size - 1) % size, 7, 0);
  CHECK(cairn_delete_tag(s, "v00", "step") == CAIRN_INVALID_ARGUMENT); /* read-only */
  CHECK(cairn_close(s) == CAIRN_OK);
  o.revision = 2;
  s = NULL;
  CHECK(cairn_open(path, MPI_COMM_WORLD, &o, &s) == CAIRN_OK);
  check_tags(s, CAIRN_RANK_OWN, 7, 1);
  check_values(s, rank);
  CHECK(cairn_close(s) == CAIRN_OK);
  return capi_test_finish("capi_batch_test", dir, rank);
}
