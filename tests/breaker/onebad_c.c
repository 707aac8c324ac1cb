/* Seventh pass: cairn_open with a bad argument on one rank only.
 *
 * mpiexec -n N onebad_c DIR
 * For each case and each choice of the bad rank (0, the last, a middle
 * one): every rank must return an error (not CAIRN_OK), the good ranks'
 * message must name the bad rank ("rank R") and its cause (the word given
 * per case), the store directory must be unchanged (names, sizes, mtimes),
 * and a good open afterwards must work and see the revision committed at
 * the start. Nothing may hang (run it under `timeout`). Prints one line
 * per failed expectation and "onebad: N cases, M bad". */
#include <cairn/cairn.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static int rank, size;

/* A fingerprint of the directory: names, sizes, mtimes. */
static unsigned long long dir_print(const char* dir) {
  unsigned long long h = 1469598103934665603ull;
  DIR* d = opendir(dir);
  if (!d) return 0;
  struct dirent* e;
  while ((e = readdir(d))) {
    char p[4096];
    struct stat s;
    snprintf(p, sizeof p, "%s/%s", dir, e->d_name);
    if (e->d_name[0] == '.') continue; /* "." and "..": /tmp changes under other jobs */
    if (stat(p, &s) != 0) continue;
    unsigned long long x = (unsigned long long)s.st_size * 1315423911ull ^
                           (unsigned long long)s.st_mtim.tv_nsec ^ ((unsigned long long)s.st_mtim.tv_sec << 20);
    for (const char* c = e->d_name; *c; c++) x = x * 31 + (unsigned char)*c;
    h ^= x * 0x100000001b3ull;  /* order-free */
  }
  closedir(d);
  return h;
}

enum { K_NULL_PATH, K_NULL_STORE, K_NO_INIT, K_GARBAGE_SIZE, K_KEEP, K_CHUNK, K_EXTENT, K_READONLY,
       K_REVISION, K_ERROR_IF_EXISTS, K_OTHER_PATH, K_NO_CREATE_MISSING, K_STAGING, K_WBUF0, K_NCASES };
static const char* names[] = {"null path", "null store", "no init", "garbage struct_size", "keep_revisions",
                              "chunk_size 1000", "extent_size 3", "read_only", "revision 999",
                              "error_if_exists", "another path", "create_if_missing 0 on a new path",
                              "staging_bytes 100", "write_buffer_size 0"};
/* A word the good ranks' message must hold (besides "rank R"). */
static const char* words[] = {"path", "store", "struct_size", "struct_size", "keep_revisions",
                              "chunk_size", "extent_size", "read_only", "999", "exist", "path", "create_if_missing",
                              "staging_bytes", "write_buffer_size"};
/* np 1: nothing differs across ranks, so these open fine */

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const char* dir = argv[1];
  char other[4096], fresh[4096];
  snprintf(other, sizeof other, "%s.other", dir);
  snprintf(fresh, sizeof fresh, "%s.fresh", dir);
  cairn_options_t o;
  cairn_options_init(&o);
  cairn_store_t* st = NULL;
  /* a store with one revision, and another one */
  const char* mk[2] = {dir, other};
  for (int i = 0; i < 2; i++) {
    if (cairn_open(mk[i], MPI_COMM_WORLD, &o, &st) != CAIRN_OK) { fprintf(stderr, "setup: %s\n", cairn_last_error()); return 2; }
    cairn_put(st, "k", "v", 1, NULL, 0);
    uint64_t rev;
    cairn_commit(st, &rev);
    cairn_close(st);
  }
  int cases = 0, bad = 0;
  int bads[3] = {0, size - 1, size / 2};
  for (int k = 0; k < K_NCASES; k++) {
    for (int bi = 0; bi < 3; bi++) {
      int br = bads[bi];
      if (bi > 0 && (br == bads[0] || (bi == 2 && br == bads[1]))) continue;
      if (size == 1 && bi > 0) continue;
      MPI_Barrier(MPI_COMM_WORLD);
      unsigned long long before = rank == 0 ? dir_print(dir) : 0, before_o = rank == 0 ? dir_print(other) : 0;
      MPI_Barrier(MPI_COMM_WORLD);
      cairn_options_t oo;
      cairn_options_init(&oo);
      const char* path = (k == K_NO_CREATE_MISSING) ? fresh : dir;
      cairn_store_t* s = NULL;
      cairn_store_t** sp = &s;
      const cairn_options_t* op = &oo;
      cairn_options_t raw;
      memset(&raw, 0, sizeof raw);
      if (rank == br) {
        switch (k) {
          case K_NULL_PATH: path = NULL; break;
          case K_NULL_STORE: sp = NULL; break;
          case K_NO_INIT: op = &raw; break;
          case K_GARBAGE_SIZE: raw = oo; raw.struct_size = 5000; op = &raw; break;
          case K_KEEP: oo.keep_revisions = 3; break;
          case K_CHUNK: oo.chunk_size = 1000; break;
          case K_EXTENT: oo.extent_size = 3; break;
          case K_READONLY: oo.read_only = 1; break;
          case K_REVISION: oo.revision = 999; break;
          case K_ERROR_IF_EXISTS: oo.error_if_exists = 1; break;
          case K_OTHER_PATH: path = other; break;
          case K_NO_CREATE_MISSING: oo.create_if_missing = 0; break;
          case K_STAGING: oo.staging_bytes = 100; break;
          case K_WBUF0: oo.write_buffer_size = 0; break;
        }
      }
      double t0 = MPI_Wtime();
      int rc = cairn_open(path, MPI_COMM_WORLD, op, sp);
      double t1 = MPI_Wtime();
      char msg[1024];
      snprintf(msg, sizeof msg, "%s", cairn_last_error());
      int mybad = 0;
      int lone_ok = size == 1 && (k == K_KEEP || k == K_READONLY || k == K_OTHER_PATH);
      if (rc == CAIRN_OK && lone_ok) {
      } else if (rc == CAIRN_OK) {
        printf("BAD [%s, bad rank %d, np %d] rank %d: open returned OK\n", names[k], br, size, rank);
        mybad = 1;
      } else if (rank != br) {
        char want[32];
        snprintf(want, sizeof want, "rank %d", br);
        if (!strstr(msg, want) || !strstr(msg, words[k])) {
          printf("BAD [%s, bad rank %d, np %d] rank %d: message lacks '%s' or '%s': %s\n", names[k], br, size, rank,
                 want, words[k], msg);
          mybad = 1;
        }
      } else if (!strstr(msg, words[k])) {
        printf("BAD [%s, bad rank %d, np %d] rank %d (the bad one): message lacks '%s': %s\n", names[k], br, size,
               rank, words[k], msg);
        mybad = 1;
      }
      if (getenv("ONEBAD_SHOW") && rank == (br + 1) % size) printf("[%s, bad %d] rank %d (%.2fs): %s\n", names[k], br, rank, t1 - t0, msg);
      if (rc == CAIRN_OK && s) cairn_close(s);
      MPI_Barrier(MPI_COMM_WORLD);
      if (rank == 0) {
        struct stat sb;
        if (!lone_ok && (dir_print(dir) != before || dir_print(other) != before_o)) {
          printf("BAD [%s, bad rank %d, np %d]: the store directory changed\n", names[k], br, size);
          mybad = 1;
        }
        if (stat(fresh, &sb) == 0) {
          printf("BAD [%s, bad rank %d, np %d]: %s was created\n", names[k], br, size, fresh);
          mybad = 1;
          char cmd[8300];
          snprintf(cmd, sizeof cmd, "rm -rf '%s'", fresh);
          if (system(cmd)) {}
        }
      }
      /* a good open still works and sees revision 1 */
      cairn_options_t g;
      cairn_options_init(&g);
      if (cairn_open(dir, MPI_COMM_WORLD, &g, &s) != CAIRN_OK) {
        printf("BAD [%s]: good open after: %s\n", names[k], cairn_last_error());
        mybad = 1;
      } else {
        char buf[4];
        uint64_t n = 0;
        int grc = cairn_get(s, "k", 0, buf, sizeof buf, &n);
        if (grc != CAIRN_OK || n != 1 || buf[0] != 'v' || cairn_revision(s) != 1) {
          printf("BAD [%s]: after, rev %llu get %d\n", names[k], (unsigned long long)cairn_revision(s), grc);
          mybad = 1;
        }
        cairn_close(s);
      }
      int any = 0;
      MPI_Allreduce(&mybad, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
      cases++;
      bad += any;
    }
  }
  if (rank == 0) printf("onebad np %d: %d cases, %d bad\n", size, cases, bad);
  MPI_Finalize();
  return bad ? 1 : 0;
}
