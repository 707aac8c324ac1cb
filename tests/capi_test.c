/* The C API under mpiexec (1, 2 and 4 ranks): open, put with tags, an
 * asynchronous commit tested to completion, a stream written in pieces
 * with a seek and read back at random places, the write barrier, and
 * reopening. Exits non-zero on any rank's failure. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

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

static unsigned char byte_at(int rank, size_t i) { return (unsigned char)(i * 31 + (size_t)rank * 7 + i / 251); }

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  char dir[256] = {0};
  if (rank == 0) {
    const char* base = getenv("TMPDIR");
    snprintf(dir, sizeof dir, "%s/cairn-capi-XXXXXX", base ? base : "/tmp");
    if (!mkdtemp(dir)) MPI_Abort(MPI_COMM_WORLD, 1);
  }
  MPI_Bcast(dir, sizeof dir, MPI_CHAR, 0, MPI_COMM_WORLD);
  char path[300];
  snprintf(path, sizeof path, "%s/store", dir);

  cairn_options_t o;
  cairn_options_init(&o);
  o.extent_size = 1 << 20;
  o.chunk_size = 64 << 10;
  o.write_buffer_size = 256 << 10;
  o.staging_bytes = 1 << 20;
  cairn_store_t* s = NULL;
  CHECK(cairn_open(path, MPI_COMM_WORLD, &o, &s) == CAIRN_OK);

  /* A stream of 300 000 bytes written in pieces of 1000, with one seek back. */
  enum { N = 300000 };
  unsigned char* ref = malloc(N);
  for (size_t i = 0; i < N; i++) ref[i] = byte_at(rank, i);
  cairn_tag_t tag = {"step", CAIRN_TAG_INT64, 42, 0, 0, NULL, 0};
  cairn_stream_t* w = NULL;
  CHECK(cairn_stream_open_write(s, "field.bin", &tag, 1, &w) == CAIRN_OK);
  for (size_t off = 0; off < N; off += 1000) CHECK(cairn_stream_write(w, ref + off, 1000) == CAIRN_OK);
  uint64_t pos = 0, size = 0;
  CHECK(cairn_stream_tell(w, &pos) == CAIRN_OK && pos == N);
  CHECK(cairn_stream_seek(w, -500, CAIRN_SEEK_END) == CAIRN_OK);
  memset(ref + N - 500, 0xAB, 100);
  CHECK(cairn_stream_write(w, ref + N - 500, 100) == CAIRN_OK);
  CHECK(cairn_stream_size(w, &size) == CAIRN_OK && size == N);
  CHECK(cairn_stream_close(w) == CAIRN_OK);
  CHECK(cairn_put(s, "small", "hello", 5, NULL, 0) == CAIRN_OK);
  CHECK(cairn_flush(s) == CAIRN_OK);

  cairn_async_t* h = NULL;
  CHECK(cairn_commit_async(s, &h) == CAIRN_OK);
  int done = 0;
  long spins = 0;
  while (h && !done && spins++ < 100000000L) CHECK(cairn_async_test(h, &done) == CAIRN_OK);
  CHECK(done == 1);
  uint64_t rev = 0;
  if (h) CHECK(cairn_async_wait(h, &rev) == CAIRN_OK && rev == 1);
  cairn_async_free(h);
  CHECK(cairn_revision(s) == 1);
  CHECK(cairn_close(s) == CAIRN_OK);

  /* Reopen read-only and read the stream back at scattered places. */
  o.read_only = 1;
  s = NULL;
  CHECK(cairn_open(path, MPI_COMM_WORLD, &o, &s) == CAIRN_OK);
  cairn_stream_t* r = NULL;
  CHECK(cairn_stream_open_read(s, "field.bin", -1, &r) == CAIRN_OK);
  unsigned char buf[5000];
  for (int i = 0; i < 100 && r; i++) {
    size_t off = ((size_t)i * 7919 * 13) % N, got = 0;
    CHECK(cairn_stream_seek(r, (int64_t)off, CAIRN_SEEK_SET) == CAIRN_OK);
    CHECK(cairn_stream_read(r, buf, sizeof buf, &got) == CAIRN_OK);
    size_t want = N - off < sizeof buf ? N - off : sizeof buf;
    CHECK(got == want);
    CHECK(memcmp(buf, ref + off, got) == 0);
  }
  CHECK(cairn_stream_write(r, buf, 1) == CAIRN_INVALID_ARGUMENT);
  CHECK(cairn_stream_close(r) == CAIRN_OK);
  CHECK(cairn_stream_open_read(s, "absent", -1, &r) == CAIRN_NOT_FOUND);
  CHECK(cairn_close(s) == CAIRN_OK);

  /* Streams that outlive their store (cairn_close frees it): every call
   * fails with "store ... is closed", closing them is harmless, and the
   * writer's data is not committed. */
  o.read_only = 0;
  s = NULL;
  CHECK(cairn_open(path, MPI_COMM_WORLD, &o, &s) == CAIRN_OK);
  w = NULL;
  r = NULL;
  CHECK(cairn_stream_open_write(s, "orphan.bin", NULL, 0, &w) == CAIRN_OK);
  CHECK(cairn_stream_write(w, ref, N) == CAIRN_OK);
  CHECK(cairn_stream_open_read(s, "field.bin", -1, &r) == CAIRN_OK);
  CHECK(cairn_close(s) == CAIRN_OK);
  if (w && r) {
    size_t got = 1;
    CHECK(cairn_stream_write(w, ref, 1000) == CAIRN_INVALID_ARGUMENT);
    CHECK(strstr(cairn_last_error(), "closed") != NULL);
    CHECK(cairn_stream_flush(w) == CAIRN_INVALID_ARGUMENT);
    CHECK(cairn_stream_read(r, buf, sizeof buf, &got) == CAIRN_INVALID_ARGUMENT && got == 0);
    CHECK(strstr(cairn_last_error(), "closed") != NULL);
    CHECK(cairn_stream_seek(r, 10, CAIRN_SEEK_SET) == CAIRN_INVALID_ARGUMENT);
    CHECK(cairn_stream_size(w, &size) == CAIRN_OK && size == N);
    CHECK(cairn_stream_close(w) == CAIRN_INVALID_ARGUMENT);
    CHECK(strstr(cairn_last_error(), "not committed") != NULL);
    CHECK(cairn_stream_close(r) == CAIRN_OK);
  }
  s = NULL;
  CHECK(cairn_open(path, MPI_COMM_WORLD, &o, &s) == CAIRN_OK);
  CHECK(cairn_get_size(s, "orphan.bin", -1, &size) == CAIRN_NOT_FOUND);
  CHECK(cairn_close(s) == CAIRN_OK);
  free(ref);

  int worst = 0;
  MPI_Allreduce(&failures, &worst, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0) {
    char cmd[400];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (system(cmd) != 0) worst = 1;
    printf("capi_test: %s\n", worst ? "FAILED" : "passed");
  }
  MPI_Finalize();
  return worst != 0;
}
