/* Sixth pass: the C API reads a resize_mix.py store. Usage:
 * mpiexec -n M resize_mix_c STORE REV OUTDIR: opens REV read-only, and each
 * rank writes every array it reads whole to OUTDIR/REV.NAME.RANK (raw,
 * row-major) and its tags to OUTDIR/REV.NAME.RANK.tags ("name int value"
 * or "name str value"); resize_mix.py ccheck compares them with the model. */
#include <cairn/cairn.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void die(const char* what, int rc, cairn_store_t* st) {
  fprintf(stderr, "%s: %s (%s)\n", what, cairn_code_name(rc), cairn_last_error());
  (void)st;
  MPI_Abort(MPI_COMM_WORLD, 3);
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (argc != 4) { fprintf(stderr, "usage: resize_mix_c STORE REV OUTDIR\n"); return 2; }
  cairn_options_t o;
  cairn_options_init(&o);
  o.read_only = 1;
  o.revision = strtoull(argv[2], NULL, 10);
  cairn_store_t* st = NULL;
  int rc = cairn_open(argv[1], MPI_COMM_WORLD, &o, &st);
  if (rc) die("open", rc, st);
  cairn_array_info_t* arrays = NULL;
  size_t n = 0;
  rc = cairn_list_arrays(st, &arrays, &n);
  if (rc) die("list_arrays", rc, st);
  for (size_t a = 0; a < n; a++) {
    const cairn_array_info_t* ai = &arrays[a];
    size_t bytes = (size_t)ai->elements * cairn_dtype_size(ai->dtype);
    uint64_t start[16] = {0};
    char* buf = malloc(bytes ? bytes : 1);
    rc = cairn_get_array(st, ai->name, ai->ndims, start, ai->shape, buf, bytes, CAIRN_ROW_MAJOR);
    if (rc) die("get_array", rc, st);
    char path[4096];
    snprintf(path, sizeof path, "%s/%s.%s.%d", argv[3], argv[2], ai->name, rank);
    FILE* f = fopen(path, "wb");
    fwrite(buf, 1, bytes, f);
    fclose(f);
    strcat(path, ".tags");
    f = fopen(path, "w");
    for (size_t t = 0; t < ai->ntags; t++) {
      const cairn_tag_t* tg = &ai->tags[t];
      if (tg->type == CAIRN_TAG_STRING)
        fprintf(f, "%s str %.*s\n", tg->name, (int)tg->len, (const char*)tg->data);
      else
        fprintf(f, "%s int %lld\n", tg->name, (long long)tg->i);
    }
    fclose(f);
    free(buf);
  }
  cairn_free(arrays);
  rc = cairn_close(st);
  if (rc) die("close", rc, NULL);
  MPI_Finalize();
  return 0;
}
