/* Probe 3: the C API's array calls with bad input; prints each code and
 * message so it can be compared with the C++ API's (p3cc). usage: p3 STORE */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "cairn/cairn.h"

static int rank;
#define TRY(label, expr)                                                                       \
  do {                                                                                         \
    int _c = (expr);                                                                           \
    if (rank == 0) printf("%-44s %s: %s\n", label, cairn_code_name(_c), _c ? cairn_last_error() : ""); \
  } while (0)

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  cairn_options_t o;
  cairn_options_init(&o);
  cairn_store_t* s = NULL;
  int c = cairn_open(argv[1], MPI_COMM_WORLD, &o, &s);
  if (c) { printf("open %d %s\n", c, cairn_last_error()); return 1; }
  uint64_t shape[2] = {4, 6}, st[2] = {0, 0}, cnt[2] = {4, 6}, zero[2] = {0, 0};
  double d[24];
  for (int i = 0; i < 24; i++) d[i] = i;
  uint64_t st1[2] = {(uint64_t)rank, 0}, cnt1[2] = {1, 6};
  TRY("put ok", cairn_put_array(s, "a", CAIRN_FLOAT64, 2, shape, st1, cnt1, d + 6 * rank, 0, NULL, 0));
  TRY("put null name", cairn_put_array(s, NULL, CAIRN_FLOAT64, 2, shape, st, cnt, d, 0, NULL, 0));
  TRY("put empty name", cairn_put_array(s, "", CAIRN_FLOAT64, 2, shape, st, cnt, d, 0, NULL, 0));
  TRY("put dtype 0", cairn_put_array(s, "b", 0, 2, shape, st, cnt, d, 0, NULL, 0));
  TRY("put dtype 11", cairn_put_array(s, "b", 11, 2, shape, st, cnt, d, 0, NULL, 0));
  TRY("put dtype 257 (uint8 wraps to 1)", cairn_put_array(s, "b", 257, 2, shape, st, cnt, d, 0, NULL, 0));
  TRY("put dtype -255", cairn_put_array(s, "b", -255, 2, shape, st, cnt, d, 0, NULL, 0));
  TRY("put ndims 0", cairn_put_array(s, "b", CAIRN_FLOAT64, 0, shape, st, cnt, d, 0, NULL, 0));
  TRY("put ndims -1", cairn_put_array(s, "b", CAIRN_FLOAT64, -1, shape, st, cnt, d, 0, NULL, 0));
  TRY("put ndims 17", cairn_put_array(s, "b", CAIRN_FLOAT64, 17, shape, st, cnt, d, 0, NULL, 0));
  TRY("put null shape", cairn_put_array(s, "b", CAIRN_FLOAT64, 2, NULL, st, cnt, d, 0, NULL, 0));
  TRY("put null start", cairn_put_array(s, "b", CAIRN_FLOAT64, 2, shape, NULL, cnt, d, 0, NULL, 0));
  TRY("put null count", cairn_put_array(s, "b", CAIRN_FLOAT64, 2, shape, st, NULL, d, 0, NULL, 0));
  TRY("put null data", cairn_put_array(s, "b", CAIRN_FLOAT64, 2, shape, st, cnt, NULL, 0, NULL, 0));
  TRY("put null data empty box", cairn_put_array(s, "e", CAIRN_FLOAT64, 2, shape, st, zero, NULL, 0, NULL, 0));
  TRY("put flags 2", cairn_put_array(s, "b", CAIRN_FLOAT64, 2, shape, st, cnt, d, 2, NULL, 0));
  TRY("put flags 0x200", cairn_put_array(s, "b", CAIRN_FLOAT64, 2, shape, st, cnt, d, 0x200, NULL, 0));
  TRY("put flags -1", cairn_put_array(s, "b", CAIRN_FLOAT64, 2, shape, st, cnt, d, -1, NULL, 0));
  TRY("put tags NULL ntags 1", cairn_put_array(s, "b", CAIRN_FLOAT64, 2, shape, st, cnt, d, 0, NULL, 1));
  TRY("put null store", cairn_put_array(NULL, "b", CAIRN_FLOAT64, 2, shape, st, cnt, d, 0, NULL, 0));
  TRY("put box past shape", cairn_put_array(s, "b", CAIRN_FLOAT64, 2, shape, cnt, cnt, d, 0, NULL, 0));
  TRY("put other dtype than own earlier", cairn_put_array(s, "a", CAIRN_FLOAT32, 2, shape, st1, cnt1, d, 0, NULL, 0));
  uint64_t shape1[1] = {24};
  TRY("put other ndims than own earlier", cairn_put_array(s, "a", CAIRN_FLOAT64, 1, shape1, st, cnt, d, 0, NULL, 0));
  TRY("delete null name", cairn_delete_array(s, NULL));
  TRY("delete missing", cairn_delete_array(s, "nope"));
  TRY("commit", cairn_commit(s, NULL));
  double out[32];
  TRY("get ok", cairn_get_array(s, "a", 2, st, cnt, out, sizeof out, 0));
  TRY("get cap too small", cairn_get_array(s, "a", 2, st, cnt, out, 8, 0));
  TRY("get null out", cairn_get_array(s, "a", 2, st, cnt, NULL, sizeof out, 0));
  TRY("get null out, empty box", cairn_get_array(s, "a", 2, st, zero, NULL, 0, 0));
  TRY("get null start", cairn_get_array(s, "a", 2, NULL, cnt, out, sizeof out, 0));
  TRY("get null count", cairn_get_array(s, "a", 2, st, NULL, out, sizeof out, 0));
  TRY("get null name", cairn_get_array(s, NULL, 2, st, cnt, out, sizeof out, 0));
  TRY("get ndims 1", cairn_get_array(s, "a", 1, st, cnt, out, sizeof out, 0));
  TRY("get ndims 0", cairn_get_array(s, "a", 0, st, cnt, out, sizeof out, 0));
  TRY("get ndims -3", cairn_get_array(s, "a", -3, st, cnt, out, sizeof out, 0));
  TRY("get ndims 99", cairn_get_array(s, "a", 99, st, cnt, out, sizeof out, 0));
  TRY("get flags 0x100 (put-only flag)", cairn_get_array(s, "a", 2, st, cnt, out, sizeof out, 0x100));
  TRY("get flags 7", cairn_get_array(s, "a", 2, st, cnt, out, sizeof out, 7));
  TRY("get missing", cairn_get_array(s, "zz", 2, st, cnt, out, sizeof out, 0));
  uint64_t big[2] = {UINT64_MAX, 2};
  TRY("get start 2^64-1 count 2", cairn_get_array(s, "a", 2, big, cnt, out, sizeof out, 0));
  uint64_t hc[2] = {1ull << 62, 1ull << 3};
  TRY("get count overflow (prod*8 wraps to 0)", cairn_get_array(s, "a", 2, st, hc, out, 0, 0));
  cairn_array_info_t* info = NULL;
  TRY("info null name", cairn_array_info(s, NULL, 0, &info));
  TRY("info null out", cairn_array_info(s, "a", 0, NULL));
  TRY("info missing", cairn_array_info(s, "zz", 0, &info));
  cairn_array_block_info_t* bl = NULL;
  size_t nb = 0;
  TRY("blocks null n", cairn_array_blocks(s, "a", &bl, NULL));
  TRY("blocks ok", cairn_array_blocks(s, "a", &bl, &nb));
  if (rank == 0) printf("  nblocks %zu\n", nb);
  cairn_free(bl);
  TRY("info e (empty box put)", cairn_array_info(s, "e", 1, &info));
  if (info && rank == 0) printf("  e: blocks %llu\n", (unsigned long long)info->block_count);
  cairn_free(info);
  TRY("close", cairn_close(s));
  MPI_Finalize();
  return 0;
}
