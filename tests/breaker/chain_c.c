/* The restart chain's writer through the C API (tests/breaker/chain.sh; the
 * model is in bigcat.cc, "chain"): chain_c STORE ROUNDS. */
#include <cairn/cairn.h>
#include <fcntl.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int rank, size;

static void die(const char* what) {
  fprintf(stderr, "CHAIN FAIL rank %d: %s: %s\n", rank, what, cairn_last_error());
  MPI_Abort(MPI_COMM_WORLD, 3);
}
static void check(int rc, const char* what) {
  if (rc != CAIRN_OK) die(what);
}
static void pattern(unsigned char* b, int r, uint64_t g, int i, size_t n) {
  for (size_t k = 0; k < n; k++) b[k] = (unsigned char)((r * 131 + g * 31 + i * 7 + k * 13 + (k >> 8)) & 0xff);
}
static size_t vlen(int r, uint64_t g, int i) { return 100 + (size_t)((r * 7 + i * 13 + g) % 3000); }
/* Rows [lo, hi) of the 64-row array for rank r of m (the last of several puts nothing). */
static void rows(int r, int m, uint64_t* lo, uint64_t* hi) {
  if (m == 1) { *lo = 0; *hi = 64; return; }
  uint64_t w = (uint64_t)(m - 1) * m / 2, before = (uint64_t)r * (r + 1) / 2;
  if (r == m - 1) { *lo = *hi = 64; return; }
  *lo = 64 * before / w;
  *hi = 64 * (before + r + 1) / w;
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (argc < 3) die("usage: chain_c STORE ROUNDS");
  const char* path = argv[1];
  int rounds = atoi(argv[2]);
  cairn_options_t o;
  cairn_options_init(&o);
  o.keep_revisions = 3;
  cairn_store_t* st;
  check(cairn_open(path, MPI_COMM_WORLD, &o, &st), "open");
  uint64_t g0 = 0, rev0 = cairn_revision(st);
  if (rev0 > 0) {
    cairn_tag_t* t;
    check(cairn_get_tag(st, "o0_0", 0, "g", &t), "get tag g");
    g0 = (uint64_t)t->i;
    cairn_free(t);
    if (rev0 % 4 == 0) check(cairn_pin(st, rev0), "pin");
  }
  unsigned char* buf = malloc(6000);
  double* arr = malloc(64 * 5 * sizeof(double));
  for (uint64_t g = g0 + 1; g <= g0 + (uint64_t)rounds; g++) {
    char key[32];
    for (int i = 0; i < 20; i++) {
      snprintf(key, sizeof key, "o%d_%d", rank, i);
      size_t n = vlen(rank, g, i);
      pattern(buf, rank, g, i, n);
      cairn_tag_t tags[2] = {{"g", CAIRN_TAG_INT64, (int64_t)g, 0, 0, NULL, 0},
                             {"r", CAIRN_TAG_INT64, rank, 0, 0, NULL, 0}};
      check(cairn_put(st, key, buf, n, tags, 2), "put");
    }
    snprintf(key, sizeof key, "s%d", rank);
    cairn_tag_t stag = {"g", CAIRN_TAG_INT64, (int64_t)g, 0, 0, NULL, 0};
    cairn_stream_t* s;
    check(cairn_stream_open_write(st, key, &stag, 1, &s), "stream open");
    pattern(buf, rank, g, 999, 5000);
    for (int p = 0; p < 5; p++) check(cairn_stream_write(s, buf + p * 1000, 1000), "stream write");
    check(cairn_stream_close(s), "stream close");
    uint64_t lo, hi, shape[2] = {64, 5};
    rows(rank, size, &lo, &hi);
    for (uint64_t r = lo; r < hi; r++)
      for (int c = 0; c < 5; c++) arr[(r - lo) * 5 + c] = (double)(g * 1000 + r * 5 + c);
    if (hi - lo >= 2) { /* two blocks */
      uint64_t mid = lo + (hi - lo) / 2;
      uint64_t s1[2] = {lo, 0}, c1[2] = {mid - lo, 5}, s2[2] = {mid, 0}, c2[2] = {hi - mid, 5};
      check(cairn_put_array(st, "G", CAIRN_FLOAT64, 2, shape, s1, c1, arr, CAIRN_ROW_MAJOR, NULL, 0), "put_array 1");
      check(cairn_put_array(st, "G", CAIRN_FLOAT64, 2, shape, s2, c2, arr + (mid - lo) * 5, CAIRN_ROW_MAJOR, NULL, 0),
            "put_array 2");
    } else if (hi > lo) {
      uint64_t s1[2] = {lo, 0}, c1[2] = {hi - lo, 5};
      check(cairn_put_array(st, "G", CAIRN_FLOAT64, 2, shape, s1, c1, arr, CAIRN_ROW_MAJOR, NULL, 0), "put_array");
    }
    uint64_t rev;
    if (g % 2) {
      check(cairn_commit(st, &rev), "commit");
    } else {
      cairn_async_t* h;
      check(cairn_commit_async(st, &h), "commit_async");
      check(cairn_async_wait(h, &rev), "async wait");
      cairn_async_free(h);
    }
    if (rank == 0) {
      char line[64];
      int n = snprintf(line, sizeof line, "%llu %llu\n", (unsigned long long)rev, (unsigned long long)g);
      char ap[4096];
      snprintf(ap, sizeof ap, "%s.acked", path);
      int fd = open(ap, O_WRONLY | O_CREAT | O_APPEND, 0644);
      if (fd < 0 || write(fd, line, (size_t)n) != n || fsync(fd) != 0) die("ack");
      close(fd);
    }
  }
  check(cairn_close(st), "close");
  free(buf);
  free(arr);
  MPI_Finalize();
  return 0;
}
