// Splits a sparse read (open read-only, MultiGet of 10 random values, close)
// into its parts, per rank: wall and CPU, page cache dropped before each.
#include <cairn/store.h>
#include <mpi.h>
#include <fcntl.h>
#include <unistd.h>
#include <dirent.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <algorithm>
#include <cstdio>
#include <cstring>
#include <random>
#include <string>
#include <vector>
static double Now() { return MPI_Wtime(); }
static double Cpu() { rusage r; getrusage(RUSAGE_SELF, &r);
  return r.ru_utime.tv_sec + r.ru_stime.tv_sec + 1e-6 * (r.ru_utime.tv_usec + r.ru_stime.tv_usec); }
static void Evict(const std::string& d) {
  DIR* dir = opendir(d.c_str()); if (!dir) return;
  while (dirent* e = readdir(dir)) {
    if (e->d_name[0] == '.') continue;
    std::string p = d + "/" + e->d_name; struct stat st; if (stat(p.c_str(), &st)) continue;
    if (S_ISDIR(st.st_mode)) { Evict(p); continue; }
    int fd = open(p.c_str(), O_RDONLY); if (fd < 0) continue;
    fdatasync(fd); posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED); close(fd);
  }
  closedir(dir);
}
int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, n; MPI_Comm_rank(MPI_COMM_WORLD, &rank); MPI_Comm_size(MPI_COMM_WORLD, &n);
  std::string dir = argv[1]; size_t size = atoi(argv[2]); int count = 1024, reps = atoi(argv[3]);
  std::string path = dir + "/store";
  {
    cairn::Options o; o.create_if_missing = true;
    std::unique_ptr<cairn::Store> s;
    if (!cairn::Store::Open(o, path, MPI_COMM_WORLD, &s).ok()) { fprintf(stderr, "open\n"); MPI_Abort(MPI_COMM_WORLD, 1); }
    std::string v(size, 'x');
    for (int i = 0; i < count; ++i) { v[0] = char(i); s->Put("obj" + std::to_string(i), v); }
    if (!s->Commit().ok()) MPI_Abort(MPI_COMM_WORLD, 2);
    s->Close();
  }
  std::string ppath = dir + "/posix." + std::to_string(rank);
  { int fd = open(ppath.c_str(), O_CREAT | O_WRONLY | O_TRUNC, 0644); std::string v(size, 'x');
    for (int i = 0; i < count; ++i) if (write(fd, v.data(), size) != (ssize_t)size) MPI_Abort(MPI_COMM_WORLD, 5);
    fsync(fd); close(fd); }
  bool posix = getenv("POSIX") != nullptr;
  std::mt19937 rng(rank * 7 + 1);
  std::vector<char> buf(10 * size);
  double acc[8] = {0};
  std::vector<double> rows;
  for (int r = 0; r < reps; ++r) {
    if (rank == 0) Evict(dir);
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = Now(), c0 = Cpu();
    cairn::Options o; o.read_only = true;
    std::unique_ptr<cairn::Store> s; int fd = -1;
    if (posix) fd = open(ppath.c_str(), O_RDONLY);
    else if (!cairn::Store::Open(o, path, MPI_COMM_WORLD, &s).ok()) MPI_Abort(MPI_COMM_WORLD, 3);
    double t1 = Now(), c1 = Cpu();
    std::vector<std::string> keys; std::vector<cairn::Store::ValueBuffer> bufs; std::vector<cairn::Status> st;
    for (int k = 0; k < 10; ++k) { keys.push_back("obj" + std::to_string(rng() % count)); bufs.push_back({buf.data() + k * size, size, 0}); }
    if (posix) { for (int k = 0; k < 10; ++k) { long i = atol(keys[k].c_str() + 3); if (pread(fd, buf.data() + k * size, size, i * size) != (ssize_t)size) MPI_Abort(MPI_COMM_WORLD, 6); } }
    else if (!s->MultiGet(keys, &bufs, &st).ok()) MPI_Abort(MPI_COMM_WORLD, 4);
    double t2 = Now(), c2 = Cpu();
    if (posix) close(fd); else { s->Close(); s.reset(); }
    double t3 = Now(), c3 = Cpu();
    MPI_Barrier(MPI_COMM_WORLD);
    double t4 = Now();
    double mine[8] = {t1 - t0, t2 - t1, t3 - t2, t4 - t0, c1 - c0, c2 - c1, c3 - c2, 0};
    double mx[8], sum[8];
    MPI_Reduce(mine, mx, 8, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    MPI_Reduce(mine, sum, 8, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
    if (rank == 0 && r > 0)
      printf("%s np%d size%zu wall ms: open %.2f get %.2f close %.2f total %.2f | cpu sum ms: open %.2f get %.2f close %.2f\n", posix ? "posix" : "cairn",
             n, size, 1e3 * mx[0], 1e3 * mx[1], 1e3 * mx[2], 1e3 * mx[3], 1e3 * sum[4], 1e3 * sum[5], 1e3 * sum[6]);
  }
  MPI_Finalize();
}
