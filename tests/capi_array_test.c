/* The C API of global arrays under mpiexec (1, 2, 3 and 4 ranks): a 2-D
 * float64 array in irregular row slabs (rank 1 puts none from 3 ranks on),
 * read whole and as a sub-box crossing blocks on every rank; the same
 * values put column-major (Fortran order) and read row-major; a 1-D array
 * of every dtype; tags on arrays, info with and without blocks, blocks
 * with their statistics (cairn_array_blocks), the list,
 * queries, delete, writer ranks, a read-only reopen, and the errors (small
 * buffer, wrong ndims, unknown dtype or flags, absent array), and the
 * checksum grain of cairn_put_array_opts, cairn_get_array_opts (the gap
 * limit, counted by cairn_array_read_stats). Exits
 * non-zero on any rank's failure. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cairn/cairn.h"
#include "capi_check.h"


enum { NY = 5, NX = 7, PER = 4 };

static double value_at(uint64_t y, uint64_t x) { return (double)(y * 100 + x) + 0.25; }

/* Rows [*y0, *y0 + *ny) of rank `rank` among `size`: rank 0 has rows 0-1,
 * rank 1 none (unless it is the last), rank r >= 2 row r, and the last rank
 * every row from its first to the end. */
static void rows_of(int rank, int size, uint64_t* y0, uint64_t* ny) {
  *y0 = rank == 0 ? 0 : rank == 1 ? 2 : (uint64_t)rank;
  if (*y0 > NY) *y0 = NY;
  *ny = rank == 0 ? 2 : rank == 1 ? 0 : *y0 < NY ? 1 : 0;
  if (rank == size - 1) *ny = NY - *y0;
}

static void put_grids(cairn_store_t* s, int rank, int size) {
  uint64_t y0, ny;
  rows_of(rank, size, &y0, &ny);
  double* slab = malloc(sizeof(double) * NX * (ny ? ny : 1));
  int32_t* fslab = malloc(sizeof(int32_t) * NX * (ny ? ny : 1));
  for (uint64_t y = 0; y < ny; y++)
    for (uint64_t x = 0; x < NX; x++) {
      slab[y * NX + x] = value_at(y0 + y, x);
      /* Fortran's f(x, y) is at x + y * NX: the same memory as C's [y][x]. */
      fslab[y * NX + x] = (int32_t)(value_at(y0 + y, x));
    }
  uint64_t shape[2] = {NY, NX}, start[2] = {y0, 0}, count[2] = {ny, NX};
  cairn_tag_t tags[2] = {{"units", CAIRN_TAG_STRING, 0, 0, 0, "K", 1},
                         {"step", CAIRN_TAG_INT64, 12, 0, 0, NULL, 0}};
  if (ny)
    CHECK(cairn_put_array(s, "grid", CAIRN_FLOAT64, 2, shape, start, count, slab, CAIRN_ROW_MAJOR,
                          rank == 0 ? tags : NULL, rank == 0 ? 2 : 0) == CAIRN_OK);
  /* Column-major: shape (NX, NY), start (0, y0), count (NX, ny). */
  uint64_t fshape[2] = {NX, NY}, fstart[2] = {0, y0}, fcount[2] = {NX, ny};
  if (ny)
    CHECK(cairn_put_array(s, "fgrid", CAIRN_INT32, 2, fshape, fstart, fcount, fslab,
                          CAIRN_COLUMN_MAJOR | CAIRN_ARRAY_STATISTICS, NULL, 0) == CAIRN_OK);
  free(slab);
  free(fslab);

  /* Every dtype: PER elements per rank of a 1-D array of PER x size. */
  for (int d = CAIRN_INT8; d <= CAIRN_FLOAT64; d++) {
    char name[32];
    snprintf(name, sizeof name, "d_%s", cairn_dtype_name(d));
    size_t es = cairn_dtype_size(d);
    unsigned char bytes[PER * 8];
    for (size_t i = 0; i < PER * es; i++) bytes[i] = (unsigned char)(rank * 37 + d * 11 + (int)i);
    uint64_t sh = PER * (uint64_t)size, st = PER * (uint64_t)rank, ct = PER;
    CHECK(cairn_put_array(s, name, d, 1, &sh, &st, &ct, bytes, CAIRN_ROW_MAJOR, NULL, 0) == CAIRN_OK);
  }
}

static void check_grids(cairn_store_t* s, int size) {
  /* The whole grid, row-major, on every rank. */
  double all[NY * NX];
  uint64_t start[2] = {0, 0}, count[2] = {NY, NX};
  memset(all, 0, sizeof all);
  CHECK(cairn_get_array(s, "grid", 2, start, count, all, sizeof all, CAIRN_ROW_MAJOR) == CAIRN_OK);
  int bad = 0;
  for (uint64_t y = 0; y < NY; y++)
    for (uint64_t x = 0; x < NX; x++) bad += all[y * NX + x] != value_at(y, x);
  CHECK(bad == 0);
  /* A sub-box crossing the blocks: rows 1..3, columns 2..5. */
  double box[3 * 4];
  uint64_t bs[2] = {1, 2}, bc[2] = {3, 4};
  CHECK(cairn_get_array(s, "grid", 2, bs, bc, box, sizeof box, CAIRN_ROW_MAJOR) == CAIRN_OK);
  bad = 0;
  for (uint64_t y = 0; y < 3; y++)
    for (uint64_t x = 0; x < 4; x++) bad += box[y * 4 + x] != value_at(1 + y, 2 + x);
  CHECK(bad == 0);
  /* The same box in column-major order: indices and buffer transposed. */
  double fbox[4 * 3];
  uint64_t fbs[2] = {2, 1}, fbc[2] = {4, 3};
  CHECK(cairn_get_array(s, "grid", 2, fbs, fbc, fbox, sizeof fbox, CAIRN_COLUMN_MAJOR) == CAIRN_OK);
  CHECK(memcmp(fbox, box, sizeof box) == 0);
  /* What Fortran put as f(NX, NY) reads in C as [NY][NX]. */
  int32_t f[NY * NX];
  CHECK(cairn_get_array(s, "fgrid", 2, start, count, f, sizeof f, CAIRN_ROW_MAJOR) == CAIRN_OK);
  bad = 0;
  for (uint64_t y = 0; y < NY; y++)
    for (uint64_t x = 0; x < NX; x++) bad += f[y * NX + x] != (int32_t)value_at(y, x);
  CHECK(bad == 0);

  /* Every dtype, every rank's part, read by every rank. */
  for (int d = CAIRN_INT8; d <= CAIRN_FLOAT64; d++) {
    char name[32];
    snprintf(name, sizeof name, "d_%s", cairn_dtype_name(d));
    size_t es = cairn_dtype_size(d);
    unsigned char* got = malloc(PER * es * (size_t)size);
    uint64_t st = 0, ct = PER * (uint64_t)size;
    CHECK(cairn_get_array(s, name, 1, &st, &ct, got, PER * es * (size_t)size, 0) == CAIRN_OK);
    bad = 0;
    for (int r = 0; r < size; r++)
      for (size_t i = 0; i < PER * es; i++)
        bad += got[(size_t)r * PER * es + i] != (unsigned char)(r * 37 + d * 11 + (int)i);
    CHECK(bad == 0);
    free(got);
  }

  /* Info: dtype, shape, tags, blocks. */
  cairn_array_info_t* info = NULL;
  CHECK(cairn_array_info(s, "grid", 1, &info) == CAIRN_OK && info);
  if (info) {
    uint64_t blocks = 0;  /* ranks that own rows */
    for (int r = 0; r < size; r++) {
      uint64_t y0, ny;
      rows_of(r, size, &y0, &ny);
      blocks += ny > 0;
    }
    CHECK(strcmp(info->name, "grid") == 0 && info->name_len == 4 && info->dtype == CAIRN_FLOAT64);
    CHECK(info->ndims == 2 && info->shape[0] == NY && info->shape[1] == NX && info->elements == NY * NX);
    CHECK(info->block_count == blocks && info->blocks != NULL);
    CHECK(info->ntags == 2 && info->tags && strcmp(info->tags[0].name, "units") == 0 &&
          strcmp((const char*)info->tags[0].data, "K") == 0 && info->tags[1].i == 12);
    uint64_t rows = 0;
    for (uint64_t b = 0; b < info->block_count && info->blocks; b++) {
      const cairn_array_block_t* k = &info->blocks[b];
      uint64_t y0, ny;
      rows_of(k->rank, size, &y0, &ny);
      CHECK(k->start[0] == y0 && k->count[0] == ny && k->start[1] == 0 && k->count[1] == NX);
      rows += k->count[0];
    }
    CHECK(rows == NY);
  }
  cairn_free(info);
  info = NULL;
  CHECK(cairn_array_info(s, "fgrid", 0, &info) == CAIRN_OK && info);
  if (info) {
    /* Shapes are row-major whatever order the array was put in. */
    CHECK(info->dtype == CAIRN_INT32 && info->ndims == 2 && info->shape[0] == NY && info->shape[1] == NX);
    CHECK(info->blocks == NULL && info->ntags == 0 && info->tags == NULL);
  }
  cairn_free(info);

  /* Blocks with their statistics: fgrid was put with
   * CAIRN_ARRAY_STATISTICS (rows y0..y0+ny-1 hold (int)value_at(y, x) =
   * 100 y + x), grid without. */
  cairn_array_block_info_t* bl = NULL;
  size_t nbl = 0;
  CHECK(cairn_array_blocks(s, "fgrid", &bl, &nbl) == CAIRN_OK && bl && nbl >= 1);
  uint64_t rows = 0;
  for (size_t b = 0; b < nbl && bl; b++) {
    uint64_t y0, ny;
    rows_of(bl[b].rank, size, &y0, &ny);
    CHECK(bl[b].ndims == 2 && bl[b].start[0] == y0 && bl[b].count[0] == ny && bl[b].count[1] == NX);
    CHECK(bl[b].has_statistics == 1 && bl[b].min == 100.0 * (double)y0 &&
          bl[b].max == 100.0 * (double)(y0 + ny - 1) + (NX - 1));
    rows += bl[b].count[0];
  }
  CHECK(rows == NY);
  cairn_free(bl);
  bl = NULL;
  CHECK(cairn_array_blocks(s, "grid", &bl, &nbl) == CAIRN_OK && bl && nbl >= 1);
  for (size_t b = 0; b < nbl && bl; b++) CHECK(bl[b].has_statistics == 0 && bl[b].min == 0 && bl[b].max == 0);
  cairn_free(bl);
  bl = (cairn_array_block_info_t*)&bl;
  CHECK(cairn_array_blocks(s, "absent", &bl, &nbl) == CAIRN_NOT_FOUND && bl == NULL && nbl == 0);
  CHECK(cairn_array_blocks(s, NULL, &bl, &nbl) == CAIRN_INVALID_ARGUMENT);

  /* The list, in name order: d_float32 ... d_uint8, fgrid, grid. */
  cairn_array_info_t* arrays = NULL;
  size_t n = 0;
  CHECK(cairn_list_arrays(s, &arrays, &n) == CAIRN_OK && n == 12 && arrays);
  if (arrays && n == 12) {
    CHECK(strcmp(arrays[0].name, "d_float32") == 0 && arrays[0].dtype == CAIRN_FLOAT32);
    CHECK(strcmp(arrays[10].name, "fgrid") == 0 && strcmp(arrays[11].name, "grid") == 0);
    CHECK(arrays[11].ntags == 2 && arrays[11].blocks == NULL && arrays[11].shape[1] == NX);
  }
  cairn_free(arrays);

  /* Queries on the arrays' tags. */
  cairn_query_t q;
  memset(&q, 0, sizeof q);
  q.name = "units";
  q.op = CAIRN_QUERY_EQUAL;
  q.value.type = CAIRN_TAG_STRING;
  q.value.data = "K";
  q.value.len = 1;
  cairn_name_t* names = NULL;
  CHECK(cairn_query_arrays(s, &q, 1, &names, &n) == CAIRN_OK && n == 1 && names &&
        strcmp(names[0].name, "grid") == 0 && names[0].name_len == 4);
  cairn_free(names);
  q.value.data = "C";
  names = (cairn_name_t*)&q;
  CHECK(cairn_query_arrays(s, &q, 1, &names, &n) == CAIRN_OK && n == 0 && names == NULL);
  CHECK(cairn_query_arrays(s, NULL, 0, &names, &n) == CAIRN_OK && n == 12);
  cairn_free(names);

  /* Errors. */
  double small[4];
  CHECK(cairn_get_array(s, "grid", 2, start, count, small, sizeof small, 0) == CAIRN_INVALID_ARGUMENT);
  CHECK(strstr(cairn_last_error(), "too small") != NULL && strstr(cairn_last_error(), "grid") != NULL);
  CHECK(cairn_get_array(s, "grid", 3, start, count, all, sizeof all, 0) == CAIRN_INVALID_ARGUMENT);
  CHECK(cairn_get_array(s, "grid", 2, start, count, all, sizeof all, 0x40) == CAIRN_INVALID_ARGUMENT);
  uint64_t past[2] = {NY, NX};
  CHECK(cairn_get_array(s, "grid", 2, past, count, all, sizeof all, 0) == CAIRN_INVALID_ARGUMENT);
  CHECK(cairn_get_array(s, "absent", 2, start, count, all, sizeof all, 0) == CAIRN_NOT_FOUND);
  CHECK(strstr(cairn_last_error(), "absent") != NULL);
  CHECK(cairn_array_info(s, "absent", 0, &info) == CAIRN_NOT_FOUND && info == NULL);
  CHECK(cairn_get_array(s, "grid", 0, start, count, all, sizeof all, 0) == CAIRN_INVALID_ARGUMENT);
  CHECK(cairn_get_array(s, "grid", CAIRN_MAX_ARRAY_DIMS + 1, start, count, all, sizeof all, 0) ==
        CAIRN_INVALID_ARGUMENT);
  CHECK(cairn_array_info(NULL, "grid", 0, &info) == CAIRN_INVALID_ARGUMENT);
}

/* cairn_put_array_opts: the checksum grain changes what is stored (the
 * finer the grain, the more checksummed pieces, so the bigger the index
 * tables the revision lists) and what is read is the same; a grain that is
 * not a multiple of 4096 is refused, naming it, and stores nothing. Each
 * rank puts a 1 MiB row block of a fresh store (above inline_value_limit). */
enum { GRAIN_ROW = 1024, GRAIN_ROWS = 128 }; /* float64: 8 KiB rows, 1 MiB per rank */
static void check_grain(const char* path, int rank, int size) {
  cairn_array_put_options_t po;
  cairn_array_put_options_init(&po);
  CHECK(po.flags == CAIRN_ROW_MAJOR && po.checksum_grain == 4096);
  size_t n = (size_t)GRAIN_ROWS * GRAIN_ROW;
  double* mine = malloc(n * sizeof(double));
  double* got = malloc(n * sizeof(double));
  if (!mine || !got) MPI_Abort(MPI_COMM_WORLD, 1);
  for (size_t i = 0; i < n; i++) mine[i] = (double)rank * 1e7 + (double)i;
  uint64_t shape[2] = {(uint64_t)GRAIN_ROWS * (uint64_t)size, GRAIN_ROW};
  uint64_t start[2] = {(uint64_t)GRAIN_ROWS * (uint64_t)rank, 0}, count[2] = {GRAIN_ROWS, GRAIN_ROW};
  cairn_store_t* s = NULL;
  CHECK(cairn_open(path, MPI_COMM_WORLD, NULL, &s) == CAIRN_OK);

  /* Refused grains: nothing stored, the error names the grain. */
  uint64_t bad[3] = {1000, 6144, 4097};
  for (int i = 0; i < 3; i++) {
    po.checksum_grain = bad[i];
    CHECK(cairn_put_array_opts(s, "g", CAIRN_FLOAT64, 2, shape, start, count, mine, &po, NULL, 0) ==
          CAIRN_INVALID_ARGUMENT);
    CHECK(strstr(cairn_last_error(), "checksum_grain") != NULL && strstr(cairn_last_error(), "4096") != NULL);
  }
  cairn_array_info_t* info = NULL;
  CHECK(cairn_array_info(s, "g", 0, &info) == CAIRN_NOT_FOUND);

  /* Revisions 1, 2, 3: the grains 4096, 65536 and 0 (the chunk size). The
   * options pointer may be NULL (the defaults: grain 4096) for the first. */
  uint64_t grains[3] = {4096, 65536, 0};
  for (int i = 0; i < 3; i++) {
    po.checksum_grain = grains[i];
    CHECK(cairn_put_array_opts(s, "g", CAIRN_FLOAT64, 2, shape, start, count, mine, i == 0 ? NULL : &po, NULL,
                               0) == CAIRN_OK);
    uint64_t rev = 0;
    CHECK(cairn_commit(s, &rev) == CAIRN_OK && rev == (uint64_t)i + 1);
    memset(got, 0, n * sizeof(double));
    CHECK(cairn_get_array(s, "g", 2, start, count, got, n * sizeof(double), CAIRN_ROW_MAJOR) == CAIRN_OK);
    CHECK(memcmp(got, mine, n * sizeof(double)) == 0);
  }
  cairn_revision_info_t* revs = NULL;
  size_t nrevs = 0;
  CHECK(cairn_list_revisions(s, &revs, &nrevs) == CAIRN_OK && nrevs == 3);
  if (revs && nrevs == 3) {
    /* 256 pieces per rank at 4 KiB (about 16 index bytes each), 16 at
     * 64 KiB, 1 or 2 at the chunk size. */
    CHECK(revs[0].index_bytes > revs[1].index_bytes + (uint64_t)size * 200 * 12);
    CHECK(revs[1].index_bytes > revs[2].index_bytes + (uint64_t)size * 10 * 12);
    if (rank == 0)
      printf("index bytes at grains 4096 / 65536 / chunk size: %lu / %lu / %lu\n", (unsigned long)revs[0].index_bytes,
             (unsigned long)revs[1].index_bytes, (unsigned long)revs[2].index_bytes);
  }
  cairn_free(revs);
  /* Unknown flags in the options are refused as cairn_put_array's are. */
  po.checksum_grain = 4096;
  po.flags = 0x8;
  CHECK(cairn_put_array_opts(s, "g", CAIRN_FLOAT64, 2, shape, start, count, mine, &po, NULL, 0) ==
        CAIRN_INVALID_ARGUMENT);
  CHECK(cairn_close(s) == CAIRN_OK);
  free(mine);
  free(got);
}

/* cairn_get_array_opts and cairn_array_read_stats: each rank puts a block
 * of 16 rows of 2048 float64 (16 KiB a row, four 4 KiB checksum grains)
 * and reads the first 1536 columns of its rows: 16 runs of three grains,
 * one grain apart. The default gap limit (64 KiB) reads the gap grains
 * too (cheap beside the runs) and joins the runs into fewer requests;
 * gap_limit 0 reads each run alone and no gap. */
static void check_read_options(const char* path, int rank, int size) {
  enum { R = 16, C = 2048, W = 1536 };
  cairn_store_t* s = NULL;
  CHECK(cairn_open(path, MPI_COMM_WORLD, NULL, &s) == CAIRN_OK);
  if (!s) return;
  double* mine = malloc(sizeof(double) * R * C);
  for (size_t i = 0; i < (size_t)R * C; i++) mine[i] = (double)i + 1e6 * rank;
  uint64_t shape[2] = {(uint64_t)R * (uint64_t)size, C}, start[2] = {(uint64_t)R * (uint64_t)rank, 0},
           count[2] = {R, C};
  CHECK(cairn_put_array(s, "big", CAIRN_FLOAT64, 2, shape, start, count, mine, 0, NULL, 0) == CAIRN_OK);
  CHECK(cairn_commit(s, NULL) == CAIRN_OK);
  cairn_array_read_options_t ro;
  cairn_array_read_options_init(&ro);
  CHECK(ro.struct_size == sizeof ro && ro.flags == CAIRN_ROW_MAJOR && ro.gap_limit == 65536);
  uint64_t bc[2] = {R, W};
  double* box = malloc(sizeof(double) * R * W);
  uint64_t requests[2], bytes[2];
  for (int k = 0; k < 2; k++) {
    ro.gap_limit = k == 0 ? 65536 : 0;
    cairn_array_read_stats_t a, b;
    memset(box, 0, sizeof(double) * R * W);
    CHECK(cairn_array_read_stats(s, &a, sizeof a) == CAIRN_OK);
    CHECK(cairn_get_array_opts(s, "big", 2, start, bc, box, sizeof(double) * R * W, &ro) == CAIRN_OK);
    CHECK(cairn_array_read_stats(s, &b, sizeof b) == CAIRN_OK);
    int bad = 0;
    for (int r = 0; r < R; r++)
      for (int c = 0; c < W; c++) bad += box[r * W + c] != mine[r * C + c];
    CHECK(bad == 0);
    CHECK(b.calls == a.calls + 1 && b.runs - a.runs == R && b.bytes_wanted - a.bytes_wanted == sizeof(double) * R * W);
    requests[k] = b.requests - a.requests;
    bytes[k] = b.bytes_read - a.bytes_read;
  }
  CHECK(bytes[1] == (uint64_t)R * 3 * 4096 && bytes[0] > bytes[1] && requests[0] < requests[1]);
  if (rank == 0)
    printf("capi_array_test: 16 runs one grain apart: %lu requests, %lu bytes (gap_limit 64 KiB); "
           "%lu, %lu (0)\n", (unsigned long)requests[0], (unsigned long)bytes[0], (unsigned long)requests[1],
           (unsigned long)bytes[1]);
  /* Column-major through the options; NULL options are the defaults. */
  double* fbox = malloc(sizeof(double) * R * W);
  uint64_t fs[2] = {0, (uint64_t)R * (uint64_t)rank}, fc[2] = {W, R};
  ro.flags = CAIRN_COLUMN_MAJOR;
  CHECK(cairn_get_array_opts(s, "big", 2, fs, fc, fbox, sizeof(double) * R * W, &ro) == CAIRN_OK);
  CHECK(memcmp(fbox, box, sizeof(double) * R * W) == 0);
  CHECK(cairn_get_array_opts(s, "big", 2, start, bc, box, sizeof(double) * R * W, NULL) == CAIRN_OK);
  cairn_array_read_options_t bad;
  memset(&bad, 0, sizeof bad);
  CHECK(cairn_get_array_opts(s, "big", 2, start, bc, box, sizeof(double) * R * W, &bad) == CAIRN_INVALID_ARGUMENT);
  CHECK(strstr(cairn_last_error(), "cairn_array_read_options_init") != NULL);
  cairn_array_read_stats_t st;
  CHECK(cairn_array_read_stats(s, &st, 4) == CAIRN_INVALID_ARGUMENT && cairn_array_read_stats(NULL, &st, sizeof st) ==
        CAIRN_INVALID_ARGUMENT);
  CHECK(cairn_array_read_stats(s, &st, 12) == CAIRN_INVALID_ARGUMENT &&
        strstr(cairn_last_error(), "cairn_array_read_stats: stats_size 12 is not sizeof(cairn_array_read_stats_t)") !=
            NULL);
  /* An older cairn.h's smaller struct gets only its members; a newer one's
   * larger struct gets 0 in the members this library does not know. */
  {
    struct {
      cairn_array_read_stats_t st;
      uint64_t newer[2];
    } big;
    memset(&big, 0xff, sizeof big);
    CHECK(cairn_array_read_stats(s, &big.st, offsetof(cairn_array_read_stats_t, blocks_decoded)) == CAIRN_OK);
    CHECK(big.st.calls >= 1 && big.st.calls != UINT64_MAX && big.st.blocks_decoded == UINT64_MAX);
    memset(&big, 0xff, sizeof big);
    CHECK(cairn_array_read_stats(s, &big.st, sizeof big) == CAIRN_OK);
    CHECK(big.st.calls >= 1 && big.st.blocks_decoded != UINT64_MAX && big.newer[0] == 0 && big.newer[1] == 0);
  }
  CHECK(cairn_close(s) == CAIRN_OK);
  free(mine);
  free(box);
  free(fbox);
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  char dir[256];
  capi_test_dir("capi-array", dir, rank);
  char path[300];
  snprintf(path, sizeof path, "%s/store", dir);

  /* dtypes. */
  CHECK(cairn_dtype_size(CAIRN_INT8) == 1 && cairn_dtype_size(CAIRN_UINT16) == 2 &&
        cairn_dtype_size(CAIRN_FLOAT32) == 4 && cairn_dtype_size(CAIRN_INT64) == 8 &&
        cairn_dtype_size(CAIRN_FLOAT64) == 8 && cairn_dtype_size(0) == 0 && cairn_dtype_size(11) == 0);
  CHECK(strcmp(cairn_dtype_name(CAIRN_UINT32), "uint32") == 0 && strcmp(cairn_dtype_name(99), "?") == 0);

  cairn_store_t* s = NULL;
  CHECK(cairn_open(path, MPI_COMM_WORLD, NULL, &s) == CAIRN_OK);
  CHECK(cairn_writer_ranks(s) == size && cairn_writer_ranks(NULL) == -1);

  /* Bad puts store nothing. */
  uint64_t sh[2] = {4, 4}, st[2] = {0, 0}, ct[2] = {1, 1};
  double one = 1;
  CHECK(cairn_put_array(s, "bad", 42, 2, sh, st, ct, &one, 0, NULL, 0) == CAIRN_INVALID_ARGUMENT);
  CHECK(strstr(cairn_last_error(), "dtype") != NULL);
  CHECK(cairn_put_array(s, "bad", CAIRN_FLOAT64, 0, sh, st, ct, &one, 0, NULL, 0) == CAIRN_INVALID_ARGUMENT);
  CHECK(cairn_put_array(s, "bad", CAIRN_FLOAT64, 2, sh, st, ct, &one, 0x8, NULL, 0) == CAIRN_INVALID_ARGUMENT);
  CHECK(cairn_put_array(s, "bad", CAIRN_FLOAT64, 2, NULL, st, ct, &one, 0, NULL, 0) == CAIRN_INVALID_ARGUMENT);
  uint64_t out[2] = {4, 3};
  CHECK(cairn_put_array(s, "bad", CAIRN_FLOAT64, 2, sh, out, ct, &one, 0, NULL, 0) == CAIRN_INVALID_ARGUMENT);
  cairn_tag_t badtag = {NULL, CAIRN_TAG_INT8, 0, 0, 0, NULL, 0};
  CHECK(cairn_put_array(s, "bad", CAIRN_FLOAT64, 2, sh, st, ct, &one, 0, &badtag, 1) == CAIRN_INVALID_ARGUMENT);

  put_grids(s, rank, size);
  uint64_t rev = 0;
  CHECK(cairn_commit(s, &rev) == CAIRN_OK && rev == 1);
  check_grids(s, size);

  /* Delete one array; the next revision has the others. */
  CHECK(cairn_delete_array(s, "fgrid") == CAIRN_OK);
  CHECK(cairn_delete_array(s, "never") == CAIRN_NOT_FOUND);
  CHECK(cairn_commit(s, &rev) == CAIRN_OK && rev == 2);
  cairn_array_info_t* info = NULL;
  CHECK(cairn_array_info(s, "fgrid", 0, &info) == CAIRN_NOT_FOUND);
  CHECK(cairn_close(s) == CAIRN_OK);

  /* Read-only reopen of revision 1: everything as it was. */
  cairn_options_t o;
  cairn_options_init(&o);
  o.read_only = 1;
  o.create_if_missing = 0;
  o.revision = 1;
  s = NULL;
  CHECK(cairn_open(path, MPI_COMM_WORLD, &o, &s) == CAIRN_OK);
  CHECK(cairn_writer_ranks(s) == size);
  if (s) check_grids(s, size);
  CHECK(cairn_close(s) == CAIRN_OK);

  char gpath[320];
  snprintf(gpath, sizeof gpath, "%s/grain", dir);
  check_grain(gpath, rank, size);
  snprintf(gpath, sizeof gpath, "%s/readopts", dir);
  check_read_options(gpath, rank, size);

  return capi_test_finish("capi_array_test", dir, rank);
}
