/* A C program built against an installed cairn with nothing but
 * `cc main.c $(pkg-config --cflags --libs cairn)`: puts, commits, reopens
 * and reads back. Usage: user_pc STORE_DIR. Exit 0 on success. */
#include <mpi.h>
#include <stdio.h>
#include <string.h>

#include <cairn/cairn.h>

#define CHECK(x)                                                          \
  do {                                                                    \
    if ((x) != CAIRN_OK) {                                                \
      fprintf(stderr, "user_pc: %s: %s\n", #x, cairn_last_error());      \
      MPI_Abort(MPI_COMM_WORLD, 1);                                       \
    }                                                                     \
  } while (0)

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  if (argc != 2) MPI_Abort(MPI_COMM_WORLD, 2);
  cairn_store_t* s = NULL;
  CHECK(cairn_open(argv[1], MPI_COMM_WORLD, NULL, &s));
  char msg[32];
  snprintf(msg, sizeof msg, "hello from rank %d", cairn_rank(s));
  CHECK(cairn_put(s, "msg", msg, strlen(msg), NULL, 0));
  CHECK(cairn_commit(s, NULL));
  CHECK(cairn_close(s));

  cairn_options_t o;
  cairn_options_init(&o);
  o.read_only = 1;
  CHECK(cairn_open(argv[1], MPI_COMM_WORLD, &o, &s));
  char back[32] = {0};
  uint64_t n = 0;
  CHECK(cairn_get(s, "msg", CAIRN_RANK_OWN, back, sizeof back - 1, &n));
  int bad = strcmp(back, msg) != 0;
  CHECK(cairn_close(s));
  int any = 0;
  MPI_Allreduce(&bad, &any, 1, MPI_INT, MPI_LOR, MPI_COMM_WORLD);
  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (rank == 0) printf("user_pc: %s\n", any ? "FAILED" : "ok");
  MPI_Finalize();
  return any;
}
