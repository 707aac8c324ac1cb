// Scale measurement (issue 11, goal 6): what one checkpoint and one
// restart cost as the rank count grows, for the model in doc/scale.md.
//
// Every rank puts, at every commit, a small checkpoint: OBJECTS values of
// KIB/(OBJECTS+1) KiB with 4 tags each, 8 inline values of 100 bytes with
// 2 tags each, and its block of a 1-D float64 global array of the same
// size as one value; with keep_revisions = 2 and sync on. After COMMITS
// commits the store is closed and opened read-only (the restart), and
// every rank reads its own namespace back (List, MultiGet of every key,
// GetArray of its block) and checks it.
//
// Prints one line "key value" per measured quantity (rank 0), so that
// scripts/scale_run.sh can tabulate them:
//   - commit time (max over ranks; median, and the first and last commits),
//   - per commit, summed over ranks and at rank 0 alone: write requests and
//     bytes, metadata operations (IoStats: opens, creates, mkdirs, stats,
//     fsyncs, renames, unlinks, truncates), and the index bytes rank 0
//     gathered;
//   - memory: VmRSS after MPI's warm-up (the baseline), after the first,
//     the 10th and the last commit, and VmHWM at the end; heap in use
//     (mallinfo2) the same way, which leaves out MPI's shared-memory
//     segments; at rank 0 and the largest of the other ranks, and the
//     growth per commit between the 10th and the last;
//   - restart: open time, read time, and the requests, bytes and metadata
//     operations of open + read, summed over ranks and at rank 0.
//
//   mpiexec -n 64 scale_bench DIR [commits=50] [KiB per rank=1024] [objects=3]
#include <malloc.h>
#include <mpi.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "cairn/array.h"
#include "cairn/store.h"

using Clock = std::chrono::steady_clock;

namespace {

int g_rank = 0, g_size = 1;

void Check(const cairn::Status& st, const char* what) {
  if (st.ok()) return;
  std::fprintf(stderr, "rank %d: %s: %s\n", g_rank, what, st.ToString().c_str());
  MPI_Abort(MPI_COMM_WORLD, 1);
}

// VmRSS or VmHWM of this process in KiB, from /proc/self/status.
uint64_t ProcKiB(const char* field) {
  std::ifstream f("/proc/self/status");
  std::string line;
  size_t n = std::strlen(field);
  while (std::getline(f, line)) {
    if (line.compare(0, n, field) == 0 && line.size() > n && line[n] == ':')
      return std::strtoull(line.c_str() + n + 1, nullptr, 10);
  }
  return 0;
}

// Heap bytes in use (malloc'd, including mmap'd blocks), in KiB: what the
// library and MPI hold through malloc, without MPI's shared-memory
// segments, which RSS counts too.
uint64_t HeapKiB() {
  struct mallinfo2 m = mallinfo2();
  return uint64_t(m.uordblks + m.hblkhd) / 1024;
}

// The counters that this measurement reports, as an array for reductions.
enum Counter { kWriteReq, kWriteBytes, kReadReq, kReadBytes, kOpens, kCreates, kMkdirs, kStats,
               kFsyncs, kRenames, kUnlinks, kTruncates, kMetaOps, kGathered, kNumCounters };
const char* kCounterNames[kNumCounters] = {
    "write_requests", "write_bytes", "read_requests", "read_bytes", "opens", "creates", "mkdirs",
    "stats", "fsyncs", "renames", "unlinks", "truncates", "metadata_ops", "index_bytes_gathered"};

std::vector<double> Counters(const cairn::IoStats& s) {
  return {double(s.write_requests), double(s.write_bytes), double(s.read_requests),
          double(s.read_bytes), double(s.opens), double(s.creates), double(s.mkdirs),
          double(s.stats), double(s.fsyncs), double(s.renames), double(s.unlinks),
          double(s.truncates), double(s.metadata_ops()), double(s.index_bytes_gathered)};
}

std::vector<double> Diff(const cairn::IoStats& a, const cairn::IoStats& b) {
  std::vector<double> x = Counters(a), y = Counters(b);
  for (size_t i = 0; i < x.size(); i++) y[i] -= x[i];
  return y;
}

// Prints, at rank 0, `prefix`.<counter>.all (sum over ranks, divided by
// `per`) and .rank0 (rank 0's, divided by `per`) for every counter.
void PrintCounters(const char* prefix, const std::vector<double>& mine, double per) {
  std::vector<double> sum(kNumCounters), max(kNumCounters);
  MPI_Reduce(mine.data(), sum.data(), kNumCounters, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
  MPI_Reduce(mine.data(), max.data(), kNumCounters, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
  if (g_rank != 0) return;
  for (int i = 0; i < kNumCounters; i++) {
    std::printf("%s.%s.all %.1f\n", prefix, kCounterNames[i], sum[i] / per);
    std::printf("%s.%s.rank0 %.1f\n", prefix, kCounterNames[i], mine[i] / per);
    std::printf("%s.%s.max %.1f\n", prefix, kCounterNames[i], max[i] / per);
  }
}

// Prints rank 0's value of a per-rank quantity and the largest among the
// other ranks.
void PrintRank0AndOthers(const char* name, double v) {
  double others = g_rank == 0 ? 0 : v, max_others = 0;
  MPI_Reduce(&others, &max_others, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
  if (g_rank == 0) std::printf("%s.rank0 %.1f\n%s.others_max %.1f\n", name, v, name, max_others);
}

double MaxOverRanks(double v) {
  double m = 0;
  MPI_Allreduce(&v, &m, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  return m;
}

std::string Key(int i) {
  char k[32];
  std::snprintf(k, sizeof k, "field%03d", i);
  return k;
}
std::string SmallKey(int i) {
  char k[32];
  std::snprintf(k, sizeof k, "param%03d", i);
  return k;
}

// The byte at offset j of value i of commit c on this rank.
char Byte(int c, int i, uint64_t j) { return char((c * 131 + i * 31 + g_rank * 7 + j) & 0xff); }

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &g_rank);
  MPI_Comm_size(MPI_COMM_WORLD, &g_size);
  if (argc < 2) {
    if (g_rank == 0) std::fprintf(stderr, "usage: scale_bench DIR [commits] [KiB per rank] [objects]\n");
    MPI_Finalize();
    return 2;
  }
  std::string path = std::string(argv[1]) + "/store";
  int commits = argc > 2 ? std::atoi(argv[2]) : 50;
  uint64_t kib = argc > 3 ? std::strtoull(argv[3], nullptr, 10) : 1024;
  int objects = argc > 4 ? std::atoi(argv[4]) : 3;
  if (commits < 11 || kib < 4 || objects < 1) {
    if (g_rank == 0) std::fprintf(stderr, "scale_bench: commits >= 11, KiB >= 4, objects >= 1\n");
    MPI_Finalize();
    return 2;
  }
  const int kSmall = 8;
  uint64_t value_bytes = kib * 1024 / uint64_t(objects + 1) / 8 * 8;
  uint64_t elems = value_bytes / 8;
  if (g_rank == 0) std::filesystem::remove_all(path);
  // Warm MPI up with the collectives a commit makes (a gather to rank 0 of
  // a table-sized message per rank, broadcasts, reductions), so that the
  // memory MPI takes per peer is in the baseline and not charged to the
  // store.
  {
    std::vector<char> mine(4096, 1), all(g_rank == 0 ? 4096 * size_t(g_size) : 1);
    for (int i = 0; i < 3; i++) {
      MPI_Gather(mine.data(), 4096, MPI_CHAR, all.data(), 4096, MPI_CHAR, 0, MPI_COMM_WORLD);
      MPI_Bcast(mine.data(), 4096, MPI_CHAR, 0, MPI_COMM_WORLD);
      MPI_Scatter(all.data(), 4096, MPI_CHAR, mine.data(), 4096, MPI_CHAR, 0, MPI_COMM_WORLD);
      MaxOverRanks(1.0);
    }
  }
  MPI_Barrier(MPI_COMM_WORLD);
  uint64_t rss_base = ProcKiB("VmRSS"), heap_base = HeapKiB();

  cairn::Options o;
  o.keep_revisions = 2;
  std::unique_ptr<cairn::Store> s;
  auto t0 = Clock::now();
  Check(cairn::Store::Open(o, path, MPI_COMM_WORLD, &s), "open");
  double create_s = MaxOverRanks(std::chrono::duration<double>(Clock::now() - t0).count());
  uint64_t heap_open = HeapKiB();

  std::vector<std::string> values(objects, std::string(value_bytes, '\0'));
  std::vector<double> array(elems);
  std::vector<double> commit_s;
  uint64_t rss_first = 0, rss_10 = 0, heap_first = 0, heap_10 = 0;
  cairn::IoStats before_steady{};
  for (int c = 0; c < commits; c++) {
    for (int i = 0; i < objects; i++) {
      std::string& v = values[i];
      for (uint64_t j = 0; j < value_bytes; j += 4096) v[j] = Byte(c, i, j);
      cairn::TagList tags = {{"step", cairn::TagValue::Int(c)},
                             {"rank", cairn::TagValue::Int(g_rank)},
                             {"field", cairn::TagValue::String(Key(i))},
                             {"scale", cairn::TagValue::Float64(0.5 * i)}};
      Check(s->Put(Key(i), v, tags), "put");
    }
    for (int i = 0; i < kSmall; i++) {
      std::string v(100, char('a' + (c + i + g_rank) % 26));
      Check(s->Put(SmallKey(i), v, {{"step", cairn::TagValue::Int(c)},
                                    {"kind", cairn::TagValue::String("param")}}),
            "put small");
    }
    for (uint64_t j = 0; j < elems; j++) array[j] = double(c) + double(g_rank * elems + j);
    Check(s->PutArray("u", cairn::DType::kFloat64, {uint64_t(g_size) * elems}, {g_rank * elems},
                      {elems}, array.data()),
          "put array");
    if (c == 10) before_steady = s->stats();
    MPI_Barrier(MPI_COMM_WORLD);
    auto t = Clock::now();
    Check(s->Commit(), "commit");
    commit_s.push_back(MaxOverRanks(std::chrono::duration<double>(Clock::now() - t).count()));
    if (c == 0) rss_first = ProcKiB("VmRSS"), heap_first = HeapKiB();
    if (c == 10) rss_10 = ProcKiB("VmRSS"), heap_10 = HeapKiB();
  }
  uint64_t rss_last = ProcKiB("VmRSS"), heap_last = HeapKiB();
  // Commits 11 .. commits-1 are steady state: retention drops one revision
  // per commit and its space is reused.
  cairn::IoStats after = s->stats();
  int steady = commits - 11;
  std::vector<double> per_commit = Diff(before_steady, after);
  Check(s->Close(), "close");
  s.reset();

  if (g_rank == 0) {
    std::printf("ranks %d\ncommits %d\nvalue_bytes %llu\nobjects %d\nsmall_objects %d\n", g_size,
                commits, (unsigned long long)value_bytes, objects, kSmall);
    std::printf("bytes_per_rank %llu\n", (unsigned long long)(value_bytes * (objects + 1) + kSmall * 100));
    std::vector<double> v(commit_s.begin() + 1, commit_s.end());
    std::sort(v.begin(), v.end());
    std::printf("create_open_s %.6f\ncommit_first_s %.6f\ncommit_median_s %.6f\ncommit_max_s %.6f\n",
                create_s, commit_s[0], v[v.size() / 2], v.back());
    std::vector<double> tail(commit_s.end() - 10, commit_s.end()), head(commit_s.begin() + 1, commit_s.begin() + 11);
    std::sort(tail.begin(), tail.end());
    std::sort(head.begin(), head.end());
    std::printf("commit_median_first10_s %.6f\ncommit_median_last10_s %.6f\n", head[5], tail[5]);
  }
  PrintCounters("commit", per_commit, steady);
  PrintRank0AndOthers("rss_mpi_baseline_kib", double(rss_base));
  PrintRank0AndOthers("heap_mpi_baseline_kib", double(heap_base));
  PrintRank0AndOthers("heap_store_after_open_kib", double(heap_open) - double(heap_base));
  PrintRank0AndOthers("heap_after_first_commit_kib", double(heap_first));
  PrintRank0AndOthers("heap_after_last_commit_kib", double(heap_last));
  PrintRank0AndOthers("heap_store_after_last_commit_kib", double(heap_last) - double(heap_base));
  PrintRank0AndOthers("heap_growth_per_commit_kib", (double(heap_last) - double(heap_10)) / steady);
  PrintRank0AndOthers("rss_above_baseline_after_last_commit_kib", double(rss_last) - double(rss_base));
  PrintRank0AndOthers("rss_after_first_commit_kib", double(rss_first));
  PrintRank0AndOthers("rss_after_commit10_kib", double(rss_10));
  PrintRank0AndOthers("rss_after_last_commit_kib", double(rss_last));
  PrintRank0AndOthers("rss_growth_per_commit_kib", (double(rss_last) - double(rss_10)) / steady);
  PrintRank0AndOthers("hwm_after_commits_kib", double(ProcKiB("VmHWM")));

  // The restart: open read-only, read every value and the array block back.
  cairn::Options ro;
  ro.read_only = true;
  ro.create_if_missing = false;
  MPI_Barrier(MPI_COMM_WORLD);
  t0 = Clock::now();
  Check(cairn::Store::Open(ro, path, MPI_COMM_WORLD, &s), "restart open");
  double open_s = MaxOverRanks(std::chrono::duration<double>(Clock::now() - t0).count());
  cairn::IoStats open_stats = s->stats();
  MPI_Barrier(MPI_COMM_WORLD);
  t0 = Clock::now();
  std::vector<cairn::ObjectInfo> list;
  Check(s->List(&list), "list");
  if (list.size() != size_t(objects + kSmall)) {
    std::fprintf(stderr, "rank %d: %zu objects listed, %d expected\n", g_rank, list.size(), objects + kSmall);
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  std::vector<std::string> keys;
  for (const auto& info : list) keys.push_back(info.key);
  std::vector<std::string> got;
  std::vector<cairn::Status> sts;
  Check(s->MultiGet(keys, &got, &sts), "multiget");
  Check(s->GetArray("u", {g_rank * elems}, {elems}, array.data()), "get array");
  double read_s = MaxOverRanks(std::chrono::duration<double>(Clock::now() - t0).count());
  int last = commits - 1;
  for (int i = 0; i < objects; i++) {
    const std::string& v = got[std::find(keys.begin(), keys.end(), Key(i)) - keys.begin()];
    for (uint64_t j = 0; j < value_bytes; j += 4096)
      if (v.size() != value_bytes || v[j] != Byte(last, i, j)) {
        std::fprintf(stderr, "rank %d: %s differs at byte %llu\n", g_rank, Key(i).c_str(), (unsigned long long)j);
        MPI_Abort(MPI_COMM_WORLD, 1);
      }
  }
  for (uint64_t j = 0; j < elems; j++)
    if (array[j] != double(last) + double(g_rank * elems + j)) {
      std::fprintf(stderr, "rank %d: array element %llu differs\n", g_rank, (unsigned long long)j);
      MPI_Abort(MPI_COMM_WORLD, 1);
    }
  cairn::IoStats read_stats = s->stats();
  if (g_rank == 0) std::printf("restart_open_s %.6f\nrestart_read_s %.6f\n", open_s, read_s);
  PrintCounters("restart_open", Counters(open_stats), 1);
  PrintCounters("restart_open_read", Counters(read_stats), 1);
  PrintRank0AndOthers("hwm_end_kib", double(ProcKiB("VmHWM")));
  PrintRank0AndOthers("heap_after_restart_read_kib", double(HeapKiB()) - double(heap_base));
  Check(s->Close(), "close restart");
  s.reset();
  if (g_rank == 0) std::filesystem::remove_all(path);
  MPI_Finalize();
  return 0;
}
