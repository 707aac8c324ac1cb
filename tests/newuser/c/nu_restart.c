/* Restart on another number of ranks, as a user would write it.
 *   nu_restart write  STORE   (any N; the script uses 4): rank r puts "o<r>"
 *                              and its rows of the global array "R"; two commits.
 *   nu_restart resume STORE   (any M): reads every namespace the newest
 *                              revision has, rank r adopts namespaces
 *                              r, r+M, ... (puts their objects into its own),
 *                              puts "R" again in an M-rank decomposition, commits.
 * Every step checks that objects o0 .. o<N-1> and "R" hold what the first
 * job wrote, and that the first revision (N namespaces) is still readable. */
#include <stdint.h>

#include "nu_check.h"

static int me, np;
#define ORIG 4 /* namespaces the first job (nu_restart write at 4 ranks) makes */
#define RR 23
#define RC 9

static size_t osize(int k) { return 1000 + 10 * (size_t)k; }
static void ofill(char* v, int k) {
  for (size_t i = 0; i < osize(k); i++) v[i] = (char)(k * 31 + i);
}
static double relem(uint64_t i, uint64_t j) { return i * 1000.0 + j; }

/* Row bands of R for n ranks: irregular, and rank 0 gets none (n > 1). */
static void band(int n, int r, uint64_t* r0, uint64_t* nr) {
  int active = n > 1 ? n - 1 : 1;
  if (n > 1) r -= 1;
  if (r < 0) {
    *r0 = 0;
    *nr = 0;
    return;
  }
  /* weights 1, 2, 3, ... */
  uint64_t tot = (uint64_t)active * (active + 1) / 2, start = 0;
  for (int k = 0; k < r; k++) start += RR * (uint64_t)(k + 1) / tot;
  uint64_t len = RR * (uint64_t)(r + 1) / tot;
  if (r == active - 1) len = RR - start;
  *r0 = start;
  *nr = len;
}

static void put_R(cairn_store_t* st, int n) {
  uint64_t r0, nr;
  band(n, me, &r0, &nr);
  if (nr == 0) return; /* an empty rank puts nothing */
  double* b = malloc(nr * RC * sizeof(double));
  for (uint64_t i = 0; i < nr; i++)
    for (uint64_t j = 0; j < RC; j++) b[i * RC + j] = relem(r0 + i, j);
  const uint64_t shape[2] = {RR, RC}, start[2] = {r0, 0}, count[2] = {nr, RC};
  cairn_tag_t t = {.name = "writers", .type = CAIRN_TAG_INT32, .i = n};
  OK(cairn_put_array(st, "R", CAIRN_FLOAT64, 2, shape, start, count, b, 0, &t, 1));
  free(b);
}

static void check_R(cairn_store_t* st, int writers) {
  /* a box that crosses every band, read on whatever rank count this is */
  const uint64_t start[2] = {1, 2}, count[2] = {RR - 2, RC - 3};
  double* b = calloc(count[0] * count[1], sizeof(double));
  OK(cairn_get_array(st, "R", 2, start, count, b, count[0] * count[1] * sizeof(double), 0));
  int bad = 0;
  for (uint64_t i = 0; i < count[0]; i++)
    for (uint64_t j = 0; j < count[1]; j++)
      if (b[i * count[1] + j] != relem(start[0] + i, start[1] + j)) bad++;
  CHECK(bad == 0, "R: %d wrong elements", bad);
  free(b);
  cairn_array_info_t* info = NULL;
  OK(cairn_array_info(st, "R", 1, &info));
  if (info) {
    int nonempty = writers > 1 ? writers - 1 : 1;
    CHECK((int)info->block_count == nonempty, "R has %llu blocks, expected %d",
          (unsigned long long)info->block_count, nonempty);
    CHECK(info->ntags == 1 && info->tags[0].i == writers, "R's writers tag %lld",
          info->ntags ? (long long)info->tags[0].i : -1LL);
  }
  cairn_free(info);
}

/* Every object o0 .. o<ORIG-1> exists exactly once over the namespaces of
 * the store's revision, with its bytes. */
static void check_objects(cairn_store_t* st) {
  cairn_query_t q;
  memset(&q, 0, sizeof q);
  q.name = "origin";
  q.op = CAIRN_QUERY_EXISTS;
  cairn_hit_t* hits = NULL;
  size_t nh = 0;
  OK(cairn_query_all(st, &q, 1, &hits, &nh));
  CHECK(nh == ORIG, "query_all found %zu objects", nh);
  int seen[ORIG] = {0};
  for (size_t h = 0; h < nh && hits; h++) {
    int k = -1;
    if (sscanf(hits[h].key, "o%d", &k) != 1 || k < 0 || k >= ORIG) {
      CHECK(0, "unexpected key %s", hits[h].key);
      continue;
    }
    seen[k]++;
    char* want = malloc(osize(k));
    char* got = malloc(osize(k));
    ofill(want, k);
    uint64_t size = 0;
    OK(cairn_get(st, hits[h].key, hits[h].rank, got, osize(k), &size));
    CHECK(size == osize(k) && memcmp(got, want, osize(k)) == 0, "%s in namespace %d", hits[h].key, hits[h].rank);
    cairn_tag_t* t = NULL;
    OK(cairn_get_tag(st, hits[h].key, hits[h].rank, "origin", &t));
    CHECK(t && t->i == k, "origin tag of %s", hits[h].key);
    cairn_free(t);
    free(want);
    free(got);
  }
  for (int k = 0; k < ORIG; k++) CHECK(seen[k] == 1, "o%d seen %d times", k, seen[k]);
  cairn_free(hits);
}

static int do_write(const char* dir) {
  cairn_store_t* st = NULL;
  OK(cairn_open(dir, MPI_COMM_WORLD, NULL, &st));
  if (!st) return 1;
  char key[16];
  snprintf(key, sizeof key, "o%d", me);
  char* v = malloc(osize(me));
  ofill(v, me);
  cairn_tag_t t = {.name = "origin", .type = CAIRN_TAG_INT32, .i = me};
  OK(cairn_put(st, key, v, osize(me), &t, 1));
  put_R(st, np);
  uint64_t rev = 0;
  OK(cairn_commit(st, &rev));
  CHECK(rev == 1, "rev %llu", (unsigned long long)rev);
  /* a second revision with one more object per rank */
  OK(cairn_put(st, "extra", "e", 1, NULL, 0));
  OK(cairn_commit(st, &rev));
  check_objects(st);
  check_R(st, np);
  free(v);
  OK(cairn_close(st));
  return 0;
}

static int do_resume(const char* dir) {
  cairn_store_t* st = NULL;
  OK(cairn_open(dir, MPI_COMM_WORLD, NULL, &st));
  if (!st) return 1;
  int w = cairn_writer_ranks(st);
  uint64_t rev0 = cairn_revision(st);
  if (me == 0) printf("resume on %d ranks: revision %llu written by %d\n", np, (unsigned long long)rev0, w);
  CHECK(w != np, "restart on the same count (%d)", w);
  uint32_t wr = 0;
  OK(cairn_revision_ranks(st, 0, &wr));
  CHECK(wr == (uint32_t)w, "revision_ranks %u writer_ranks %d", wr, w);
  /* read-write open: check the view before anything changes */
  check_objects(st);
  check_R(st, w);
  /* my namespace r starts from namespace r of the revision (empty if r >= w) */
  cairn_object_t* mine = NULL;
  size_t nm = 0;
  OK(cairn_list(st, CAIRN_RANK_OWN, &mine, &nm));
  if (me >= w) CHECK(nm == 0, "rank %d >= %d starts with %zu objects", me, w, nm);
  cairn_free(mine);
  /* adopt namespaces me + np, me + 2 np, ... (objects not carried otherwise) */
  for (int ns = me + np; ns < w; ns += np) {
    cairn_object_t* objs = NULL;
    size_t no = 0;
    OK(cairn_list(st, ns, &objs, &no));
    for (size_t k = 0; k < no && objs; k++) {
      char* buf = malloc(objs[k].size + 1);
      uint64_t size = 0;
      OK(cairn_get(st, objs[k].key, ns, buf, objs[k].size + 1, &size));
      OK(cairn_put(st, objs[k].key, buf, size, objs[k].tags, objs[k].ntags));
      free(buf);
    }
    cairn_free(objs);
  }
  /* R still has blocks in namespaces >= np (when w > np): the commit must
   * refuse it until R is put again */
  uint64_t rev = 0;
  int need_R = 0;
  {
    cairn_array_info_t* info = NULL;
    OK(cairn_array_info(st, "R", 1, &info));
    for (uint64_t b = 0; info && b < info->block_count; b++)
      if (info->blocks[b].rank >= np) need_R = 1;
    cairn_free(info);
  }
  if (need_R) {
    CODE(cairn_commit(st, &rev), CAIRN_INVALID_ARGUMENT);
    CHECK(strstr(cairn_last_error(), "R") != NULL, "the message names R: %s", cairn_last_error());
  }
  put_R(st, np);
  OK(cairn_commit(st, &rev));
  CHECK(rev == rev0 + 1, "rev %llu after %llu", (unsigned long long)rev, (unsigned long long)rev0);
  CHECK(cairn_writer_ranks(st) == np, "writer_ranks after commit %d", cairn_writer_ranks(st));
  check_objects(st);
  check_R(st, np);
  OK(cairn_close(st));

  /* the first job's revision keeps its ORIG namespaces: read one no rank has now */
  cairn_options_t o;
  cairn_options_init(&o);
  o.read_only = 1;
  o.revision = 1;
  OK(cairn_open(dir, MPI_COMM_WORLD, &o, &st));
  if (st) {
    CHECK(cairn_writer_ranks(st) == ORIG, "revision 1 writer_ranks %d", cairn_writer_ranks(st));
    char* got = malloc(osize(ORIG - 1));
    char* want = malloc(osize(ORIG - 1));
    ofill(want, ORIG - 1);
    uint64_t size = 0;
    OK(cairn_get(st, "o3", ORIG - 1, got, osize(ORIG - 1), &size));
    CHECK(size == osize(ORIG - 1) && memcmp(got, want, size) == 0, "o3 of revision 1");
    CODE(cairn_get(st, "o3", ORIG, got, osize(ORIG - 1), &size), CAIRN_INVALID_ARGUMENT);
    check_objects(st);
    check_R(st, ORIG);
    free(got);
    free(want);
    OK(cairn_close(st));
  }
  return 0;
}

int main(int argc, char** argv) {
  int prov;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &prov);
  MPI_Comm_rank(MPI_COMM_WORLD, &me);
  MPI_Comm_size(MPI_COMM_WORLD, &np);
  nu_rank = me;
  if (argc != 3) {
    if (me == 0) fprintf(stderr, "usage: nu_restart write|resume STORE\n");
    MPI_Finalize();
    return 2;
  }
  if (strcmp(argv[1], "write") == 0) do_write(argv[2]);
  else do_resume(argv[2]);
  int rc = nu_finish(argv[1]);
  MPI_Finalize();
  return rc;
}
