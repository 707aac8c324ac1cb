/* The C API under mpiexec (1, 2 and 4 ranks): open, put with tags, an
 * asynchronous commit tested to completion, a stream written in pieces
 * with a seek and read back at random places, the write barrier, and
 * reopening; reading tags back, listing keys with sizes and tags, queries
 * (own namespace, another rank's, collective), revisions with their writer
 * counts, pin/unpin/drop, the codes and their names, and the opt-out of
 * the writer lock (require_writer_lock), the I/O counters (cairn_stats)
 * an asynchronous commit's revision and state before its wait, a shared
 * object with tags and reads of a stream at an offset. Exits
 * non-zero on any rank's failure. */
#include <mpi.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cairn/cairn.h"
#include "capi_check.h"


/* Tags, listings, queries, revisions, pin/unpin/drop and the error codes,
 * on an open writable store at revision 1 (every rank wrote "field.bin"
 * tagged step=42 and "small"). Leaves it at revision 3. */
static void check_metadata(cairn_store_t* s, int rank, int size) {
  int peer = (rank + 1) % size;
  /* Tags of another rank's object, all of them and one by name. */
  cairn_tag_t* tags = NULL;
  size_t ntags = 99;
  CHECK(cairn_get_tags(s, "field.bin", peer, &tags, &ntags) == CAIRN_OK);
  CHECK(ntags == 1 && tags && strcmp(tags[0].name, "step") == 0 && tags[0].type == CAIRN_TAG_INT64 &&
        tags[0].i == 42 && tags[0].u == 42 && tags[0].d == 42.0);
  cairn_free(tags);
  CHECK(cairn_get_tags(s, "small", CAIRN_RANK_OWN, &tags, &ntags) == CAIRN_OK && ntags == 0 && !tags);
  /* Set tags of every width and kind, commit, read them back exactly. */
  int16_t arr[3] = {-1, 2, 300};
  cairn_tag_t set[5] = {{"u8", CAIRN_TAG_UINT8, 0, 200, 0, NULL, 0},
                        {"i16", CAIRN_TAG_INT16, -7, 0, 0, NULL, 0},
                        {"f32", CAIRN_TAG_FLOAT32, 0, 0, 0.5, NULL, 0},
                        {"name", CAIRN_TAG_STRING, 0, 0, 0, "heat", 4},
                        {"arr", CAIRN_TAG_ARRAY | CAIRN_TAG_INT16, 0, 0, 0, arr, sizeof arr}};
  for (int i = 0; i < 5; i++) CHECK(cairn_set_tag(s, "small", &set[i]) == CAIRN_OK);
  cairn_tag_t bad = {NULL, CAIRN_TAG_INT8, 0, 0, 0, NULL, 0};
  CHECK(cairn_set_tag(s, "small", &bad) == CAIRN_INVALID_ARGUMENT);
  CHECK(cairn_set_tag(s, "absent", &set[0]) == CAIRN_NOT_FOUND);
  uint64_t rev = 0;
  CHECK(cairn_commit(s, &rev) == CAIRN_OK && rev == 2);
  cairn_tag_t* t = NULL;
  CHECK(cairn_get_tag(s, "small", peer, "u8", &t) == CAIRN_OK && t && t->type == CAIRN_TAG_UINT8 && t->u == 200);
  cairn_free(t);
  CHECK(cairn_get_tag(s, "small", peer, "i16", &t) == CAIRN_OK && t && t->type == CAIRN_TAG_INT16 && t->i == -7);
  cairn_free(t);
  CHECK(cairn_get_tag(s, "small", peer, "f32", &t) == CAIRN_OK && t && t->type == CAIRN_TAG_FLOAT32 && t->d == 0.5);
  cairn_free(t);
  CHECK(cairn_get_tag(s, "small", peer, "name", &t) == CAIRN_OK && t && t->type == CAIRN_TAG_STRING &&
        t->len == 4 && strcmp((const char*)t->data, "heat") == 0);
  cairn_free(t);
  CHECK(cairn_get_tag(s, "small", peer, "arr", &t) == CAIRN_OK && t &&
        t->type == (CAIRN_TAG_ARRAY | CAIRN_TAG_INT16) && t->len == sizeof arr &&
        memcmp(t->data, arr, sizeof arr) == 0);
  cairn_free(t);
  t = (cairn_tag_t*)&bad;
  CHECK(cairn_get_tag(s, "small", peer, "nope", &t) == CAIRN_NOT_FOUND && t == NULL);
  CHECK(strstr(cairn_last_error(), "nope") != NULL);
  CHECK(cairn_get_tag(s, "absent", peer, "u8", &t) == CAIRN_NOT_FOUND);

  /* Listing a namespace: keys in order, sizes, tags. */
  cairn_object_t* objs = NULL;
  size_t nobjs = 0;
  CHECK(cairn_list(s, peer, &objs, &nobjs) == CAIRN_OK && nobjs == 2);
  if (objs && nobjs == 2) {
    CHECK(strcmp(objs[0].key, "field.bin") == 0 && objs[0].key_len == 9 && objs[0].size == 300000 &&
          objs[0].ntags == 1 && objs[0].tags[0].i == 42);
    CHECK(strcmp(objs[1].key, "small") == 0 && objs[1].size == 5 && objs[1].inlined == 1 &&
          objs[1].ntags == 5 && strcmp(objs[1].tags[3].name, "name") == 0);
  }
  cairn_free(objs);
  CHECK(cairn_list(s, size + 3, &objs, &nobjs) != CAIRN_OK);

  /* Queries: own namespace, another rank's, and every rank's. */
  cairn_query_t q[2];
  memset(q, 0, sizeof q);
  q[0].name = "step";
  q[0].op = CAIRN_QUERY_RANGE;
  q[0].value.type = CAIRN_TAG_INT32;
  q[0].value.i = 40;
  q[0].upper.type = CAIRN_TAG_FLOAT64;
  q[0].upper.d = 42.0;
  cairn_hit_t* hits = NULL;
  size_t nhits = 0;
  CHECK(cairn_query(s, q, 1, CAIRN_RANK_OWN, &hits, &nhits) == CAIRN_OK && nhits == 1 && hits &&
        hits[0].rank == rank && strcmp(hits[0].key, "field.bin") == 0);
  cairn_free(hits);
  q[1].name = "name";
  q[1].op = CAIRN_QUERY_WILDCARD;
  q[1].value.data = "h?a*";
  q[1].value.len = 4;
  CHECK(cairn_query(s, q + 1, 1, peer, &hits, &nhits) == CAIRN_OK && nhits == 1 && hits[0].rank == peer &&
        strcmp(hits[0].key, "small") == 0);
  cairn_free(hits);
  CHECK(cairn_query(s, q, 2, peer, &hits, &nhits) == CAIRN_OK && nhits == 0 && hits == NULL);
  CHECK(cairn_query(s, NULL, 0, peer, &hits, &nhits) == CAIRN_OK && nhits == 2);
  cairn_free(hits);
  q[1].op = 99;
  CHECK(cairn_query(s, q, 2, peer, &hits, &nhits) == CAIRN_INVALID_ARGUMENT);
  CHECK(strstr(cairn_last_error(), "unknown op") != NULL);
  q[1].op = CAIRN_QUERY_PREFIX;
  q[1].value.data = "he";
  q[1].value.len = 2;
  CHECK(cairn_query_all(s, q + 1, 1, &hits, &nhits) == CAIRN_OK && nhits == (size_t)size);
  for (size_t i = 0; i < nhits && hits; i++) CHECK(hits[i].rank == (int)i && strcmp(hits[i].key, "small") == 0);
  cairn_free(hits);

  /* Revisions, with how many ranks wrote each; pin, unpin, drop. */
  cairn_revision_info_t* revs = NULL;
  size_t nrevs = 0;
  CHECK(cairn_list_revisions(s, &revs, &nrevs) == CAIRN_OK && nrevs == 2);
  if (revs && nrevs == 2) {
    CHECK(revs[0].revision == 1 && revs[1].revision == 2 && revs[1].parent == 1);
    CHECK(revs[0].ranks == (uint32_t)size && revs[1].ranks == (uint32_t)size);
    CHECK(revs[1].objects == 2 * (uint64_t)size + 1 && revs[0].pinned == 0); /* + the shared "config" */
  }
  cairn_free(revs);
  uint32_t writers = 0;
  CHECK(cairn_revision_ranks(s, 0, &writers) == CAIRN_OK && writers == (uint32_t)size);
  CHECK(cairn_revision_ranks(s, 1, &writers) == CAIRN_OK && writers == (uint32_t)size);
  CHECK(cairn_revision_ranks(s, 77, &writers) == CAIRN_NOT_FOUND);
  CHECK(cairn_pin(s, 1) == CAIRN_OK);
  CHECK(cairn_list_revisions(s, &revs, &nrevs) == CAIRN_OK && nrevs == 2 && revs[0].pinned == 1);
  cairn_free(revs);
  CHECK(cairn_drop(s, 1) == CAIRN_INVALID_ARGUMENT); /* pinned */
  CHECK(cairn_unpin(s, 1) == CAIRN_OK);
  CHECK(cairn_drop(s, 1) == CAIRN_OK);
  CHECK(cairn_drop(s, 1) == CAIRN_NOT_FOUND);
  CHECK(cairn_list_revisions(s, &revs, &nrevs) == CAIRN_OK && nrevs == 1 && revs[0].revision == 2);
  cairn_free(revs);

  /* Every code has its name; NULL arguments are InvalidArgument. */
  CHECK(strcmp(cairn_code_name(CAIRN_OK), "OK") == 0);
  CHECK(strcmp(cairn_code_name(CAIRN_NOT_FOUND), "NotFound") == 0);
  CHECK(strcmp(cairn_code_name(CAIRN_CORRUPTION), "Corruption") == 0);
  CHECK(strcmp(cairn_code_name(CAIRN_INVALID_ARGUMENT), "InvalidArgument") == 0);
  CHECK(strcmp(cairn_code_name(CAIRN_IO_ERROR), "IOError") == 0);
  CHECK(strcmp(cairn_code_name(CAIRN_NOT_SUPPORTED), "NotSupported") == 0);
  CHECK(strcmp(cairn_code_name(CAIRN_ABORTED), "Aborted") == 0);
  CHECK(strcmp(cairn_code_name(-42), "Unknown") == 0);
  CHECK(cairn_get_tags(s, NULL, 0, &tags, &ntags) == CAIRN_INVALID_ARGUMENT);
  CHECK(cairn_list(NULL, 0, &objs, &nobjs) == CAIRN_INVALID_ARGUMENT);
  int major = -1, minor = -1, patch = -1;
  CHECK(strcmp(cairn_version(&major, &minor, &patch), CAIRN_VERSION_STRING) == 0 &&
        major == CAIRN_VERSION_MAJOR && minor == CAIRN_VERSION_MINOR && patch == CAIRN_VERSION_PATCH);
  cairn_free(NULL);
}

/* A read's `rank` argument that names no namespace: every read that takes
 * one fails with CAIRN_INVALID_ARGUMENT and a message in C terms (the
 * function, the argument, the valid values), not C++'s ReadOptions::rank.
 * `writers` ranks wrote the revision s shows (0: none yet). */
static void expect_bad_rank(const char* fn, int rc, int bad, int writers) {
  const char* e = cairn_last_error();
  char want[128];
  CHECK(rc == CAIRN_INVALID_ARGUMENT);
  snprintf(want, sizeof want, "%s: argument rank = %d names no namespace", fn, bad);
  CHECK(strstr(e, want) != NULL);
  if (writers > 0) {
    snprintf(want, sizeof want, "a rank 0..%d (cairn_writer_ranks() - 1)", writers - 1);
    CHECK(strstr(e, want) != NULL);
  } else {
    CHECK(strstr(e, "the store has no revision yet") != NULL);
  }
  CHECK(strstr(e, "CAIRN_RANK_OWN (-1)") != NULL && strstr(e, "CAIRN_RANK_SHARED (-2)") != NULL);
  CHECK(strstr(e, "ReadOptions") == NULL && strstr(e, "kShared") == NULL);
}

static void check_bad_ranks(cairn_store_t* s, int writers) {
  int bads[3] = {writers, writers + 7, -3};
  unsigned char buf[16];
  uint64_t size = 0;
  for (int i = 0; i < 3; i++) {
    int b = bads[i];
    if (b == cairn_rank(s)) continue; /* its own namespace on a writable store */
    expect_bad_rank("cairn_get_size", cairn_get_size(s, "small", b, &size), b, writers);
    expect_bad_rank("cairn_get_range", cairn_get_range(s, "small", b, 0, buf, 2), b, writers);
    expect_bad_rank("cairn_get", cairn_get(s, "small", b, buf, sizeof buf, &size), b, writers);
    cairn_read_t rd = {"small", buf, sizeof buf, 0, 0};
    expect_bad_rank("cairn_multi_get", cairn_multi_get(s, b, &rd, 1), b, writers);
    CHECK(rd.code == CAIRN_INVALID_ARGUMENT && rd.size == 0);
    cairn_stream_t* r = NULL;
    expect_bad_rank("cairn_stream_open_read", cairn_stream_open_read(s, "small", b, &r), b, writers);
    CHECK(r == NULL);
    cairn_tag_t* tags = NULL;
    size_t ntags = 0;
    expect_bad_rank("cairn_get_tags", cairn_get_tags(s, "small", b, &tags, &ntags), b, writers);
    expect_bad_rank("cairn_get_tag", cairn_get_tag(s, "small", b, "step", &tags), b, writers);
    cairn_object_t* objs = NULL;
    size_t nobjs = 0;
    expect_bad_rank("cairn_list", cairn_list(s, b, &objs, &nobjs), b, writers);
    cairn_hit_t* hits = NULL;
    size_t nhits = 0;
    expect_bad_rank("cairn_query", cairn_query(s, NULL, 0, b, &hits, &nhits), b, writers);
  }
  /* The last rank that wrote the revision is fine. */
  if (writers > 0) CHECK(cairn_get_size(s, "small", writers - 1, &size) == CAIRN_OK && size == 5);
}

/* Options::require_writer_lock from C (cairn_options_t.require_writer_lock),
 * on a file system that cannot lock: flock made to fail with ENOSYS by
 * CAIRN_TEST_FLOCK_ERRNO on rank 0, where the lock is taken. The default
 * (cairn_options_init, or a struct from a cairn.h without the member) is
 * CAIRN_NOT_SUPPORTED naming the option on every rank; 0 writes
 * unprotected (with a warning on stderr). */
static void check_writer_lock(const char* dir, int rank) {
  char path[320];
  snprintf(path, sizeof path, "%s/nolock", dir);
  if (rank == 0) setenv("CAIRN_TEST_FLOCK_ERRNO", "38", 1); /* ENOSYS */
  cairn_options_t o;
  cairn_options_init(&o);
  CHECK(o.require_writer_lock == 1);
  cairn_store_t* s = NULL;
  CHECK(cairn_open(path, MPI_COMM_WORLD, &o, &s) == CAIRN_NOT_SUPPORTED && s == NULL);
  CHECK(strstr(cairn_last_error(), "require_writer_lock") != NULL);
  /* A caller built against the cairn.h before the member: its size is
   * accepted and the lock stays required. */
  o.require_writer_lock = 0;
  o.struct_size = offsetof(cairn_options_t, require_writer_lock);
  CHECK(cairn_open(path, MPI_COMM_WORLD, &o, &s) == CAIRN_NOT_SUPPORTED && s == NULL);
  o.struct_size = offsetof(cairn_options_t, require_writer_lock) + 1; /* no cairn.h had it */
  CHECK(cairn_open(path, MPI_COMM_WORLD, &o, &s) == CAIRN_INVALID_ARGUMENT && s == NULL);
  /* Such a program calls the library's cairn_options_init on its smaller
   * struct (the parentheses call the function, not this header's macro):
   * nothing past the struct is written, and the open works with the lock
   * required. */
  union {
    struct {
      unsigned char members[offsetof(cairn_options_t, require_writer_lock)];
      uint32_t after; /* the caller's next variable */
    } s;
    double align; /* as a cairn_options_t */
  } old;
  old.s.after = 0xdeadbeefu;
  (cairn_options_init)((cairn_options_t*)(void*)&old);
  CHECK(old.s.after == 0xdeadbeefu);
  CHECK(((cairn_options_t*)(void*)&old)->struct_size == offsetof(cairn_options_t, require_writer_lock));
  CHECK(cairn_open(path, MPI_COMM_WORLD, (cairn_options_t*)(void*)&old, &s) == CAIRN_NOT_SUPPORTED && s == NULL);
  /* And one built against a newer cairn.h: refused by the open. */
  union {
    cairn_options_t o;
    unsigned char bytes[sizeof(cairn_options_t) + 16];
  } newer;
  cairn_options_init_sized(&newer.o, sizeof newer);
  CHECK(newer.o.struct_size == sizeof newer);
  CHECK(cairn_open(path, MPI_COMM_WORLD, &newer.o, &s) == CAIRN_INVALID_ARGUMENT && s == NULL);
  CHECK(strstr(cairn_last_error(), "newer cairn.h") != NULL);
  /* The macro fills this header's size through any pointer (a void* from
   * malloc too), and NULL is nothing, as the function was. */
  void* heap = malloc(sizeof(cairn_options_t));
  cairn_options_init(heap);
  CHECK(heap && ((cairn_options_t*)heap)->struct_size == sizeof(cairn_options_t) &&
        ((cairn_options_t*)heap)->require_writer_lock == 1);
  free(heap);
  cairn_options_init(NULL);
  cairn_options_init(&o);
  o.require_writer_lock = 0;
  CHECK(cairn_open(path, MPI_COMM_WORLD, &o, &s) == CAIRN_OK);
  uint64_t rev = 0, size = 0;
  CHECK(s && cairn_put(s, "k", "unlocked", 8, NULL, 0) == CAIRN_OK);
  CHECK(s && cairn_commit(s, &rev) == CAIRN_OK && rev == 1);
  CHECK(s && cairn_get_size(s, "k", CAIRN_RANK_OWN, &size) == CAIRN_OK && size == 8);
  CHECK(cairn_close(s) == CAIRN_OK);
  if (rank == 0) unsetenv("CAIRN_TEST_FLOCK_ERRNO");
  s = NULL;
  CHECK(cairn_open(path, MPI_COMM_WORLD, NULL, &s) == CAIRN_OK && cairn_revision(s) == 1);
  CHECK(cairn_close(s) == CAIRN_OK);
}

static unsigned char byte_at(int rank, size_t i) { return (unsigned char)(i * 31 + (size_t)rank * 7 + i / 251); }

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  char dir[256];
  capi_test_dir("capi", dir, rank);
  char path[300];
  snprintf(path, sizeof path, "%s/store", dir);

  cairn_options_t o;
  cairn_options_init(&o);
  CHECK(o.writeback_bytes == (uint64_t)8 << 20);  /* the C++ default reaches C */
  o.writeback_bytes = 128 << 10;                 /* a local tuning option: differs per rank */
  if (rank == 1) o.writeback_bytes = 0;
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
  /* Positions before 0 or past 2^64 - 1 are refused, without overflow. */
  CHECK(cairn_stream_seek(w, -(int64_t)N - 1, CAIRN_SEEK_CUR) == CAIRN_INVALID_ARGUMENT);
  CHECK(strstr(cairn_last_error(), "before the start") != NULL);
  CHECK(cairn_stream_seek(w, INT64_MAX, CAIRN_SEEK_CUR) == CAIRN_OK);
  CHECK(cairn_stream_seek(w, INT64_MAX, CAIRN_SEEK_CUR) == CAIRN_INVALID_ARGUMENT);
  CHECK(strstr(cairn_last_error(), "past 2^64 - 1") != NULL);
  CHECK(cairn_stream_seek(w, INT64_MIN, CAIRN_SEEK_SET) == CAIRN_INVALID_ARGUMENT);
  CHECK(cairn_stream_seek(w, -500, CAIRN_SEEK_END) == CAIRN_OK);
  memset(ref + N - 500, 0xAB, 100);
  CHECK(cairn_stream_write(w, ref + N - 500, 100) == CAIRN_OK);
  CHECK(cairn_stream_size(w, &size) == CAIRN_OK && size == N);
  CHECK(cairn_stream_close(w) == CAIRN_OK);
  CHECK(cairn_put(s, "small", "hello", 5, NULL, 0) == CAIRN_OK);
  /* A shared object with tags (rank 0 only). */
  cairn_tag_t stag = {"units", CAIRN_TAG_STRING, 0, 0, 0, "K", 1};
  if (rank == 0) CHECK(cairn_put_shared_tags(s, "config", "abc", 3, &stag, 1) == CAIRN_OK);
  else CHECK(cairn_put_shared_tags(s, "config", "abc", 3, &stag, 1) == CAIRN_INVALID_ARGUMENT);
  CHECK(cairn_flush(s) == CAIRN_OK);

  cairn_io_stats_t io0;
  memset(&io0, 0xff, sizeof io0);
  CHECK(cairn_stats(s, &io0, sizeof io0) == CAIRN_OK);
  cairn_async_t* h = NULL;
  CHECK(cairn_commit_async(s, &h) == CAIRN_OK);
  /* The revision it makes is known before it finished. */
  CHECK(cairn_async_revision(h) == 1 && cairn_async_revision(NULL) == 0 && cairn_async_committed(NULL) == 0);
  int done = 0;
  long spins = 0;
  while (h && !done && spins++ < 100000000L) CHECK(cairn_async_test(h, &done) == CAIRN_OK);
  CHECK(done == 1);
  CHECK(cairn_async_committed(h) == 1 && cairn_async_revision(h) == 1);
  /* The counters: the 300 000 bytes of the stream were written (put with
   * staging, by the background writer) and synced (cairn_flush). */
  cairn_io_stats_t io;
  memset(&io, 0xff, sizeof io);
  CHECK(cairn_stats(s, &io, sizeof io) == CAIRN_OK);
  CHECK(io.write_bytes >= N && io.write_bytes != UINT64_MAX && io.write_requests >= 1);
  CHECK(io.fsyncs >= io0.fsyncs && io.fsyncs >= 1 && io.opens >= 1 && io.staging_stalls == 0);
  CHECK(io.writeback_requests != UINT64_MAX && io.index_tables_streamed != UINT64_MAX);
  /* An older cairn.h's smaller struct: only its members are written. */
  memset(&io, 0xff, sizeof io);
  CHECK(cairn_stats(s, &io, offsetof(cairn_io_stats_t, writeback_requests)) == CAIRN_OK);
  CHECK(io.write_bytes >= N && io.writeback_requests == UINT64_MAX);
  /* A newer cairn.h's larger struct: the members this library does not
   * know read as 0. */
  {
    struct {
      cairn_io_stats_t io;
      uint64_t newer[2];
    } big;
    memset(&big, 0xff, sizeof big);
    CHECK(cairn_stats(s, &big.io, sizeof big) == CAIRN_OK);
    CHECK(big.io.write_bytes >= N && big.io.writeback_requests != UINT64_MAX && big.newer[0] == 0 &&
          big.newer[1] == 0);
  }
  CHECK(cairn_stats(s, &io, 12) == CAIRN_INVALID_ARGUMENT && cairn_stats(NULL, &io, sizeof io) == CAIRN_INVALID_ARGUMENT);
  CHECK(strstr(cairn_last_error(), "cairn_stats: NULL store handle") != NULL);
  CHECK(cairn_stats(s, &io, 0) == CAIRN_INVALID_ARGUMENT &&
        strstr(cairn_last_error(), "cairn_stats: stats_size 0 is not sizeof(cairn_io_stats_t)") != NULL);
  uint64_t rev = 0;
  if (h) CHECK(cairn_async_wait(h, &rev) == CAIRN_OK && rev == 1);
  cairn_async_free(h);
  CHECK(cairn_revision(s) == 1);
  cairn_tag_t* st = NULL;
  size_t nst = 0;
  CHECK(cairn_get_tags(s, "config", CAIRN_RANK_SHARED, &st, &nst) == CAIRN_OK && nst == 1 && st &&
        strcmp(st[0].name, "units") == 0 && strcmp((const char*)st[0].data, "K") == 0);
  cairn_free(st);
  check_metadata(s, rank, cairn_size(s));
  CHECK(cairn_revision(s) == 2);
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
  /* Reads at an offset leave the position where it was. */
  uint64_t at = 0;
  CHECK(cairn_stream_seek(r, 1234, CAIRN_SEEK_SET) == CAIRN_OK);
  for (int i = 0; i < 20 && r; i++) {
    size_t off = ((size_t)i * 104729) % (N - sizeof buf);
    memset(buf, 0, sizeof buf);
    CHECK(cairn_stream_read_at(r, off, buf, sizeof buf) == CAIRN_OK && memcmp(buf, ref + off, sizeof buf) == 0);
  }
  CHECK(cairn_stream_tell(r, &at) == CAIRN_OK && at == 1234);
  CHECK(cairn_stream_read_at(r, N - 10, buf, 11) == CAIRN_INVALID_ARGUMENT);
  CHECK(cairn_stream_read_at(r, N - 10, buf, 10) == CAIRN_OK && memcmp(buf, ref + N - 10, 10) == 0);
  CHECK(cairn_stream_close(r) == CAIRN_OK);
  CHECK(cairn_stream_open_read(s, "absent", -1, &r) == CAIRN_NOT_FOUND);
  cairn_io_stats_t rio;
  CHECK(cairn_stats(s, &rio, sizeof rio) == CAIRN_OK && rio.read_bytes >= 100 * 4000 && rio.read_requests >= 1 &&
        rio.write_bytes == 0);
  check_bad_ranks(s, cairn_size(s));
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

  /* A writable store with no revision yet: only its own rank and the two
   * named values read (a missing key is then CAIRN_NOT_FOUND). */
  char fresh[320];
  snprintf(fresh, sizeof fresh, "%s/fresh", dir);
  s = NULL;
  o.read_only = 0;
  CHECK(cairn_open(fresh, MPI_COMM_WORLD, &o, &s) == CAIRN_OK);
  check_bad_ranks(s, 0);
  CHECK(cairn_get_size(s, "small", rank, &size) == CAIRN_NOT_FOUND);
  CHECK(cairn_close(s) == CAIRN_OK);
  free(ref);
  check_writer_lock(dir, rank);

  return capi_test_finish("capi_test", dir, rank);
}
