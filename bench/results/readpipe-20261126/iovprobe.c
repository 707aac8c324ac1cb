// Cold/warm 32 MiB file read in 1 MiB calls: pread of 1 MiB, or preadv of 1 MiB as N pieces
// landing with a stride (as the 8 -> 1 full read of bench/arrays scatters 1 KiB rows).
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>
static double now() { struct timespec t; clock_gettime(CLOCK_MONOTONIC, &t); return t.tv_sec + t.tv_nsec * 1e-9; }
int main(int argc, char** argv) {
  const char* path = argv[1];
  size_t size = 32u << 20, mib = 1u << 20;
  char* dst = aligned_alloc(4096, 8 * size);
  for (size_t i = 0; i < 8 * size; i += 4096) dst[i] = 1;
  struct iovec* iov = malloc(sizeof(struct iovec) * 1024);
  int pieces[] = {0, 1024, 4096, 65536};
  for (int rep = 0; rep < 5; rep++)
    for (int cold = 1; cold >= 0; cold--) {
      printf("%s", cold ? "cold" : "warm");
      for (int p = 0; p < 4; p++) {
        int fd = open(path, O_RDONLY);
        if (cold) { fdatasync(fd); posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED); }
        double t = now();
        for (size_t off = 0; off < size; off += mib) {
          if (!pieces[p]) { if (pread(fd, dst + off, mib, off) != (ssize_t)mib) return 1; continue; }
          int n = mib / pieces[p];
          for (int k = 0; k < n; k++) { iov[k].iov_base = dst + (off + (size_t)k * pieces[p]) * 8; iov[k].iov_len = pieces[p]; }
          if (preadv(fd, iov, n, off) != (ssize_t)mib) return 2;
        }
        double dt = now() - t;
        close(fd);
        printf(" | %s %.0f", p == 0 ? "1 MiB pread" : pieces[p] == 1024 ? "1024x1KiB" : pieces[p] == 4096 ? "256x4KiB" : "16x64KiB", 32 / dt);
      }
      printf(" MiB/s\n");
    }
}
