/* A new user's tour of every feature of cairn's C API, on any number of
 * ranks: nu_all STORE_DIR (a path that does not exist yet).
 * Prints "nu_all: passed" (exit 0) or every failed check (exit 1). */
#include <math.h>
#include <stdint.h>
#include <unistd.h>

#include "nu_check.h"

static int me, np;

/* ---- tags of every type ---- */
static const int32_t ARR_I32[3] = {1, -2, 3};
static const double ARR_F64[2] = {0.5, -1.25};
static const uint16_t ARR_U16[4] = {7, 8, 9, 65535};
static const char BYTES[5] = {'a', 0, 'b', 0, 'c'};

static size_t all_tags(cairn_tag_t* t, int rank) {
  memset(t, 0, 17 * sizeof *t);
  t[0] = (cairn_tag_t){.name = "i8", .type = CAIRN_TAG_INT8, .i = -5};
  t[1] = (cairn_tag_t){.name = "i16", .type = CAIRN_TAG_INT16, .i = -30000};
  t[2] = (cairn_tag_t){.name = "i32", .type = CAIRN_TAG_INT32, .i = 42};
  t[3] = (cairn_tag_t){.name = "i64", .type = CAIRN_TAG_INT64, .i = -(INT64_C(1) << 40)};
  t[4] = (cairn_tag_t){.name = "u8", .type = CAIRN_TAG_UINT8, .u = 250};
  t[5] = (cairn_tag_t){.name = "u16", .type = CAIRN_TAG_UINT16, .u = 65000};
  t[6] = (cairn_tag_t){.name = "u32", .type = CAIRN_TAG_UINT32, .u = 4000000000u};
  t[7] = (cairn_tag_t){.name = "u64", .type = CAIRN_TAG_UINT64, .u = (UINT64_C(1) << 63) + 5};
  t[8] = (cairn_tag_t){.name = "f32", .type = CAIRN_TAG_FLOAT32, .d = 1.5};
  t[9] = (cairn_tag_t){.name = "f64", .type = CAIRN_TAG_FLOAT64, .d = 2.25};
  t[10] = (cairn_tag_t){.name = "str", .type = CAIRN_TAG_STRING, .data = "hello", .len = 5};
  t[11] = (cairn_tag_t){.name = "bytes", .type = CAIRN_TAG_BYTES, .data = BYTES, .len = 5};
  t[12] = (cairn_tag_t){.name = "ai32", .type = CAIRN_TAG_ARRAY | CAIRN_TAG_INT32, .data = ARR_I32,
                        .len = sizeof ARR_I32};
  t[13] = (cairn_tag_t){.name = "af64", .type = CAIRN_TAG_ARRAY | CAIRN_TAG_FLOAT64, .data = ARR_F64,
                        .len = sizeof ARR_F64};
  t[14] = (cairn_tag_t){.name = "au16", .type = CAIRN_TAG_ARRAY | CAIRN_TAG_UINT16, .data = ARR_U16,
                        .len = sizeof ARR_U16};
  t[15] = (cairn_tag_t){.name = "rank", .type = CAIRN_TAG_INT32, .i = rank};
  t[16] = (cairn_tag_t){.name = "kind", .type = CAIRN_TAG_STRING, .data = "field-a", .len = 7};
  return 17;
}

static const cairn_tag_t* find_tag(const cairn_tag_t* t, size_t n, const char* name) {
  for (size_t k = 0; k < n; k++)
    if (strcmp(t[k].name, name) == 0) return &t[k];
  return NULL;
}

static void check_all_tags(const cairn_tag_t* t, size_t n, int rank) {
  CHECK(n == 17, "%zu tags", n);
  const cairn_tag_t* x;
#define TAGI(nm, ty, v)                                                         \
  x = find_tag(t, n, nm);                                                       \
  CHECK(x && x->type == (ty) && x->i == (v), "tag %s", nm);
#define TAGU(nm, ty, v)                                                         \
  x = find_tag(t, n, nm);                                                       \
  CHECK(x && x->type == (ty) && x->u == (v), "tag %s", nm);
  TAGI("i8", CAIRN_TAG_INT8, -5);
  TAGI("i16", CAIRN_TAG_INT16, -30000);
  TAGI("i32", CAIRN_TAG_INT32, 42);
  TAGI("i64", CAIRN_TAG_INT64, -(INT64_C(1) << 40));
  TAGU("u8", CAIRN_TAG_UINT8, 250u);
  TAGU("u16", CAIRN_TAG_UINT16, 65000u);
  TAGU("u32", CAIRN_TAG_UINT32, 4000000000u);
  TAGU("u64", CAIRN_TAG_UINT64, (UINT64_C(1) << 63) + 5);
  TAGI("rank", CAIRN_TAG_INT32, rank);
  x = find_tag(t, n, "f32");
  CHECK(x && x->type == CAIRN_TAG_FLOAT32 && x->d == 1.5, "tag f32");
  x = find_tag(t, n, "f64");
  CHECK(x && x->type == CAIRN_TAG_FLOAT64 && x->d == 2.25, "tag f64");
  x = find_tag(t, n, "str");
  CHECK(x && x->type == CAIRN_TAG_STRING && x->len == 5 && memcmp(x->data, "hello", 6) == 0, "tag str");
  x = find_tag(t, n, "bytes");
  CHECK(x && x->type == CAIRN_TAG_BYTES && x->len == 5 && memcmp(x->data, BYTES, 5) == 0, "tag bytes");
  x = find_tag(t, n, "ai32");
  CHECK(x && x->type == (CAIRN_TAG_ARRAY | CAIRN_TAG_INT32) && x->len == sizeof ARR_I32 &&
            memcmp(x->data, ARR_I32, sizeof ARR_I32) == 0, "tag ai32");
  x = find_tag(t, n, "af64");
  CHECK(x && x->type == (CAIRN_TAG_ARRAY | CAIRN_TAG_FLOAT64) && x->len == sizeof ARR_F64 &&
            memcmp(x->data, ARR_F64, sizeof ARR_F64) == 0, "tag af64");
  x = find_tag(t, n, "au16");
  CHECK(x && x->type == (CAIRN_TAG_ARRAY | CAIRN_TAG_UINT16) && x->len == sizeof ARR_U16 &&
            memcmp(x->data, ARR_U16, sizeof ARR_U16) == 0, "tag au16");
}

/* The value of object "a" of `rank` at `version`. */
#define A_N 30000
static void fill_a(double* v, int rank, int version) {
  for (int k = 0; k < A_N; k++) v[k] = rank * 1e6 + version * 1e5 + k;
}

static cairn_query_t q_exists(const char* name) {
  cairn_query_t q;
  memset(&q, 0, sizeof q);
  q.name = name;
  q.op = CAIRN_QUERY_EXISTS;
  return q;
}
static cairn_query_t q_int(const char* name, int op, int type, int64_t lo, int64_t hi) {
  cairn_query_t q = q_exists(name);
  q.op = op;
  q.value.type = type;
  q.value.i = lo;
  q.value.u = (uint64_t)lo;
  q.value.d = (double)lo;
  q.upper.type = type;
  q.upper.i = hi;
  q.upper.u = (uint64_t)hi;
  q.upper.d = (double)hi;
  return q;
}
static cairn_query_t q_str(const char* name, int op, const char* s) {
  cairn_query_t q = q_exists(name);
  q.op = op;
  q.value.type = CAIRN_TAG_STRING;
  q.value.data = s;
  q.value.len = strlen(s);
  return q;
}
static size_t query_count(cairn_store_t* st, const cairn_query_t* q, size_t nq, int rank) {
  cairn_hit_t* hits = NULL;
  size_t n = 0;
  int rc = cairn_query(st, q, nq, rank, &hits, &n);
  CHECK(rc == CAIRN_OK, "cairn_query rank %d: %s", rank, cairn_code_name(rc));
  cairn_free(hits);
  return rc == CAIRN_OK ? n : (size_t)-1;
}

/* ---- global arrays: a 13 x 11 index space cut into 6 irregular blocks,
 * owned by every rank but rank 1 (which puts none) ---- */
#define GR 13
#define GC 11
static const uint64_t BLK[6][4] = {
    /* row0, col0, rows, cols */
    {0, 0, 5, 7}, {0, 7, 5, 4}, {5, 0, 1, 11}, {6, 0, 7, 3}, {6, 3, 7, 7}, {6, 10, 7, 1}};
static int owner(int k) {
  if (np == 1) return 0;
  int active[64], na = 0;
  for (int r = 0; r < np; r++)
    if (r != 1) active[na++] = r;
  if (na == 0) active[na++] = 0;
  return active[k % na];
}
static double elem(int i, int j) { return (double)((i * 11 + j) % 100); }

static void store_elem(void* p, int dtype, size_t idx, double v) {
  switch (dtype) {
    case CAIRN_INT8: ((int8_t*)p)[idx] = (int8_t)v; break;
    case CAIRN_INT16: ((int16_t*)p)[idx] = (int16_t)v; break;
    case CAIRN_INT32: ((int32_t*)p)[idx] = (int32_t)v; break;
    case CAIRN_INT64: ((int64_t*)p)[idx] = (int64_t)v; break;
    case CAIRN_UINT8: ((uint8_t*)p)[idx] = (uint8_t)v; break;
    case CAIRN_UINT16: ((uint16_t*)p)[idx] = (uint16_t)v; break;
    case CAIRN_UINT32: ((uint32_t*)p)[idx] = (uint32_t)v; break;
    case CAIRN_UINT64: ((uint64_t*)p)[idx] = (uint64_t)v; break;
    case CAIRN_FLOAT32: ((float*)p)[idx] = (float)v; break;
    case CAIRN_FLOAT64: ((double*)p)[idx] = v; break;
  }
}
static double load_elem(const void* p, int dtype, size_t idx) {
  switch (dtype) {
    case CAIRN_INT8: return ((const int8_t*)p)[idx];
    case CAIRN_INT16: return ((const int16_t*)p)[idx];
    case CAIRN_INT32: return ((const int32_t*)p)[idx];
    case CAIRN_INT64: return (double)((const int64_t*)p)[idx];
    case CAIRN_UINT8: return ((const uint8_t*)p)[idx];
    case CAIRN_UINT16: return ((const uint16_t*)p)[idx];
    case CAIRN_UINT32: return ((const uint32_t*)p)[idx];
    case CAIRN_UINT64: return (double)((const uint64_t*)p)[idx];
    case CAIRN_FLOAT32: return ((const float*)p)[idx];
    case CAIRN_FLOAT64: return ((const double*)p)[idx];
  }
  return NAN;
}

static void put_blocks(cairn_store_t* st, const char* name, int dtype, int flags,
                       const cairn_tag_t* tags, size_t ntags) {
  const uint64_t shape[2] = {GR, GC};
  for (int k = 0; k < 6; k++) {
    if (owner(k) != me) continue;
    size_t es = cairn_dtype_size(dtype);
    uint64_t r0 = BLK[k][0], c0 = BLK[k][1], nr = BLK[k][2], nc = BLK[k][3];
    char* buf = malloc(nr * nc * es);
    for (uint64_t i = 0; i < nr; i++)
      for (uint64_t j = 0; j < nc; j++) store_elem(buf, dtype, i * nc + j, elem((int)(r0 + i), (int)(c0 + j)));
    const uint64_t start[2] = {r0, c0}, count[2] = {nr, nc};
    OK(cairn_put_array(st, name, dtype, 2, shape, start, count, buf, flags, tags, ntags));
    free(buf);
  }
}

/* Reads box (r0, c0, nr, nc) of a 13x11 array, row- and column-major, and checks it. */
static void check_box(cairn_store_t* st, const char* name, int dtype, uint64_t r0, uint64_t c0,
                      uint64_t nr, uint64_t nc) {
  size_t es = cairn_dtype_size(dtype);
  char* buf = calloc(nr * nc, es);
  const uint64_t start[2] = {r0, c0}, count[2] = {nr, nc};
  int rc = cairn_get_array(st, name, 2, start, count, buf, nr * nc * es, CAIRN_ROW_MAJOR);
  CHECK(rc == CAIRN_OK, "get_array %s box %llu,%llu", name, (unsigned long long)r0, (unsigned long long)c0);
  int bad = 0;
  for (uint64_t i = 0; i < nr; i++)
    for (uint64_t j = 0; j < nc; j++)
      if (load_elem(buf, dtype, i * nc + j) != elem((int)(r0 + i), (int)(c0 + j))) bad++;
  CHECK(bad == 0, "%s (%s) row-major box %llu,%llu+%llux%llu: %d wrong", name, cairn_dtype_name(dtype),
        (unsigned long long)r0, (unsigned long long)c0, (unsigned long long)nr, (unsigned long long)nc, bad);
  /* column-major: indices reversed; the buffer is Fortran's b(nc, nr),
   * whose element (j, i) is at j + i * nc: the same bytes as row-major */
  memset(buf, 0, nr * nc * es);
  const uint64_t fstart[2] = {c0, r0}, fcount[2] = {nc, nr};
  rc = cairn_get_array(st, name, 2, fstart, fcount, buf, nr * nc * es, CAIRN_COLUMN_MAJOR);
  CHECK(rc == CAIRN_OK, "get_array column-major %s", name);
  bad = 0;
  for (uint64_t i = 0; i < nr; i++)
    for (uint64_t j = 0; j < nc; j++)
      if (load_elem(buf, dtype, i * nc + j) != elem((int)(r0 + i), (int)(c0 + j))) bad++;
  CHECK(bad == 0, "%s column-major box: %d wrong", name, bad);
  free(buf);
}

static void test_basics(cairn_store_t* st) {
  CHECK(cairn_rank(st) == me && cairn_size(st) == np, "rank/size");
  CHECK(cairn_revision(st) == 0, "fresh store revision %llu", (unsigned long long)cairn_revision(st));
  CHECK(cairn_writer_ranks(st) == np, "writer_ranks of a fresh store");
  int ma = -1, mi = -1, pa = -1;
  const char* v = cairn_version(&ma, &mi, &pa);
  CHECK(v && ma == CAIRN_VERSION_MAJOR && mi == CAIRN_VERSION_MINOR, "version %s", v ? v : "null");
  CHECK(strcmp(cairn_code_name(CAIRN_NOT_FOUND), "NotFound") == 0, "code name");
  CHECK(strcmp(cairn_code_name(12345), "Unknown") == 0, "unknown code name");
  CHECK(cairn_dtype_size(CAIRN_FLOAT32) == 4 && strcmp(cairn_dtype_name(CAIRN_UINT16), "uint16") == 0,
        "dtype size/name");
  CHECK(cairn_dtype_size(99) == 0 && strcmp(cairn_dtype_name(99), "?") == 0, "bad dtype size/name");
}

static void test_objects(cairn_store_t* st, double* a, cairn_tag_t* tags) {
  size_t nt = all_tags(tags, me);
  fill_a(a, me, 1);
  OK(cairn_put(st, "a", a, A_N * sizeof(double), tags, nt));
  const char small[] = "small inline value";
  OK(cairn_put(st, "small", small, sizeof small, NULL, 0));
  OK(cairn_put(st, "gone", "x", 1, NULL, 0));
  OK(cairn_delete(st, "gone"));
  CODE(cairn_delete(st, "gone"), CAIRN_NOT_FOUND);
  cairn_tag_t t2 = {.name = "kind", .type = CAIRN_TAG_STRING, .data = "field-b", .len = 7};
  cairn_tag_t t3 = {.name = "i32", .type = CAIRN_TAG_UINT64, .u = 42};
  cairn_tag_t bt[2] = {t2, t3};
  OK(cairn_put(st, "b", a, 100, bt, 2));

  /* get, get_size, get_range */
  uint64_t size = 0;
  OK(cairn_get_size(st, "a", CAIRN_RANK_OWN, &size));
  CHECK(size == A_N * sizeof(double), "size %llu", (unsigned long long)size);
  double* back = calloc(A_N, sizeof(double));
  OK(cairn_get(st, "a", -1, back, A_N * sizeof(double), &size));
  CHECK(memcmp(back, a, A_N * sizeof(double)) == 0, "get a");
  size = 0;
  CODE(cairn_get(st, "a", -1, back, 10, &size), CAIRN_INVALID_ARGUMENT);
  CHECK(size == A_N * sizeof(double), "size reported when cap too small: %llu", (unsigned long long)size);
  double mid[100];
  OK(cairn_get_range(st, "a", -1, 12345 * sizeof(double), mid, sizeof mid));
  CHECK(mid[0] == a[12345] && mid[99] == a[12444], "get_range");
  CODE(cairn_get_range(st, "a", -1, A_N * sizeof(double) - 8, mid, 16), CAIRN_INVALID_ARGUMENT);
  CODE(cairn_get(st, "nope", -1, back, 8, &size), CAIRN_NOT_FOUND);
  CODE(cairn_get(st, "a", np + 5, back, A_N * sizeof(double), &size), CAIRN_INVALID_ARGUMENT);
  CHECK(strstr(cairn_last_error(), "cairn_get") != NULL, "message names the function: %s", cairn_last_error());

  /* multi_get: two values, one missing, one too small */
  char sm[64], tiny[4];
  cairn_read_t reads[4] = {{.key = "a", .data = back, .capacity = A_N * sizeof(double)},
                           {.key = "small", .data = sm, .capacity = sizeof sm},
                           {.key = "missing", .data = NULL, .capacity = 0},
                           {.key = "b", .data = tiny, .capacity = sizeof tiny}};
  memset(back, 0, A_N * sizeof(double));
  int rc = cairn_multi_get(st, CAIRN_RANK_OWN, reads, 4);
  CHECK(rc != CAIRN_OK, "multi_get returns the first error");
  CHECK(reads[0].code == CAIRN_OK && reads[0].size == A_N * sizeof(double) &&
            memcmp(back, a, A_N * sizeof(double)) == 0, "multi_get a");
  CHECK(reads[1].code == CAIRN_OK && reads[1].size == sizeof small && strcmp(sm, small) == 0, "multi_get small");
  CHECK(reads[2].code == CAIRN_NOT_FOUND, "multi_get missing: %s", cairn_code_name(reads[2].code));
  CHECK(reads[3].code == CAIRN_INVALID_ARGUMENT && reads[3].size == 100, "multi_get too small: %s %llu",
        cairn_code_name(reads[3].code), (unsigned long long)reads[3].size);
  OK(cairn_multi_get(st, -1, reads, 0));
  /* overlapping buffers: refused for every key */
  cairn_read_t ov[2] = {{.key = "small", .data = sm, .capacity = sizeof sm},
                        {.key = "small", .data = sm + 4, .capacity = 8}};
  CODE(cairn_multi_get(st, -1, ov, 2), CAIRN_INVALID_ARGUMENT);
  CHECK(ov[0].code == CAIRN_INVALID_ARGUMENT && ov[1].code == CAIRN_INVALID_ARGUMENT, "overlap codes");
  free(back);

  /* tags: every type */
  cairn_tag_t* got = NULL;
  size_t ng = 0;
  OK(cairn_get_tags(st, "a", -1, &got, &ng));
  if (got) check_all_tags(got, ng, me);
  cairn_free(got);
  cairn_tag_t* one = NULL;
  OK(cairn_get_tag(st, "a", -1, "u64", &one));
  CHECK(one && one->u == (UINT64_C(1) << 63) + 5 && strcmp(one->name, "u64") == 0, "get_tag u64");
  cairn_free(one);
  one = NULL;
  CODE(cairn_get_tag(st, "a", -1, "nosuch", &one), CAIRN_NOT_FOUND);
  cairn_free(one);

  /* tag edits */
  cairn_tag_t nt1 = {.name = "added", .type = CAIRN_TAG_FLOAT64, .d = -7.5};
  OK(cairn_set_tag(st, "small", &nt1));
  cairn_tag_t nt2 = {.name = "added", .type = CAIRN_TAG_INT16, .i = 12};
  OK(cairn_set_tag(st, "small", &nt2)); /* replaces, another type */
  one = NULL;
  OK(cairn_get_tag(st, "small", -1, "added", &one));
  CHECK(one && one->type == CAIRN_TAG_INT16 && one->i == 12, "set_tag replaced");
  cairn_free(one);
  cairn_tag_t many[2] = {{.name = "x", .type = CAIRN_TAG_INT64, .i = 1},
                         {.name = "y", .type = CAIRN_TAG_STRING, .data = "yy", .len = 2}};
  OK(cairn_set_tags(st, "small", many, 2));
  OK(cairn_get_tags(st, "small", -1, &got, &ng));
  CHECK(ng == 2 && got && strcmp(got[0].name, "x") == 0 && strcmp(got[1].name, "y") == 0, "set_tags");
  cairn_free(got);
  OK(cairn_delete_tag(st, "small", "x"));
  CODE(cairn_delete_tag(st, "small", "x"), CAIRN_NOT_FOUND);
  CODE(cairn_delete_tag(st, "nope", "x"), CAIRN_NOT_FOUND);
  cairn_tag_t dup[2] = {many[0], many[0]};
  CODE(cairn_set_tags(st, "small", dup, 2), CAIRN_INVALID_ARGUMENT);
  CODE(cairn_set_tags(st, "nope", many, 2), CAIRN_NOT_FOUND);
  OK(cairn_get_tags(st, "small", -1, &got, &ng));
  CHECK(ng == 1, "after delete_tag and refused set_tags: %zu tags", ng);
  cairn_free(got);
  cairn_tag_t empty_name = {.name = "", .type = CAIRN_TAG_INT64};
  CODE(cairn_set_tag(st, "small", &empty_name), CAIRN_INVALID_ARGUMENT);
  cairn_tag_t bad_type = {.name = "bt", .type = 99};
  CODE(cairn_set_tag(st, "small", &bad_type), CAIRN_INVALID_ARGUMENT);
  cairn_tag_t bad_arr = {.name = "ba", .type = CAIRN_TAG_ARRAY | CAIRN_TAG_INT32, .data = ARR_I32, .len = 5};
  CODE(cairn_set_tag(st, "small", &bad_arr), CAIRN_INVALID_ARGUMENT);
  CODE(cairn_put(st, "", "x", 1, NULL, 0), CAIRN_INVALID_ARGUMENT);
  CODE(cairn_put(st, NULL, "x", 1, NULL, 0), CAIRN_INVALID_ARGUMENT);

  /* list */
  cairn_object_t* objs = NULL;
  size_t no = 0;
  OK(cairn_list(st, -1, &objs, &no));
  CHECK(no == 3, "list: %zu objects", no);
  if (no == 3) {
    CHECK(strcmp(objs[0].key, "a") == 0 && strcmp(objs[1].key, "b") == 0 && strcmp(objs[2].key, "small") == 0,
          "list order");
    CHECK(objs[0].size == A_N * sizeof(double) && objs[0].ntags == 17 && !objs[0].inlined, "list a");
    CHECK(objs[2].inlined == 1 && objs[2].ntags == 1, "list small inlined %d ntags %zu", objs[2].inlined,
          objs[2].ntags);
  }
  cairn_free(objs);

  /* queries (own namespace, pending changes seen) */
  cairn_query_t q[2];
  q[0] = q_exists("kind");
  CHECK(query_count(st, q, 1, -1) == 2, "exists kind");
  q[0] = q_int("i32", CAIRN_QUERY_EQUAL, CAIRN_TAG_FLOAT64, 42, 42); /* 42.0 == int32 42 == uint64 42 */
  CHECK(query_count(st, q, 1, -1) == 2, "equal across types");
  q[0] = q_int("rank", CAIRN_QUERY_RANGE, CAIRN_TAG_INT8, 0, 1000);
  CHECK(query_count(st, q, 1, -1) == 1, "range");
  q[0] = q_str("kind", CAIRN_QUERY_PREFIX, "field-");
  q[1] = q_str("kind", CAIRN_QUERY_WILDCARD, "*-?");
  CHECK(query_count(st, q, 2, -1) == 2, "prefix and wildcard");
  q[1] = q_str("kind", CAIRN_QUERY_WILDCARD, "*-a");
  CHECK(query_count(st, q, 2, -1) == 1, "wildcard *-a");
  CHECK(query_count(st, q, 0, -1) == 3, "no condition");
  q[0] = q_int("rank", 17, CAIRN_TAG_INT8, 0, 1); /* a bad op */
  cairn_hit_t* hits = NULL;
  size_t nh = 0;
  CODE(cairn_query(st, q, 1, -1, &hits, &nh), CAIRN_INVALID_ARGUMENT);
  cairn_free(hits);
}

static void test_after_commit(cairn_store_t* st, double* a) {
  int other = (me + 1) % np;
  double* v = calloc(A_N, sizeof(double));
  uint64_t size = 0;
  OK(cairn_get(st, "a", other, v, A_N * sizeof(double), &size));
  fill_a(a, other, 1);
  CHECK(memcmp(v, a, A_N * sizeof(double)) == 0, "rank %d reads rank %d's a", me, other);
  cairn_object_t* objs = NULL;
  size_t no = 0;
  OK(cairn_list(st, other, &objs, &no));
  CHECK(no == 5, "list of rank %d: %zu", other, no); /* a, b, small and the streams log, tagged */
  cairn_free(objs);
  cairn_query_t q = q_int("rank", CAIRN_QUERY_EQUAL, CAIRN_TAG_INT64, other, other);
  CHECK(query_count(st, &q, 1, other) == 1, "query of another namespace");
  /* query_all: every rank's "a" */
  q = q_str("kind", CAIRN_QUERY_EQUAL, "field-a");
  cairn_hit_t* hits = NULL;
  size_t nh = 0;
  OK(cairn_query_all(st, &q, 1, &hits, &nh));
  CHECK(nh == (size_t)np, "query_all: %zu hits", nh);
  for (size_t k = 0; k < nh && hits; k++)
    CHECK(hits[k].rank == (int)k && strcmp(hits[k].key, "a") == 0, "hit %zu: %d %s", k, hits[k].rank, hits[k].key);
  cairn_free(hits);
  free(v);

  /* shared objects */
  const char cfg[] = "shared configuration";
  if (me == 0) OK(cairn_put_shared(st, "cfg", cfg, sizeof cfg));
  else CODE(cairn_put_shared(st, "cfg", cfg, sizeof cfg), CAIRN_INVALID_ARGUMENT);
}

static void test_streams(cairn_store_t* st) {
  cairn_stream_t* w = NULL;
  OK(cairn_stream_open_write(st, "log", NULL, 0, &w));
  cairn_stream_t* w2 = NULL;
  CODE(cairn_stream_open_write(st, "log", NULL, 0, &w2), CAIRN_INVALID_ARGUMENT);
  char* big = malloc(200000);
  for (int k = 0; k < 200000; k++) big[k] = (char)(k * 7 + me);
  OK(cairn_stream_write(w, "0123456789", 10));
  OK(cairn_stream_write(w, big, 200000));
  OK(cairn_stream_write(w, "tail!!!", 7));
  uint64_t pos = 0, sz = 0;
  OK(cairn_stream_tell(w, &pos));
  OK(cairn_stream_size(w, &sz));
  CHECK(pos == 200017 && sz == 200017, "writer tell %llu size %llu", (unsigned long long)pos, (unsigned long long)sz);
  OK(cairn_stream_seek(w, 2, CAIRN_SEEK_SET));
  OK(cairn_stream_write(w, "AB", 2)); /* overwrite */
  OK(cairn_stream_flush(w));
  OK(cairn_stream_seek(w, 100, CAIRN_SEEK_END)); /* past the end: gap of zeros */
  OK(cairn_stream_write(w, "Z", 1));
  OK(cairn_stream_size(w, &sz));
  CHECK(sz == 200118, "size after gap %llu", (unsigned long long)sz);
  OK(cairn_stream_close(w));
  free(big);
  /* with tags */
  cairn_tag_t t = {.name = "kind", .type = CAIRN_TAG_STRING, .data = "stream", .len = 6};
  OK(cairn_stream_open_write(st, "tagged", &t, 1, &w));
  OK(cairn_stream_write(w, "abc", 3));
  OK(cairn_stream_close(w));
}

static void check_stream(cairn_store_t* st, int rank) {
  cairn_stream_t* r = NULL;
  OK(cairn_stream_open_read(st, "log", rank, &r));
  if (!r) return;
  uint64_t sz = 0;
  OK(cairn_stream_size(r, &sz));
  CHECK(sz == 200118, "reader size %llu", (unsigned long long)sz);
  char head[10];
  size_t got = 0;
  OK(cairn_stream_read(r, head, 10, &got));
  CHECK(got == 10 && memcmp(head, "01AB456789", 10) == 0, "stream head %.10s", head);
  /* odd-sized reads through the middle */
  char piece[777];
  int bad = 0;
  for (uint64_t off = 10; off < 200010; off += got) {
    OK(cairn_stream_read(r, piece, 200010 - off < 777 ? 200010 - off : 777, &got));
    if (got == 0) break;
    for (size_t k = 0; k < got; k++)
      if (piece[k] != (char)((off - 10 + k) * 7 + rank)) bad++;
  }
  CHECK(bad == 0, "stream body: %d bad bytes", bad);
  OK(cairn_stream_seek(r, -108, CAIRN_SEEK_END));
  char tail[200];
  OK(cairn_stream_read(r, tail, sizeof tail, &got));
  CHECK(got == 108 && memcmp(tail, "tail!!!", 7) == 0 && tail[7] == 0 && tail[106] == 0 && tail[107] == 'Z',
        "stream tail got %zu", got);
  OK(cairn_stream_read(r, tail, 10, &got));
  CHECK(got == 0, "read at end got %zu", got);
  OK(cairn_stream_seek(r, 5, CAIRN_SEEK_SET));
  OK(cairn_stream_seek(r, 3, CAIRN_SEEK_CUR));
  uint64_t pos = 0;
  OK(cairn_stream_tell(r, &pos));
  CHECK(pos == 8, "reader tell %llu", (unsigned long long)pos);
  CODE(cairn_stream_seek(r, 1, CAIRN_SEEK_END), CAIRN_INVALID_ARGUMENT);
  CODE(cairn_stream_write(r, "x", 1), CAIRN_INVALID_ARGUMENT);
  OK(cairn_stream_close(r));
  CODE(cairn_stream_open_read(st, "nope", rank, &r), CAIRN_NOT_FOUND);
}

static void test_arrays(cairn_store_t* st) {
  const int dtypes[10] = {CAIRN_INT8, CAIRN_INT16, CAIRN_INT32, CAIRN_INT64, CAIRN_UINT8,
                          CAIRN_UINT16, CAIRN_UINT32, CAIRN_UINT64, CAIRN_FLOAT32, CAIRN_FLOAT64};
  cairn_tag_t at[2] = {{.name = "units", .type = CAIRN_TAG_STRING, .data = "K", .len = 1},
                       {.name = "step", .type = CAIRN_TAG_INT32, .i = 7}};
  for (int d = 0; d < 10; d++) {
    char name[32];
    snprintf(name, sizeof name, "arr_%s", cairn_dtype_name(dtypes[d]));
    put_blocks(st, name, dtypes[d], d == 9 ? CAIRN_ARRAY_STATISTICS : CAIRN_ROW_MAJOR, at, d == 9 ? 2 : 1);
  }
  /* Column-major put of the same data: Fortran's (GC, GR) with blocks reversed. */
  {
    const uint64_t fshape[2] = {GC, GR};
    for (int k = 0; k < 6; k++) {
      if (owner(k) != me) continue;
      uint64_t r0 = BLK[k][0], c0 = BLK[k][1], nr = BLK[k][2], nc = BLK[k][3];
      /* Fortran's a(GC, GR) holds C's [GR][GC]: this block is a(c0+1:c0+nc, r0+1:r0+nr),
       * its first index (the column) fastest. */
      const uint64_t start[2] = {c0, r0}, count[2] = {nc, nr};
      double* fb = malloc(nr * nc * sizeof(double));
      for (uint64_t i = 0; i < nr; i++)
        for (uint64_t j = 0; j < nc; j++) fb[i * nc + j] = elem((int)(r0 + i), (int)(c0 + j));
      OK(cairn_put_array(st, "colmajor", CAIRN_FLOAT64, 2, fshape, start, count, fb, CAIRN_COLUMN_MAJOR, NULL, 0));
      free(fb);
    }
  }
  /* checksum grain option */
  cairn_array_put_options_t po;
  cairn_array_put_options_init(&po);
  CHECK(po.checksum_grain == 4096 && po.flags == 0, "array put options defaults");
  const uint64_t s1[1] = {1000}, z[1] = {0}, c1[1] = {1000};
  static double line[1000];
  for (int k = 0; k < 1000; k++) line[k] = k;
  po.checksum_grain = 8192;
  if (me == 0) OK(cairn_put_array_opts(st, "line", CAIRN_FLOAT64, 1, s1, z, c1, line, &po, NULL, 0));
  po.checksum_grain = 1000;
  CODE(cairn_put_array_opts(st, "line2", CAIRN_FLOAT64, 1, s1, z, c1, line, &po, NULL, 0), CAIRN_INVALID_ARGUMENT);
  cairn_array_put_options_t raw;
  memset(&raw, 0, sizeof raw);
  CODE(cairn_put_array_opts(st, "line3", CAIRN_FLOAT64, 1, s1, z, c1, line, &raw, NULL, 0), CAIRN_INVALID_ARGUMENT);
  /* an array with a hole: rank 0 puts only [0, 500) of 1000 */
  const uint64_t c500[1] = {500};
  if (me == 0) OK(cairn_put_array(st, "holes", CAIRN_INT32, 1, s1, z, c500, (int32_t[500]){1}, 0, NULL, 0));
  /* bad input: nothing stored */
  const uint64_t shape[2] = {GR, GC}, st0[2] = {0, 0}, past[2] = {GR, GC + 1}, big[2] = {5, 5};
  double dd[25];
  CODE(cairn_put_array(st, "bad", CAIRN_FLOAT64, 2, shape, st0, past, dd, 0, NULL, 0), CAIRN_INVALID_ARGUMENT);
  CODE(cairn_put_array(st, "bad", 42, 2, shape, st0, big, dd, 0, NULL, 0), CAIRN_INVALID_ARGUMENT);
  CODE(cairn_put_array(st, "bad", CAIRN_FLOAT64, 0, shape, st0, big, dd, 0, NULL, 0), CAIRN_INVALID_ARGUMENT);
  CODE(cairn_put_array(st, "bad", CAIRN_FLOAT64, 17, shape, st0, big, dd, 0, NULL, 0), CAIRN_INVALID_ARGUMENT);
  CODE(cairn_put_array(st, "", CAIRN_FLOAT64, 2, shape, st0, big, dd, 0, NULL, 0), CAIRN_INVALID_ARGUMENT);
  CODE(cairn_put_array(st, "bad", CAIRN_FLOAT64, 2, shape, st0, big, NULL, 0, NULL, 0), CAIRN_INVALID_ARGUMENT);
  /* another dtype than this rank's earlier put of the same array */
  if (owner(0) == me)
    CODE(cairn_put_array(st, "arr_float64", CAIRN_FLOAT32, 2, shape, st0, big, dd, 0, NULL, 0),
         CAIRN_INVALID_ARGUMENT);
  /* puts are not seen before the commit */
  CODE(cairn_array_info(st, "arr_float64", 0, &(cairn_array_info_t*){NULL}), CAIRN_NOT_FOUND);
}

static void check_arrays(cairn_store_t* st) {
  const int dtypes[10] = {CAIRN_INT8, CAIRN_INT16, CAIRN_INT32, CAIRN_INT64, CAIRN_UINT8,
                          CAIRN_UINT16, CAIRN_UINT32, CAIRN_UINT64, CAIRN_FLOAT32, CAIRN_FLOAT64};
  for (int d = 0; d < 10; d++) {
    char name[32];
    snprintf(name, sizeof name, "arr_%s", cairn_dtype_name(dtypes[d]));
    check_box(st, name, dtypes[d], 0, 0, GR, GC);
    check_box(st, name, dtypes[d], 3, 5, 6, 5); /* crosses blocks 0,1,2,3,4 */
    check_box(st, name, dtypes[d], 12, 10, 1, 1);
  }
  check_box(st, "colmajor", CAIRN_FLOAT64, 0, 0, GR, GC);
  check_box(st, "colmajor", CAIRN_FLOAT64, 4, 6, 4, 5);
  /* info with blocks */
  cairn_array_info_t* info = NULL;
  OK(cairn_array_info(st, "arr_float64", 1, &info));
  if (info) {
    CHECK(info->dtype == CAIRN_FLOAT64 && info->ndims == 2 && info->shape[0] == GR && info->shape[1] == GC &&
              info->elements == GR * GC && info->block_count == 6 && info->regular == 0,
          "array info");
    CHECK(info->ntags == 2 && info->blocks != NULL, "info tags %zu", info->ntags);
    int found = 0;
    for (uint64_t b = 0; b < info->block_count && info->blocks; b++)
      for (int k = 0; k < 6; k++)
        if (info->blocks[b].start[0] == BLK[k][0] && info->blocks[b].start[1] == BLK[k][1] &&
            info->blocks[b].count[0] == BLK[k][2] && info->blocks[b].count[1] == BLK[k][3] &&
            info->blocks[b].rank == owner(k))
          found++;
    CHECK(found == 6, "blocks found %d", found);
  }
  cairn_free(info);
  info = NULL;
  OK(cairn_array_info(st, "arr_int8", 0, &info));
  CHECK(info && info->blocks == NULL && info->ntags == 1, "info without blocks");
  cairn_free(info);
  CODE(cairn_array_info(st, "nope", 0, &info), CAIRN_NOT_FOUND);
  /* list and query */
  cairn_array_info_t* arrs = NULL;
  size_t na = 0;
  OK(cairn_list_arrays(st, &arrs, &na));
  CHECK(na == 13, "list_arrays: %zu", na); /* 10 dtypes + colmajor + line + holes */
  for (size_t k = 1; k < na; k++) CHECK(strcmp(arrs[k - 1].name, arrs[k].name) < 0, "list_arrays order");
  cairn_free(arrs);
  cairn_query_t q = q_int("step", CAIRN_QUERY_RANGE, CAIRN_TAG_INT64, 5, 10);
  cairn_name_t* names = NULL;
  size_t nn = 0;
  OK(cairn_query_arrays(st, &q, 1, &names, &nn));
  CHECK(nn == 1 && strcmp(names[0].name, "arr_float64") == 0, "query_arrays step: %zu", nn);
  cairn_free(names);
  q = q_str("units", CAIRN_QUERY_EQUAL, "K");
  OK(cairn_query_arrays(st, &q, 1, &names, &nn));
  CHECK(nn == 10, "query_arrays units: %zu", nn);
  cairn_free(names);
  /* holes read as zero, the put part as put */
  int32_t h[1000];
  const uint64_t s0[1] = {0}, c1000[1] = {1000};
  OK(cairn_get_array(st, "holes", 1, s0, c1000, h, sizeof h, 0));
  CHECK(h[0] == 1 && h[1] == 0 && h[999] == 0, "holes");
  double line[1000];
  const uint64_t s100[1] = {100}, c800[1] = {800};
  OK(cairn_get_array(st, "line", 1, s100, c800, line, sizeof line, 0));
  CHECK(line[0] == 100 && line[799] == 899, "line with grain 8192");
  /* bad reads */
  const uint64_t bs[2] = {0, 0}, bc[2] = {GR + 1, 1};
  double buf[GR * GC + 16];
  CODE(cairn_get_array(st, "arr_float64", 2, bs, bc, buf, sizeof buf, 0), CAIRN_INVALID_ARGUMENT);
  CODE(cairn_get_array(st, "arr_float64", 1, bs, bc, buf, sizeof buf, 0), CAIRN_INVALID_ARGUMENT);
  const uint64_t ok_c[2] = {GR, GC};
  CODE(cairn_get_array(st, "arr_float64", 2, bs, ok_c, buf, 8, 0), CAIRN_INVALID_ARGUMENT);
  CODE(cairn_get_array(st, "nope", 2, bs, ok_c, buf, sizeof buf, 0), CAIRN_NOT_FOUND);
}

static int open_ro_at(const char* dir, uint64_t rev, cairn_store_t** out) {
  cairn_options_t o;
  cairn_options_init(&o);
  o.read_only = 1;
  o.revision = rev;
  return cairn_open(dir, MPI_COMM_WORLD, &o, out);
}

int main(int argc, char** argv) {
  int prov;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &prov);
  MPI_Comm_rank(MPI_COMM_WORLD, &me);
  MPI_Comm_size(MPI_COMM_WORLD, &np);
  nu_rank = me;
  if (argc != 2) {
    if (me == 0) fprintf(stderr, "usage: nu_all STORE_DIR\n");
    MPI_Finalize();
    return 2;
  }
  const char* dir = argv[1];
  cairn_store_t* st = NULL;

  /* options: an uninitialized struct is refused; opening a missing store read-only is NotFound */
  cairn_options_t raw;
  memset(&raw, 0, sizeof raw);
  CODE(cairn_open(dir, MPI_COMM_WORLD, &raw, &st), CAIRN_INVALID_ARGUMENT);
  CHECK(st == NULL, "store set on failure");
  CODE(open_ro_at(dir, 0, &st), CAIRN_NOT_FOUND);
  CODE(cairn_open(dir, MPI_COMM_NULL, NULL, &st), CAIRN_INVALID_ARGUMENT);

  cairn_options_t o;
  cairn_options_init(&o);
  CHECK(o.struct_size == sizeof o && o.create_if_missing == 1 && o.sync == 1, "options defaults");
  o.staging_bytes = 8 << 20; /* background writes, for async commits and zero-copy puts */
  o.chunk_size = 64 << 10;
  o.collective_timeout_s = 120;
  OK(cairn_open(dir, MPI_COMM_WORLD, &o, &st));
  if (!st) {
    nu_finish("nu_all");
    MPI_Finalize();
    return 1;
  }
  test_basics(st);
  double* a = malloc(A_N * sizeof(double));
  cairn_tag_t tags[17];
  test_objects(st, a, tags);
  test_streams(st);
  uint64_t rev = 0;
  OK(cairn_commit(st, &rev));
  CHECK(rev == 1 && cairn_revision(st) == 1, "first commit rev %llu", (unsigned long long)rev);
  test_after_commit(st, a);
  check_stream(st, me);
  check_stream(st, (me + 1) % np);
  test_arrays(st);
  OK(cairn_commit(st, &rev)); /* rev 2: shared object and arrays */
  CHECK(rev == 2, "rev %llu", (unsigned long long)rev);
  char cfg[64];
  uint64_t csz = 0;
  OK(cairn_get_shared(st, "cfg", cfg, sizeof cfg, &csz));
  CHECK(csz == 21 && strcmp(cfg, "shared configuration") == 0, "get_shared");
  memset(cfg, 0, sizeof cfg);
  OK(cairn_get(st, "cfg", CAIRN_RANK_SHARED, cfg, sizeof cfg, &csz));
  CHECK(strcmp(cfg, "shared configuration") == 0, "shared read through cairn_get");
  check_arrays(st);

  /* array commit errors: overlapping blocks (every rank puts the same box) */
  {
    const uint64_t shape[1] = {10}, s0[1] = {0}, c[1] = {5};
    double v[5] = {0};
    OK(cairn_put_array(st, "overlap", CAIRN_FLOAT64, 1, shape, s0, c, v, 0, NULL, 0));
    OK(cairn_put_array(st, "overlap", CAIRN_FLOAT64, 1, shape, s0, c, v, 0, NULL, 0));
    OK(cairn_put(st, "survivor", "s", 1, NULL, 0));
    CODE(cairn_commit(st, &rev), CAIRN_INVALID_ARGUMENT);
    CHECK(strstr(cairn_last_error(), "overlap") != NULL, "message names the array: %s", cairn_last_error());
    OK(cairn_commit(st, &rev)); /* the other puts stayed pending */
    CHECK(rev == 3, "rev after failed commit %llu", (unsigned long long)rev);
    char s = 0;
    OK(cairn_get(st, "survivor", -1, &s, 1, &csz));
    CODE(cairn_array_info(st, "overlap", 0, &(cairn_array_info_t*){NULL}), CAIRN_NOT_FOUND);
  }
  /* delete_array */
  OK(cairn_delete_array(st, "holes"));
  CODE(cairn_delete_array(st, "nope"), CAIRN_NOT_FOUND);
  OK(cairn_commit(st, &rev)); /* rev 4 */
  CODE(cairn_get_array(st, "holes", 1, (uint64_t[]){0}, (uint64_t[]){1}, (int32_t[1]){0}, 4, 0), CAIRN_NOT_FOUND);

  /* asynchronous commit, with a zero-copy put */
  double* zc = malloc(A_N * sizeof(double));
  fill_a(zc, me, 5);
  OK(cairn_put_zero_copy(st, "zc", zc, A_N * sizeof(double), NULL, 0));
  fill_a(a, me, 5);
  OK(cairn_put(st, "a", a, A_N * sizeof(double), tags, all_tags(tags, me)));
  cairn_async_t* h = NULL;
  OK(cairn_commit_async(st, &h));
  int done = 0, spins = 0;
  while (!done && h) {
    OK(cairn_async_test(h, &done));
    if (!done) usleep(1000);
    if (++spins > 200000) break;
  }
  CHECK(done, "async commit never finished");
  uint64_t arev = 0;
  OK(cairn_async_wait(h, &arev));
  CHECK(arev == 5, "async rev %llu", (unsigned long long)arev);
  cairn_async_free(h);
  zc[0] = -1; /* the commit is over: the buffer is ours again */
  double first = 0;
  OK(cairn_get_range(st, "zc", -1, 0, &first, 8));
  CHECK(first == me * 1e6 + 5e5, "zero-copy value %g", first);
  free(zc);
  CHECK(cairn_revision(st) == 5, "revision after async %llu", (unsigned long long)cairn_revision(st));

  /* flush: a write barrier, then the commit */
  fill_a(a, me, 6);
  OK(cairn_put(st, "a", a, A_N * sizeof(double), NULL, 0));
  OK(cairn_flush(st));
  OK(cairn_commit(st, &rev)); /* rev 6 */

  /* revisions */
  cairn_revision_info_t* revs = NULL;
  size_t nr = 0;
  OK(cairn_list_revisions(st, &revs, &nr));
  CHECK(nr == 6, "list_revisions %zu", nr);
  for (size_t k = 0; k < nr && revs; k++)
    CHECK(revs[k].revision == k + 1 && revs[k].parent == k && revs[k].ranks == (uint32_t)np && !revs[k].pinned &&
              revs[k].time_ns > 0 && revs[k].objects > 0,
          "revision %zu: rev %llu parent %llu ranks %u", k, (unsigned long long)revs[k].revision,
          (unsigned long long)revs[k].parent, revs[k].ranks);
  cairn_free(revs);
  uint32_t wr = 0;
  OK(cairn_revision_ranks(st, 0, &wr));
  CHECK(wr == (uint32_t)np, "revision_ranks");
  CODE(cairn_revision_ranks(st, 99, &wr), CAIRN_NOT_FOUND);

  /* an older revision, read-only, while the writer is open */
  cairn_store_t* old = NULL;
  OK(open_ro_at(dir, 1, &old));
  if (old) {
    CHECK(cairn_revision(old) == 1, "old revision %llu", (unsigned long long)cairn_revision(old));
    double v0 = 0;
    OK(cairn_get_range(old, "a", (me + 1) % np, 0, &v0, 8));
    CHECK(v0 == ((me + 1) % np) * 1e6 + 1e5, "old value %g", v0);
    CODE(cairn_put(old, "x", "x", 1, NULL, 0), CAIRN_INVALID_ARGUMENT);
    CODE(cairn_commit(old, NULL), CAIRN_INVALID_ARGUMENT);
    CODE(cairn_array_info(old, "arr_int8", 0, &(cairn_array_info_t*){NULL}), CAIRN_NOT_FOUND);
    OK(cairn_close(old));
  }

  /* pin / unpin / drop */
  OK(cairn_pin(st, 1));
  OK(cairn_pin(st, 1));
  CODE(cairn_drop(st, 1), CAIRN_INVALID_ARGUMENT);
  CODE(cairn_drop(st, 6), CAIRN_INVALID_ARGUMENT); /* the one open */
  CODE(cairn_pin(st, 99), CAIRN_NOT_FOUND);
  OK(cairn_unpin(st, 1));
  OK(cairn_drop(st, 1));
  CODE(cairn_drop(st, 1), CAIRN_NOT_FOUND);
  OK(cairn_pin(st, 2));
  OK(cairn_close(st));
  st = NULL;
  CODE(open_ro_at(dir, 1, &old), CAIRN_NOT_FOUND);

  /* error_if_exists */
  cairn_options_init(&o);
  o.error_if_exists = 1;
  CODE(cairn_open(dir, MPI_COMM_WORLD, &o, &st), CAIRN_INVALID_ARGUMENT);

  /* keep_revisions: reopen with K = 2; the pinned revision 2 stays */
  cairn_options_init(&o);
  o.keep_revisions = 2;
  OK(cairn_open(dir, MPI_COMM_WORLD, &o, &st));
  if (st) {
    CHECK(cairn_revision(st) == 6, "reopened at %llu", (unsigned long long)cairn_revision(st));
    /* the stream survived reopening */
    check_stream(st, me);
    for (int k = 0; k < 3; k++) {
      fill_a(a, me, 7 + k);
      OK(cairn_put(st, "a", a, A_N * sizeof(double), NULL, 0));
      OK(cairn_commit(st, &rev));
    }
    OK(cairn_list_revisions(st, &revs, &nr));
    CHECK(nr == 3, "kept %zu revisions", nr);
    if (nr == 3)
      CHECK(revs[0].revision == 2 && revs[0].pinned && revs[1].revision == 8 && revs[2].revision == 9,
            "kept %llu %llu %llu", (unsigned long long)revs[0].revision, (unsigned long long)revs[1].revision,
            (unsigned long long)revs[2].revision);
    cairn_free(revs);
    OK(cairn_unpin(st, 2));
    OK(cairn_put(st, "a", a, A_N * sizeof(double), NULL, 0));
    OK(cairn_commit(st, &rev));
    OK(cairn_list_revisions(st, &revs, &nr));
    CHECK(nr == 2, "after unpin: %zu revisions", nr);
    cairn_free(revs);
    /* a second writer is refused while this one holds the lock */
    OK(cairn_close(st));
  }
  /* NULL handles */
  CHECK(cairn_rank(NULL) == -1 && cairn_size(NULL) == -1 && cairn_writer_ranks(NULL) == -1, "NULL store");
  CODE(cairn_put(NULL, "k", "v", 1, NULL, 0), CAIRN_INVALID_ARGUMENT);
  cairn_free(NULL);

  free(a);
  int rc = nu_finish("nu_all");
  MPI_Finalize();
  return rc;
}
