// Outside test of large catalogues: index tables of tens to hundreds of MiB
// per rank (the streamed-table path: written in pieces, written back and
// dropped from the page cache behind), under power cuts, kill -9 and a full
// disk (RLIMIT_FSIZE). Written from the public headers only.
//
//   bigcat write STORE ROUNDS NKEYS   rounds of a whole catalogue per rank
//   bigcat check STORE                every retained revision, any rank count
//
// Round g of rank r's namespace: keys "k%07u" for i < NKEYS with
// (i + g) % 11 != 0 (the others deleted), each with a value of 0-40 bytes
// (every 4099th: 5000+ bytes, a chunked value) and five tags of five types
// derived from (r, g, i); plus "meta" = "g NKEYS". Every key is put again in
// every round, so the table holds no entry of the base and is streamed.
// After each commit that returned ok rank 0 appends "REV G" to STORE.acked
// (fsynced). check: the newest revision is at least the last acked one, every
// acked revision still retained holds its round, and every retained revision
// reads back exactly, every namespace (List with sizes and tags, MultiGet of
// every value, Query and QueryAll on tags).
//
// Environment (write): BIG_ASYNC=1 (CommitAsync, the next round put while it
// is in flight), BIG_KEEP=k, BIG_STAGING=bytes, BIG_CIL=compact_index_limit,
// BIG_SUBFILES=k, BIG_FSIZE=bytes (RLIMIT_FSIZE set that far above the
// largest data file after the open; a failed commit is reported as
// "COMMIT FAILED", the limit lifted, the round put again if the commit
// dropped it, and committed again: it must succeed), BIG_WB=writeback_bytes.
#include <cairn/store.h>
#include <cairn/stream.h>
#include <dirent.h>
#include <fcntl.h>
#include <mpi.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>
#include <xxhash.h>

#include <algorithm>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

using namespace cairn;

static int g_rank = 0;

[[noreturn]] static void Die(const std::string& msg) {
  fprintf(stderr, "BIGCAT FAIL rank %d: %s\n", g_rank, msg.c_str());
  fflush(stderr);
  MPI_Abort(MPI_COMM_WORLD, 3);
  abort();
}
static void Check(const Status& s, const std::string& what) {
  if (!s.ok()) Die(what + ": " + s.ToString());
}
static uint64_t Env(const char* name, uint64_t def) {
  const char* v = getenv(name);
  return v && *v ? strtoull(v, nullptr, 0) : def;
}
static uint64_t H(uint64_t ns, uint64_t g, uint64_t i, uint64_t salt) {
  uint64_t b[4] = {ns, g, i, salt};
  return XXH3_64bits(b, sizeof b);
}
static std::string Key(uint64_t i) {
  char b[16];
  snprintf(b, sizeof b, "k%07llu", (unsigned long long)i);
  return b;
}
static bool Present(uint64_t i, uint64_t g) { return (i + g) % 11 != 0; }
static std::string Value(uint64_t ns, uint64_t g, uint64_t i) {
  uint64_t n = i % 4099 == 17 ? 5000 + (g % 7) * 100 : H(ns, g, i, 1) % 41;
  std::string v(n, '\0');
  uint64_t x = H(ns, g, i, 2) | 1;
  for (uint64_t k = 0; k < n; k++) {
    x ^= x << 13; x ^= x >> 7; x ^= x << 17;
    v[k] = char(x);
  }
  return v;
}
static TagList Tags(uint64_t ns, uint64_t g, uint64_t i) {
  return {{"g", TagValue::Int(int64_t(g), TagType::kInt32)},
          {"i", TagValue::UInt(i, TagType::kUInt32)},
          {"m", TagValue::Int(int64_t(i % 7))},
          {"s", TagValue::String("s" + std::to_string(H(ns, g, i, 3) % 1000000))},
          {"f", TagValue::Float64(double(g) + double(i) * 0.5)}};
}
static void SortTags(TagList* t) {
  std::sort(t->begin(), t->end(), [](const Tag& a, const Tag& b) { return a.name < b.name; });
}
static std::string Meta(uint64_t g, uint64_t n) { return std::to_string(g) + " " + std::to_string(n); }

static void SetFsize(uint64_t limit);
static bool g_fsize = false;  // BIG_FSIZE: a put's IOError lifts the limit
static uint64_t g_put_errors = 0;
// A put under the file-size limit may fail (the value's write): the limit
// is lifted and the put made again; if that fails too (with staging the
// queue keeps the error until the next Commit, which drops the round) the
// round goes on, and the commit must fail and be redone by the caller.
static void PutOrLift(Store* st, const std::string& k, const std::string& v, const TagList& t) {
  Status s = st->Put(k, v, t);
  if (s.ok()) return;
  if (!g_fsize || !s.IsIOError()) Check(s, "put " + k);
  g_put_errors++;
  fprintf(stderr, "PUT FAILED rank %d %s: %s\n", g_rank, k.c_str(), s.ToString().c_str());
  SetFsize(RLIM_INFINITY);
  s = st->Put(k, v, t);
  if (!s.ok() && !s.IsIOError()) Check(s, "put again " + k);
}

static void PutRound(Store* st, uint64_t g, uint64_t n, bool restarted_base) {
  uint64_t ns = uint64_t(st->rank());
  for (uint64_t i = 0; i < n; i++) {
    if (Present(i, g)) {
      PutOrLift(st, Key(i), Value(ns, g, i), Tags(ns, g, i));
    } else {
      Status s = st->Delete(Key(i));
      if (!s.ok() && !s.IsNotFound()) Check(s, "delete " + Key(i));
      (void)restarted_base;
    }
  }
  PutOrLift(st, "meta", Meta(g, n), {{"g", TagValue::Int(int64_t(g), TagType::kInt32)}});
}

static void Ack(const std::string& store, uint64_t rev, uint64_t g) {
  if (g_rank != 0) return;
  std::string line = std::to_string(rev) + " " + std::to_string(g) + "\n";
  int fd = open((store + ".acked").c_str(), O_WRONLY | O_CREAT | O_APPEND, 0644);
  if (fd < 0 || write(fd, line.data(), line.size()) != ssize_t(line.size()) || fsync(fd) != 0) Die("ack");
  close(fd);
  printf("acked %llu round %llu\n", (unsigned long long)rev, (unsigned long long)g);
  fflush(stdout);
}

static uint64_t LargestDataFile(const std::string& store) {
  uint64_t m = 0;
  DIR* d = opendir(store.c_str());
  if (!d) return 0;
  while (dirent* e = readdir(d)) {
    struct stat sb;
    std::string p = store + "/" + e->d_name;
    if (stat(p.c_str(), &sb) == 0 && S_ISREG(sb.st_mode)) m = std::max<uint64_t>(m, sb.st_size);
  }
  closedir(d);
  return m;
}
static void SetFsize(uint64_t limit) {
  struct rlimit rl;
  getrlimit(RLIMIT_FSIZE, &rl);
  rl.rlim_cur = limit;
  if (setrlimit(RLIMIT_FSIZE, &rl) != 0) Die("setrlimit");
}

// Right after a synchronous commit: the writable handle's own namespace,
// whose base is now the table just streamed (its entries viewed in memory,
// not read back from the file), must answer List, Query, Get and GetTags as
// round g.
static void CheckOwnAfterCommit(Store* st, uint64_t g, uint64_t n) {
  uint64_t ns = uint64_t(st->rank());
  std::string where = "own namespace after the commit of round " + std::to_string(g);
  std::vector<std::string> hits, want;
  Check(st->Query({TagQuery::Equal("m", TagValue::Int(3)), TagQuery::Range("i", TagValue::UInt(1000), TagValue::UInt(200000))}, &hits),
        where + " query");
  for (uint64_t i = 1000; i <= std::min<uint64_t>(200000, n - 1); i++)
    if (Present(i, g) && i % 7 == 3) want.push_back(Key(i));
  if (hits != want) Die(where + ": query gave " + std::to_string(hits.size()) + " keys, expected " + std::to_string(want.size()));
  std::vector<ObjectInfo> objs;
  Check(st->List(&objs), where + " list");
  uint64_t present = 0;
  for (uint64_t i = 0; i < n; i++) present += Present(i, g);
  if (objs.size() != present + 1) Die(where + ": list has " + std::to_string(objs.size()));
  for (uint64_t i = g % 97; i < n; i += 9973) {
    std::string v;
    Status s = st->Get(Key(i), &v);
    if (!Present(i, g)) {
      if (!s.IsNotFound()) Die(where + ": deleted " + Key(i) + " gave " + s.ToString());
      continue;
    }
    Check(s, where + " get " + Key(i));
    if (v != Value(ns, g, i)) Die(where + ": value of " + Key(i));
    TagList t, w = Tags(ns, g, i);
    Check(st->GetTags(Key(i), &t), where + " tags");
    SortTags(&t);
    SortTags(&w);
    if (!(t == w)) Die(where + ": tags of " + Key(i));
  }
}

static int Write(const std::string& store, uint64_t rounds, uint64_t n) {
  Options o;
  o.keep_revisions = Env("BIG_KEEP", 0);
  o.staging_bytes = Env("BIG_STAGING", 0);
  o.compact_index_limit = Env("BIG_CIL", o.compact_index_limit);
  o.subfiles = int(Env("BIG_SUBFILES", 0));
  o.writeback_bytes = Env("BIG_WB", o.writeback_bytes);
  bool async = Env("BIG_ASYNC", 0) != 0;
  uint64_t fsize = Env("BIG_FSIZE", 0);
  std::unique_ptr<Store> st;
  Check(Store::Open(o, store, MPI_COMM_WORLD, &st), "open");
  uint64_t g0 = 0;
  if (st->revision() > 0) {
    std::string meta;
    ReadOptions ro;
    ro.rank = 0;
    Check(st->Get("meta", &meta, ro), "get meta at restart");
    g0 = strtoull(meta.c_str(), nullptr, 10);
  }
  if (fsize) {
    g_fsize = true;
    signal(SIGXFSZ, SIG_IGN);
    uint64_t base = LargestDataFile(store);
    MPI_Allreduce(MPI_IN_PLACE, &base, 1, MPI_UINT64_T, MPI_MAX, MPI_COMM_WORLD);
    SetFsize(base + fsize);
    if (g_rank == 0) printf("file size limit %llu\n", (unsigned long long)(base + fsize));
  }
  uint64_t failed = 0;
  auto commit_round = [&](uint64_t g, bool put_done) {
    // put_done: round g was put already.
    if (!put_done) PutRound(st.get(), g, n, g == g0 + 1);
    uint64_t rev = 0;
    Status s;
    if (async) {
      AsyncCommit p;
      s = st->CommitAsync(&p);
      if (s.ok()) {
        bool next = g < g0 + rounds;
        if (next) PutRound(st.get(), g + 1, n, false);  // while in flight
        s = p.Wait(&rev);
        if (s.ok()) {
          Ack(store, rev, g);
          return next;
        }
      }
    } else {
      s = st->Commit(&rev);
      if (s.ok()) {
        Ack(store, rev, g);
        CheckOwnAfterCommit(st.get(), g, n);
        return false;
      }
    }
    if (!fsize) Die("commit of round " + std::to_string(g) + ": " + s.ToString());
    // Full disk: lift the limit, put the round again, commit again.
    failed++;
    if (g_rank == 0) printf("COMMIT FAILED round %llu: %s\n", (unsigned long long)g, s.ToString().c_str());
    fflush(stdout);
    SetFsize(RLIM_INFINITY);
    // A failed commit with staging, or a failed CommitAsync, dropped the
    // puts; without staging they stay pending (options.h, store.h).
    if (async || o.staging_bytes) PutRound(st.get(), g, n, false);
    s = st->Commit(&rev);
    if (!s.ok()) Die("commit of round " + std::to_string(g) + " after the limit was lifted: " + s.ToString());
    Ack(store, rev, g);
    CheckOwnAfterCommit(st.get(), g, n);
    return false;
  };
  bool put_done = false;
  for (uint64_t g = g0 + 1; g <= g0 + rounds; g++) put_done = commit_round(g, put_done);
  IoStats ios = st->stats();
  if (g_rank == 0)
    printf("rank 0: streamed tables %llu, failed commits %llu, failed puts %llu\n",
           (unsigned long long)ios.index_tables_streamed, (unsigned long long)failed, (unsigned long long)g_put_errors);
  Check(st->Close(), "close");
  return 0;
}

// Checks namespace ns of the revision `st` is open at against round g.
static void CheckNs(Store* st, int ns, uint64_t rev) {
  ReadOptions ro;
  ro.rank = ns;
  std::string meta;
  Check(st->Get("meta", &meta, ro), "rev " + std::to_string(rev) + " ns " + std::to_string(ns) + " meta");
  uint64_t g = 0, n = 0;
  if (sscanf(meta.c_str(), "%llu %llu", (unsigned long long*)&g, (unsigned long long*)&n) != 2) Die("meta " + meta);
  std::string where = "rev " + std::to_string(rev) + " ns " + std::to_string(ns) + " round " + std::to_string(g);
  std::vector<ObjectInfo> objs;
  Check(st->List(&objs, ro), where + " list");
  std::vector<std::string> keys;
  size_t j = 0;
  for (uint64_t i = 0; i < n; i++) {
    if (!Present(i, g)) continue;
    std::string k = Key(i);
    if (j >= objs.size() || objs[j].key != k) Die(where + ": key " + k + " missing or out of order (found " + (j < objs.size() ? objs[j].key : "end") + ")");
    std::string v = Value(uint64_t(ns), g, i);
    if (objs[j].size != v.size()) Die(where + ": " + k + " size " + std::to_string(objs[j].size));
    TagList want = Tags(uint64_t(ns), g, i), got = objs[j].tags;
    SortTags(&want);
    SortTags(&got);
    if (!(want == got)) Die(where + ": " + k + " tags differ");
    keys.push_back(k);
    j++;
  }
  if (j >= objs.size() || objs[j].key != "meta" || j + 1 != objs.size())
    Die(where + ": " + std::to_string(objs.size()) + " objects listed, " + std::to_string(j + 1) + " expected");
  std::vector<std::string> values;
  std::vector<Status> sts;
  Check(st->MultiGet(keys, &values, &sts, ro), where + " multiget");
  size_t ki = 0;
  for (uint64_t i = 0; i < n; i++) {
    if (!Present(i, g)) continue;
    if (values[ki] != Value(uint64_t(ns), g, i)) Die(where + ": value of " + Key(i) + " differs");
    ki++;
  }
  // Query: m == 3 and i in [1000, 200000].
  std::vector<std::string> hits, want;
  Check(st->Query({TagQuery::Equal("m", TagValue::Int(3)), TagQuery::Range("i", TagValue::UInt(1000), TagValue::UInt(200000))},
                  &hits, ro),
        where + " query");
  for (uint64_t i = 1000; i <= std::min<uint64_t>(200000, n - 1); i++)
    if (Present(i, g) && i % 7 == 3) want.push_back(Key(i));
  if (hits != want) Die(where + ": query gave " + std::to_string(hits.size()) + " keys, expected " + std::to_string(want.size()));
  // A string tag of one key, by Equal.
  uint64_t probe = (g * 7919) % n;
  if (Present(probe, g)) {
    std::string s = "s" + std::to_string(H(uint64_t(ns), g, probe, 3) % 1000000);
    Check(st->Query({TagQuery::Equal("s", TagValue::String(s)), TagQuery::Equal("i", TagValue::UInt(probe))}, &hits, ro), where + " query s");
    if (hits != std::vector<std::string>{Key(probe)}) Die(where + ": query on s of " + Key(probe));
  }
}

static int CheckAll(const std::string& store) {
  int size;
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  std::map<uint64_t, uint64_t> acked;
  uint64_t last = 0;
  {
    std::ifstream f(store + ".acked");
    uint64_t r, g;
    while (f >> r >> g) {
      acked[r] = g;
      last = std::max(last, r);
    }
  }
  Options o;
  o.read_only = true;
  o.create_if_missing = false;
  std::unique_ptr<Store> st;
  Check(Store::Open(o, store, MPI_COMM_WORLD, &st), "open read-only");
  if (st->revision() < last) Die("newest revision " + std::to_string(st->revision()) + " < acked " + std::to_string(last));
  std::vector<RevisionInfo> revs;
  Check(st->ListRevisions(&revs), "list revisions");
  Check(st->Close(), "close");
  for (const RevisionInfo& ri : revs) {
    o.revision = ri.revision;
    Check(Store::Open(o, store, MPI_COMM_WORLD, &st), "open revision " + std::to_string(ri.revision));
    int w = st->writer_ranks();
    for (int ns = g_rank; ns < w; ns += size) CheckNs(st.get(), ns, ri.revision);
    std::string meta;
    ReadOptions ro;
    ro.rank = 0;
    Check(st->Get("meta", &meta, ro), "meta");
    uint64_t g = strtoull(meta.c_str(), nullptr, 10), n = strtoull(strchr(meta.c_str(), ' ') + 1, nullptr, 10);
    auto a = acked.find(ri.revision);
    if (a != acked.end() && a->second != g)
      Die("revision " + std::to_string(ri.revision) + " holds round " + std::to_string(g) + ", acked " + std::to_string(a->second));
    std::vector<QueryHit> hits;
    Check(st->QueryAll({TagQuery::Equal("m", TagValue::Int(5)), TagQuery::Range("i", TagValue::UInt(0), TagValue::UInt(3000))}, &hits),
          "queryall");
    size_t want = 0;
    for (int ns = 0; ns < w; ns++) {
      std::string mm;
      ro.rank = ns;
      Check(st->Get("meta", &mm, ro), "meta");
      uint64_t gg = strtoull(mm.c_str(), nullptr, 10);
      if (gg != g) Die("revision " + std::to_string(ri.revision) + ": ns " + std::to_string(ns) + " at round " + std::to_string(gg) + ", ns 0 at " + std::to_string(g));
      for (uint64_t i = 0; i <= std::min<uint64_t>(3000, n - 1); i++)
        if (Present(i, g) && i % 7 == 5) {
          if (want >= hits.size() || hits[want].rank != ns || hits[want].key != Key(i))
            Die("revision " + std::to_string(ri.revision) + ": QueryAll differs at hit " + std::to_string(want));
          want++;
        }
    }
    if (want != hits.size()) Die("QueryAll: extra hits");
    Check(st->Close(), "close");
    if (g_rank == 0) {
      printf("revision %llu (round %llu, %d ranks, index %llu bytes) ok\n", (unsigned long long)ri.revision,
             (unsigned long long)g, w, (unsigned long long)ri.index_bytes);
      fflush(stdout);
    }
  }
  if (g_rank == 0) printf("checked %zu revisions, newest %llu, last acked %llu\n", revs.size(),
                          (unsigned long long)(revs.empty() ? 0 : revs.back().revision), (unsigned long long)last);
  return 0;
}

// ---- The restart chain (tests/breaker/chain.sh): one model written by C++
// (here), Python (py_chain.py) and C (chain_c.c) writers at 4, 3, 2 and 1
// ranks in turn. Round g: rank r puts "o<r>_<i>" (i < 20; ChainLen bytes of
// ChainPattern; tags g, r), a stream "s<r>" (5000 bytes in 5 writes; tag g)
// and its rows of global array "G" (64 x 5 float64, g*1000 + row*5 + col;
// irregular blocks, the last of several ranks puts none, rank 0 two blocks).
// keep_revisions 3; a job opening at a revision divisible by 4 pins it.
static std::string ChainPattern(int r, uint64_t g, int i, size_t n) {
  std::string b(n, '\0');
  for (size_t k = 0; k < n; k++) b[k] = char((r * 131 + g * 31 + i * 7 + k * 13 + (k >> 8)) & 0xff);
  return b;
}
static size_t ChainLen(int r, uint64_t g, int i) { return 100 + size_t((r * 7 + i * 13 + g) % 3000); }
static void ChainRows(int r, int m, uint64_t* lo, uint64_t* hi) {
  if (m == 1) { *lo = 0; *hi = 64; return; }
  uint64_t w = uint64_t(m - 1) * m / 2, before = uint64_t(r) * (r + 1) / 2;
  if (r == m - 1) { *lo = *hi = 64; return; }
  *lo = 64 * before / w;
  *hi = 64 * (before + r + 1) / w;
}

static int ChainWrite(const std::string& store, int rounds) {
  Options o;
  o.keep_revisions = 3;
  std::unique_ptr<Store> st;
  Check(Store::Open(o, store, MPI_COMM_WORLD, &st), "open");
  int size = st->size();
  uint64_t g0 = 0;
  if (st->revision() > 0) {
    TagList t;
    ReadOptions ro;
    ro.rank = 0;
    Check(st->GetTags("o0_0", &t, ro), "tags of o0_0");
    for (auto& x : t) if (x.name == "g") g0 = uint64_t(x.value.as_int());
    if (st->revision() % 4 == 0) Check(st->Pin(st->revision()), "pin");
  }
  for (uint64_t g = g0 + 1; g <= g0 + uint64_t(rounds); g++) {
    for (int i = 0; i < 20; i++)
      Check(st->Put("o" + std::to_string(g_rank) + "_" + std::to_string(i), ChainPattern(g_rank, g, i, ChainLen(g_rank, g, i)),
                    {{"g", TagValue::Int(int64_t(g))}, {"r", TagValue::Int(g_rank)}}),
            "put");
    std::unique_ptr<StreamWriter> w;
    Check(st->OpenWriteStream("s" + std::to_string(g_rank), {{"g", TagValue::Int(int64_t(g))}}, &w), "stream");
    std::string sb = ChainPattern(g_rank, g, 999, 5000);
    for (int p = 0; p < 5; p++) Check(w->Write(sb.data() + p * 1000, 1000), "stream write");
    Check(w->Close(), "stream close");
    uint64_t lo, hi;
    ChainRows(g_rank, size, &lo, &hi);
    std::vector<double> a;
    for (uint64_t r = lo; r < hi; r++)
      for (int c = 0; c < 5; c++) a.push_back(double(g * 1000 + r * 5 + c));
    if (hi - lo >= 2) {
      uint64_t mid = lo + (hi - lo) / 2;
      Check(st->PutArray("G", DType::kFloat64, {64, 5}, {lo, 0}, {mid - lo, 5}, a.data()), "put array 1");
      Check(st->PutArray("G", DType::kFloat64, {64, 5}, {mid, 0}, {hi - mid, 5}, a.data() + (mid - lo) * 5), "put array 2");
    } else if (hi > lo) {
      Check(st->PutArray("G", DType::kFloat64, {64, 5}, {lo, 0}, {hi - lo, 5}, a.data()), "put array");
    }
    uint64_t rev = 0;
    if (g % 2) {
      Check(st->Commit(&rev), "commit");
    } else {
      AsyncCommit h;
      Check(st->CommitAsync(&h), "commit async");
      Check(h.Wait(&rev), "wait");
    }
    if (g_rank == 0) {
      std::string line = std::to_string(rev) + " " + std::to_string(g) + "\n";
      int fd = open((store + ".acked").c_str(), O_WRONLY | O_CREAT | O_APPEND, 0644);
      if (fd < 0 || write(fd, line.data(), line.size()) != ssize_t(line.size()) || fsync(fd) != 0) Die("ack");
      close(fd);
    }
  }
  Check(st->Close(), "close");
  return 0;
}

static int ChainCheck(const std::string& store) {
  int size;
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  std::map<uint64_t, uint64_t> acked;
  uint64_t last = 0;
  {
    std::ifstream f(store + ".acked");
    uint64_t r, g;
    while (f >> r >> g) { acked[r] = g; last = std::max(last, r); }
  }
  Options o;
  o.read_only = true;
  o.create_if_missing = false;
  std::unique_ptr<Store> st;
  Check(Store::Open(o, store, MPI_COMM_WORLD, &st), "open read-only");
  if (st->revision() < last) Die("newest revision " + std::to_string(st->revision()) + " < acked " + std::to_string(last));
  std::vector<RevisionInfo> revs;
  Check(st->ListRevisions(&revs), "list revisions");
  Check(st->Close(), "close");
  int pinned = 0;
  for (const RevisionInfo& ri : revs) {
    pinned += ri.pinned;
    o.revision = ri.revision;
    Check(Store::Open(o, store, MPI_COMM_WORLD, &st), "open revision " + std::to_string(ri.revision));
    std::string where = "revision " + std::to_string(ri.revision);
    int w = st->writer_ranks();
    TagList t;
    ReadOptions ro;
    ro.rank = 0;
    Check(st->GetTags("o0_0", &t, ro), where + " tags of o0_0");
    uint64_t g = 0;
    for (auto& x : t) if (x.name == "g") g = uint64_t(x.value.as_int());
    auto a = acked.find(ri.revision);
    if (a != acked.end() && a->second != g) Die(where + " holds round " + std::to_string(g) + ", acked " + std::to_string(a->second));
    for (int ns = g_rank; ns < w; ns += size) {
      ro.rank = ns;
      std::vector<ObjectInfo> objs;
      Check(st->List(&objs, ro), where + " list");
      if (objs.size() != 21) Die(where + ": ns " + std::to_string(ns) + " has " + std::to_string(objs.size()) + " objects");
      for (int i = 0; i < 20; i++) {
        std::string k = "o" + std::to_string(ns) + "_" + std::to_string(i), v;
        Check(st->Get(k, &v, ro), where + " get " + k);
        if (v != ChainPattern(ns, g, i, ChainLen(ns, g, i))) Die(where + ": value of " + k);
        TagList tt;
        Check(st->GetTags(k, &tt, ro), where + " tags " + k);
        SortTags(&tt);
        TagList want = {{"g", TagValue::Int(int64_t(g))}, {"r", TagValue::Int(ns)}};
        if (!(tt == want)) Die(where + ": tags of " + k);
      }
      std::string k = "s" + std::to_string(ns), v;
      Check(st->Get(k, &v, ro), where + " get " + k);
      if (v != ChainPattern(ns, g, 999, 5000)) Die(where + ": stream " + k);
    }
    std::vector<double> a2(64 * 5);
    Check(st->GetArray("G", {0, 0}, {64, 5}, a2.data()), where + " array G");
    for (uint64_t r = 0; r < 64; r++)
      for (int c = 0; c < 5; c++)
        if (a2[r * 5 + c] != double(g * 1000 + r * 5 + c)) Die(where + ": G[" + std::to_string(r) + "," + std::to_string(c) + "]");
    Check(st->Close(), "close");
  }
  if (g_rank == 0)
    printf("chain check at %d ranks: %zu revisions (%d pinned), newest %llu, last acked %llu\n", size, revs.size(), pinned,
           (unsigned long long)(revs.empty() ? 0 : revs.back().revision), (unsigned long long)last);
  return 0;
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &g_rank);
  if (argc < 3) Die("usage: bigcat write STORE ROUNDS NKEYS | check STORE");
  std::string mode = argv[1], store = argv[2];
  int rc = 0;
  if (mode == "write" && argc >= 5) rc = Write(store, strtoull(argv[3], nullptr, 10), strtoull(argv[4], nullptr, 10));
  else if (mode == "check") rc = CheckAll(store);
  else if (mode == "chainwrite" && argc >= 4) rc = ChainWrite(store, atoi(argv[3]));
  else if (mode == "chaincheck") rc = ChainCheck(store);
  else Die("bad arguments");
  MPI_Finalize();
  return rc;
}
