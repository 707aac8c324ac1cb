/* A C program using an installed cairn (found with find_package): every
 * rank puts a value with tags, all commit, then each rank reads back a
 * neighbour's value and tags, lists the revision with its rank count and
 * runs a collective query. Usage: user_c STORE_DIR. Exit 0 on success. */
#include <mpi.h>
#include <stdio.h>
#include <string.h>

#include <cairn/cairn.h>
#include <cairn/version.h>

#if CAIRN_VERSION_MAJOR != 0 || CAIRN_VERSION_MINOR < 2
#error "unexpected cairn version"
#endif

#define CHECK(x)                                                               \
  do {                                                                         \
    int rc_ = (x);                                                             \
    if (rc_ != CAIRN_OK) {                                                     \
      fprintf(stderr, "user_c: %s: %s (%s)\n", #x, cairn_code_name(rc_),       \
              cairn_last_error());                                             \
      MPI_Abort(MPI_COMM_WORLD, 1);                                            \
    }                                                                          \
  } while (0)

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  if (argc != 2) MPI_Abort(MPI_COMM_WORLD, 2);
  int major = -1;
  const char* v = cairn_version(&major, NULL, NULL);
  if (major != CAIRN_VERSION_MAJOR || strcmp(v, CAIRN_VERSION_STRING) != 0) {
    fprintf(stderr, "user_c: library %s, headers %s\n", v, CAIRN_VERSION_STRING);
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  cairn_store_t* s = NULL;
  CHECK(cairn_open(argv[1], MPI_COMM_WORLD, NULL, &s));
  int rank = cairn_rank(s), size = cairn_size(s);
  double field[4] = {rank, rank + 0.5, rank + 1.0, rank + 1.5};
  cairn_tag_t tags[2] = {{"step", CAIRN_TAG_INT32, 7, 0, 0, NULL, 0},
                         {"units", CAIRN_TAG_STRING, 0, 0, 0, "kelvin", 6}};
  CHECK(cairn_put(s, "field", field, sizeof field, tags, 2));
  uint64_t rev = 0;
  CHECK(cairn_commit(s, &rev));

  int peer = (rank + 1) % size;
  double back[4];
  uint64_t n = 0;
  CHECK(cairn_get(s, "field", peer, back, sizeof back, &n));
  int bad = n != sizeof back || back[1] != peer + 0.5;
  cairn_tag_t* got = NULL;
  size_t ngot = 0;
  CHECK(cairn_get_tags(s, "field", peer, &got, &ngot));
  bad |= ngot != 2 || got[0].type != CAIRN_TAG_INT32 || got[0].i != 7 ||
         got[1].len != 6 || memcmp(got[1].data, "kelvin", 6) != 0;
  cairn_free(got);
  uint32_t writers = 0;
  CHECK(cairn_revision_ranks(s, rev, &writers));
  bad |= writers != (uint32_t)size;
  cairn_query_t q = {"step", CAIRN_QUERY_EQUAL, {NULL, CAIRN_TAG_INT64, 7, 0, 0, NULL, 0},
                     {NULL, 0, 0, 0, 0, NULL, 0}};
  cairn_hit_t* hits = NULL;
  size_t nhits = 0;
  CHECK(cairn_query_all(s, &q, 1, &hits, &nhits));
  bad |= nhits != (size_t)size || hits[size - 1].rank != size - 1;
  cairn_free(hits);
  CHECK(cairn_close(s));
  int any = 0;
  MPI_Allreduce(&bad, &any, 1, MPI_INT, MPI_LOR, MPI_COMM_WORLD);
  if (rank == 0) printf("user_c: cairn %s, %d ranks, revision %lu: %s\n", v, size,
                        (unsigned long)rev, any ? "FAILED" : "ok");
  MPI_Finalize();
  return any;
}
