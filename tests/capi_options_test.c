/* Byte sizes of 2^63 and more in cairn_options_t: what a negative 64-bit
 * size from C or Fortran becomes (-1 is 2^64 - 1). Open's options check
 * refuses each byte-size option (extent_size, chunk_size,
 * write_buffer_size, inline_value_limit, compact_index_limit,
 * staging_bytes, writeback_bytes) at 2^64 - 1 and at 2^63 (a power of two,
 * so the other checks of extent_size and chunk_size let it pass) with
 * CAIRN_INVALID_ARGUMENT naming the option, when only the last rank passes
 * it and when every rank does, for a writable open that would create a
 * store (none is created) and a read-only one: every rank gets the error,
 * none hangs (collective_timeout_s aborts a regression after 60 s instead)
 * or opens. 2^63 - 1 (writeback_bytes) is still accepted. Before the check,
 * a local tuning option of 2^63 or more opened, or crashed the open. */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cairn/cairn.h"
#include "capi_check.h"

enum { kOptions = 7 };
static const char* const kNames[kOptions] = {"extent_size",         "chunk_size",    "write_buffer_size",
                                             "inline_value_limit",  "compact_index_limit", "staging_bytes",
                                             "writeback_bytes"};

static void set_option(cairn_options_t* o, int which, uint64_t v) {
  switch (which) {
    case 0: o->extent_size = v; break;
    case 1: o->chunk_size = v; break;
    case 2: o->write_buffer_size = (size_t)v; break;
    case 3: o->inline_value_limit = (size_t)v; break;
    case 4: o->compact_index_limit = (size_t)v; break;
    case 5: o->staging_bytes = v; break;
    default: o->writeback_bytes = v; break;
  }
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  char dir[256];
  capi_test_dir("capi-options", dir, rank);
  char existing[300], fresh[320];
  snprintf(existing, sizeof existing, "%s/store", dir);

  /* A store with one revision, for the read-only opens. */
  cairn_options_t o;
  cairn_options_init(&o);
  cairn_store_t* s = NULL;
  CHECK(cairn_open(existing, MPI_COMM_WORLD, &o, &s) == CAIRN_OK);
  CHECK(cairn_put(s, "k", "v", 1, NULL, 0) == CAIRN_OK);
  CHECK(cairn_commit(s, NULL) == CAIRN_OK);
  CHECK(cairn_close(s) == CAIRN_OK);

  const uint64_t values[2] = {UINT64_MAX, (uint64_t)1 << 63};
  for (int which = 0; which < kOptions; which++) {
    for (int vi = 0; vi < 2; vi++) {
      for (int everyone = 0; everyone < 2; everyone++) {
        for (int read_only = 0; read_only < 2; read_only++) {
          cairn_options_init(&o);
          o.collective_timeout_s = 60;
          if (read_only) {
            o.read_only = 1;
            o.create_if_missing = 0;
          }
          if (everyone || rank == size - 1) set_option(&o, which, values[vi]);
          /* A path of its own per case: an earlier case that opened (before
           * the check) must not hide a directory this one made. */
          snprintf(fresh, sizeof fresh, "%s/never-%d-%d-%d", dir, which, vi, everyone);
          s = NULL;
          int rc = cairn_open(read_only ? existing : fresh, MPI_COMM_WORLD, &o, &s);
          const char* err = cairn_last_error();
          if (rc != CAIRN_INVALID_ARGUMENT || s != NULL || strstr(err, kNames[which]) == NULL) {
            fprintf(stderr, "rank %d: %s = %llu on %s, %s open: code %d, %s\n", rank, kNames[which],
                    (unsigned long long)values[vi], everyone ? "every rank" : "the last rank",
                    read_only ? "a read-only" : "a creating", rc, err);
            failures++;
          }
          /* Where no other rank's option differs, the check's own message:
           * the value, read as signed too, and the rule. */
          if (rc == CAIRN_INVALID_ARGUMENT && (everyone || size == 1)) {
            char want[200];
            snprintf(want, sizeof want, "%s is %llu (%lld as a signed 64-bit integer): a byte size must be below 2^63",
                     kNames[which], (unsigned long long)values[vi], (long long)(int64_t)values[vi]);
            if (strstr(err, want) == NULL) {
              fprintf(stderr, "rank %d: message without \"%s\": %s\n", rank, want, err);
              failures++;
            }
          }
          /* Every rank opened (no check): close it together. */
          int opened = s != NULL, all_opened = 0;
          MPI_Allreduce(&opened, &all_opened, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
          if (all_opened) cairn_close(s);
          else if (opened) MPI_Abort(MPI_COMM_WORLD, 3); /* some ranks opened, some not: the hang this test is for */
          if (rank == 0 && !read_only) {
            struct stat st;
            CHECK(stat(fresh, &st) != 0); /* nothing created */
          }
          MPI_Barrier(MPI_COMM_WORLD);
        }
      }
    }
  }

  /* The largest accepted byte size: 2^63 - 1 on the last rank. */
  cairn_options_init(&o);
  o.read_only = 1;
  o.create_if_missing = 0;
  if (rank == size - 1) o.writeback_bytes = ((uint64_t)1 << 63) - 1;
  s = NULL;
  CHECK(cairn_open(existing, MPI_COMM_WORLD, &o, &s) == CAIRN_OK && s != NULL);
  uint64_t n = 0;
  if (s) {
    CHECK(cairn_get_size(s, "k", 0, &n) == CAIRN_OK && n == 1);
    CHECK(cairn_close(s) == CAIRN_OK);
  }
  return capi_test_finish("capi_options_test", dir, rank);
}
