/* Seventh pass: C collective calls other than open with a NULL or odd
 * argument on one rank (the last, or rank 0 with ODD0=1): cairn_get_shared
 * (NULL key, buffer, size; a capacity too small) and cairn_query_all (NULL
 * hits, count, conditions; an unknown op; a NULL name). Every case must end
 * (run under `timeout`) and the next commit line up on every rank.
 *   mpiexec -n N breaker_onebad_coll_c DIR CASE */
#include <cairn/cairn.h>
#include <stdio.h>
#include <string.h>
#include <stdlib.h>
int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, size; MPI_Comm_rank(MPI_COMM_WORLD, &rank); MPI_Comm_size(MPI_COMM_WORLD, &size);
  int odd = getenv("ODD0") ? rank == 0 : rank == size - 1;
  const char* c = argv[2];
  cairn_options_t o; cairn_options_init(&o);
  cairn_store_t* st;
  if (cairn_open(argv[1], MPI_COMM_WORLD, &o, &st)) { printf("open %s\n", cairn_last_error()); return 1; }
  if (rank == 0) cairn_put_shared(st, "sh", "abc", 3);
  cairn_put(st, "k", "v", 1, NULL, 0);
  uint64_t rev; cairn_commit(st, &rev);
  int rc = 0; char buf[16]; uint64_t n = 0;
  cairn_hit_t* hits = NULL; size_t nh = 0;
  cairn_query_t q; memset(&q, 0, sizeof q); q.name = "t"; q.op = CAIRN_QUERY_EXISTS;
  if (!strcmp(c, "gs_nullkey")) rc = cairn_get_shared(st, odd ? NULL : "sh", buf, sizeof buf, &n);
  else if (!strcmp(c, "gs_nullbuf")) rc = cairn_get_shared(st, "sh", odd ? NULL : buf, sizeof buf, &n);
  else if (!strcmp(c, "gs_nullsize")) rc = cairn_get_shared(st, "sh", buf, sizeof buf, odd ? NULL : &n);
  else if (!strcmp(c, "gs_smallcap")) rc = cairn_get_shared(st, "sh", buf, odd ? 1 : sizeof buf, &n);
  else if (!strcmp(c, "qa_nullhits")) rc = cairn_query_all(st, &q, 1, odd ? NULL : &hits, &nh);
  else if (!strcmp(c, "qa_nullnh")) rc = cairn_query_all(st, &q, 1, &hits, odd ? NULL : &nh);
  else if (!strcmp(c, "qa_nullconds")) rc = cairn_query_all(st, odd ? NULL : &q, 1, &hits, &nh);
  else if (!strcmp(c, "qa_badop")) { cairn_query_t b = q; b.op = 99; rc = cairn_query_all(st, odd ? &b : &q, 1, &hits, &nh); }
  else if (!strcmp(c, "qa_nullname")) { cairn_query_t b = q; b.name = NULL; rc = cairn_query_all(st, odd ? &b : &q, 1, &hits, &nh); }
  else if (!strcmp(c, "commit_nullstore")) rc = cairn_commit(odd ? NULL : st, &rev);
  printf("%s rank %d: rc %d %s\n", c, rank, rc, rc ? cairn_last_error() : "");
  fflush(stdout);
  /* the next collective must line up */
  rc = cairn_commit(st, &rev);
  printf("%s rank %d: next commit rc %d rev %llu\n", c, rank, rc, (unsigned long long)rev);
  cairn_close(st);
  MPI_Finalize();
  return 0;
}
