/* The promises of stream.h about retention, checked as a user would:
 * nu_keep STORE (fresh), any rank count. With keep_revisions = 1 and
 * staging, (1) a write stream open across many commits keeps what it wrote,
 * (2) a reader keeps the object it opened while commits of the same handle
 * expire its revision and rewrite the key. */
#include <stdint.h>

#include "nu_check.h"

#define MB (1u << 20)

static void fill(char* b, size_t n, int seed) {
  for (size_t k = 0; k < n; k++) b[k] = (char)(k * 13 + seed * 7 + (k >> 12));
}
static int same(const char* b, size_t n, int seed) {
  for (size_t k = 0; k < n; k++)
    if (b[k] != (char)(k * 13 + seed * 7 + (k >> 12))) return 0;
  return 1;
}

int main(int argc, char** argv) {
  int prov, me;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &prov);
  MPI_Comm_rank(MPI_COMM_WORLD, &me);
  nu_rank = me;
  cairn_options_t o;
  cairn_options_init(&o);
  o.keep_revisions = 1;
  o.staging_bytes = 4 * MB;
  o.extent_size = 1 * MB; /* small extents: freed space is reused soon */
  o.chunk_size = 64 * 1024;
  cairn_store_t* st = NULL;
  OK(cairn_open(argv[1], MPI_COMM_WORLD, &o, &st));
  if (!st) return 1;
  size_t n = 3 * MB;
  char* buf = malloc(n);
  char* back = malloc(n);
  uint64_t rev, size;

  /* (2) setup: "r" committed, then a reader opened on it */
  fill(buf, n, 1);
  OK(cairn_put(st, "r", buf, n, NULL, 0));
  OK(cairn_commit(st, &rev));
  cairn_stream_t* rd = NULL;
  OK(cairn_stream_open_read(st, "r", -1, &rd));

  /* (1) a write stream, written now, closed after many commits */
  cairn_stream_t* w = NULL;
  OK(cairn_stream_open_write(st, "s", NULL, 0, &w));
  fill(buf, n, 2);
  for (size_t off = 0; off < n; off += 100000) OK(cairn_stream_write(w, buf + off, n - off < 100000 ? n - off : 100000));
  OK(cairn_stream_flush(w));

  /* many commits that rewrite keys (sync and async): with keep = 1 their
   * space is reused from one to the next */
  for (int k = 0; k < 6; k++) {
    fill(buf, n, 10 + k);
    OK(cairn_put(st, "r", buf, n, NULL, 0));
    OK(cairn_put(st, "x", buf, n, NULL, 0));
    if (k % 2) {
      cairn_async_t* h = NULL;
      OK(cairn_commit_async(st, &h));
      OK(cairn_async_wait(h, &rev));
      cairn_async_free(h);
    } else {
      OK(cairn_commit(st, &rev));
    }
  }
  /* the reader still reads the first "r" */
  size_t got = 0;
  OK(cairn_stream_read(rd, back, n, &got));
  CHECK(got == n && same(back, n, 1), "reader of an expired revision: got %zu, intact %d", got, same(back, n, 1));
  OK(cairn_stream_close(rd));
  /* the stream joins the next commit, intact */
  OK(cairn_stream_close(w));
  OK(cairn_commit(st, &rev));
  OK(cairn_get(st, "s", -1, back, n, &size));
  CHECK(size == n && same(back, n, 2), "stream open across commits: intact %d", same(back, n, 2));
  OK(cairn_get(st, "r", -1, back, n, &size));
  CHECK(same(back, n, 15), "r of the last commit");
  cairn_revision_info_t* revs = NULL;
  size_t nr = 0;
  OK(cairn_list_revisions(st, &revs, &nr));
  CHECK(nr == 1, "keep 1: %zu revisions", nr);
  cairn_free(revs);
  OK(cairn_close(st));
  /* reopen and check again from disk */
  OK(cairn_open(argv[1], MPI_COMM_WORLD, NULL, &st));
  if (st) {
    OK(cairn_get(st, "s", -1, back, n, &size));
    CHECK(size == n && same(back, n, 2), "stream after reopen");
    OK(cairn_close(st));
  }
  free(buf);
  free(back);
  int rc = nu_finish("nu_keep");
  MPI_Finalize();
  return rc;
}
