// Outside torture of features used together, under kill -9.
//   combo write STORE MODEL SEED ROUNDS KEEP STAGING [OPEN_REV]
//   combo verify STORE MODEL
// write: rounds of puts/deletes/tag edits/zero-copy puts/streams open across
// commits/global array re-puts/shared puts, sync and async commits (puts
// overlap the commit in flight), pins/unpins/drops. After each commit that
// returned ok, every rank writes MODEL/<rev>.ns<rank> (fsync), barrier, rank 0
// writes MODEL/<rev>.done (fsync). verify: every retained revision with a
// .done file reads back exactly as the model says, at any rank count.
#include <cairn/store.h>
#include <cairn/stream.h>
#include <fcntl.h>
#include <mpi.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <csignal>
#include <unistd.h>
#include <xxhash.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <fstream>
#include <map>
#include <memory>
#include <random>
#include <set>
#include <sstream>
#include <string>
#include <vector>

using namespace cairn;

static int g_rank = 0;

[[noreturn]] static void Die(const std::string& msg) {
  fprintf(stderr, "COMBO FAIL rank %d: %s\n", g_rank, msg.c_str());
  fflush(stderr);
  MPI_Abort(MPI_COMM_WORLD, 3);
  abort();
}
static void Check(const Status& s, const std::string& what) {
  if (!s.ok() && s.IsIOError() && getenv("COMBO_FSIZE")) {
    // Under a file-size limit an IOError is expected: end the job here (as a kill would).
    fprintf(stderr, "EFBIG-ABORT rank %d: %s: %s\n", g_rank, what.c_str(), s.ToString().c_str());
    fflush(stderr);
    MPI_Abort(MPI_COMM_WORLD, 4);
  }
  if (!s.ok()) Die(what + ": " + s.ToString());
}

static uint64_t Fnv(const void* p, size_t n) { return XXH3_64bits(p, n); }
// Canonical tag bytes (the Python checker computes the same from cairn_reader).
static uint64_t TagsHash(TagList t) {
  std::sort(t.begin(), t.end(), [](const Tag& a, const Tag& b) { return a.name < b.name; });
  std::string buf = "T";
  for (const Tag& g : t) {
    buf += g.name;
    buf += '\0';
    buf += static_cast<char>(g.value.type_code());
    char b8[8] = {0};
    if (g.value.is_signed()) { int64_t v = g.value.as_int(); memcpy(b8, &v, 8); buf.append(b8, 8); }
    else if (g.value.is_unsigned()) { uint64_t v = g.value.as_uint(); memcpy(b8, &v, 8); buf.append(b8, 8); }
    else if (g.value.is_float()) { double v = g.value.as_double(); memcpy(b8, &v, 8); buf.append(b8, 8); }
    else buf += g.value.bytes();
    buf += '|';
  }
  return XXH3_64bits(buf.data(), buf.size());
}
static std::string Gen(uint64_t seed, size_t n) {
  std::string s(n, '\0');
  uint64_t x = seed * 0x9E3779B97F4A7C15ull + 1;
  for (size_t i = 0; i < n; i++) {
    x ^= x << 13; x ^= x >> 7; x ^= x << 17;
    s[i] = static_cast<char>(x);
  }
  return s;
}

struct Obj { uint64_t size = 0, vh = 0, th = 0; };
using NsModel = std::map<std::string, Obj>;

static void WriteFileSync(const std::string& path, const std::string& text) {
  std::string tmp = path + ".tmp";
  int fd = open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  if (fd < 0) Die("open model " + tmp);
  if (write(fd, text.data(), text.size()) != (ssize_t)text.size()) Die("write model");
  if (fsync(fd) != 0) Die("fsync model");
  close(fd);
  if (rename(tmp.c_str(), path.c_str()) != 0) Die("rename model");
}
static void SyncDir(const std::string& dir) {
  int fd = open(dir.c_str(), O_RDONLY | O_DIRECTORY);
  fsync(fd);
  close(fd);
}
static std::string SerializeNs(const NsModel& m) {
  std::ostringstream o;
  for (auto& [k, v] : m) o << k << ' ' << v.size << ' ' << v.vh << ' ' << v.th << '\n';
  return o.str();
}
static bool ReadFile(const std::string& path, std::string* out) {
  std::ifstream f(path, std::ios::binary);
  if (!f) return false;
  std::ostringstream o;
  o << f.rdbuf();
  *out = o.str();
  return true;
}
static NsModel ParseNs(const std::string& text) {
  NsModel m;
  std::istringstream in(text);
  std::string k;
  Obj o;
  while (in >> k >> o.size >> o.vh >> o.th) m[k] = o;
  return m;
}

// The global array "G": generation gen, M ranks that put it, none_rank puts nothing.
struct ArrModel { bool present = false; uint64_t gen = 0; int m = 1; int none_rank = -1; };
static std::vector<uint64_t> ArrShape(uint64_t gen) { return {7 + gen % 11, 3 + gen % 5}; }
static DType ArrType(uint64_t gen) { return gen % 2 ? DType::kFloat64 : DType::kInt16; }
static void ArrRows(uint64_t rows, int m, int r, uint64_t* r0, uint64_t* nr) {
  *r0 = rows * r / m;
  *nr = rows * (r + 1) / m - *r0;
}
static std::vector<char> ArrData(uint64_t gen, uint64_t r0, uint64_t nr, uint64_t cols) {
  size_t es = DTypeSize(ArrType(gen));
  std::vector<char> d(nr * cols * es);
  for (uint64_t i = 0; i < nr; i++)
    for (uint64_t j = 0; j < cols; j++) {
      double v = (double)(gen * 1000 + (r0 + i) * 37 + j);
      char* p = d.data() + (i * cols + j) * es;
      if (es == 8) memcpy(p, &v, 8);
      else { int16_t s = (int16_t)((gen * 31 + (r0 + i) * 7 + j) & 0x7fff); memcpy(p, &s, 2); }
    }
  return d;
}
static std::string SerializeArr(const ArrModel& a) {
  std::ostringstream o;
  o << a.present << ' ' << a.gen << ' ' << a.m << ' ' << a.none_rank << '\n';
  return o.str();
}
static ArrModel ParseArr(const std::string& t) {
  ArrModel a;
  std::istringstream in(t);
  int p = 0;
  in >> p >> a.gen >> a.m >> a.none_rank;
  a.present = p;
  return a;
}

static Options BaseOptions() {
  Options o;
  o.chunk_size = 4096;
  o.extent_size = 64 * 1024;
  o.write_buffer_size = 64 * 1024;
  if (const char* sf = getenv("COMBO_SUBFILES")) o.subfiles = atoi(sf);
  // COMBO_CIL: Options::compact_index_limit (0: no table is gathered; every
  // table of entries all put since the base is streamed, commit_tables.h).
  if (const char* cil = getenv("COMBO_CIL")) o.compact_index_limit = strtoull(cil, nullptr, 0);
  return o;
}

// Reads namespace `ns` of an open store into a model (List + Get + GetTags),
// cross-checking Get against GetRange and a read stream for some keys.
static NsModel ReadNs(Store* st, int ns, std::mt19937_64& rng, const std::string& where) {
  ReadOptions ro;
  ro.rank = ns;
  std::vector<ObjectInfo> objs;
  Check(st->List(&objs, ro), where + " List ns " + std::to_string(ns));
  NsModel m;
  std::vector<std::string> keys;
  for (auto& oi : objs) {
    std::string v;
    Check(st->Get(oi.key, &v, ro), where + " Get " + oi.key);
    if (v.size() != oi.size) Die(where + " size mismatch List/Get " + oi.key);
    TagList t;
    Check(st->GetTags(oi.key, &t, ro), where + " GetTags " + oi.key);
    if (TagsHash(t) != TagsHash(oi.tags)) Die(where + " tags List/GetTags differ " + oi.key);
    m[oi.key] = Obj{v.size(), Fnv(v.data(), v.size()), TagsHash(t)};
    keys.push_back(oi.key);
    if (v.size() > 0 && rng() % 4 == 0) {
      uint64_t off = rng() % v.size(), len = rng() % (v.size() - off + 1);
      std::string part(len, '\0');
      Check(st->GetRange(oi.key, off, part.data(), len, ro), where + " GetRange " + oi.key);
      if (part != v.substr(off, len)) Die(where + " GetRange differs " + oi.key);
    }
    if (rng() % 6 == 0) {
      std::unique_ptr<StreamReader> r;
      Check(st->OpenReadStream(oi.key, &r, ro), where + " OpenReadStream " + oi.key);
      std::string got;
      char buf[777];
      size_t n = 0;
      do {
        Check(r->Read(buf, sizeof buf, &n), where + " stream read " + oi.key);
        got.append(buf, n);
      } while (n > 0);
      if (got != v) Die(where + " read stream differs from Get " + oi.key);
    }
  }
  if (!keys.empty()) {
    std::vector<std::string> vals;
    std::vector<Status> sts;
    Status s = st->MultiGet(keys, &vals, &sts, ro);
    Check(s, where + " MultiGet");
    for (size_t i = 0; i < keys.size(); i++)
      if (Fnv(vals[i].data(), vals[i].size()) != m[keys[i]].vh) Die(where + " MultiGet differs " + keys[i]);
  }
  return m;
}

static void CompareNs(const NsModel& want, const NsModel& got, const std::string& where) {
  for (auto& [k, o] : want) {
    auto it = got.find(k);
    if (it == got.end()) Die(where + ": committed key missing: " + k);
    if (it->second.size != o.size || it->second.vh != o.vh)
      Die(where + ": value of " + k + " differs (size " + std::to_string(it->second.size) + " want " +
          std::to_string(o.size) + ")");
    if (it->second.th != o.th) Die(where + ": tags of " + k + " differ");
  }
  for (auto& [k, o] : got)
    if (!want.count(k)) Die(where + ": unexpected key " + k);
}

static void CheckArray(Store* st, const ArrModel& a, const std::string& where) {
  ArrayInfo info;
  Status s = st->GetArrayInfo("G", &info, true);
  if (!a.present) {
    if (!s.IsNotFound()) Die(where + ": array G should be absent: " + s.ToString());
    return;
  }
  Check(s, where + " GetArrayInfo");
  auto shape = ArrShape(a.gen);
  if (info.shape != shape || info.dtype != ArrType(a.gen)) Die(where + ": array shape/dtype differ");
  size_t es = DTypeSize(info.dtype);
  std::vector<char> got(shape[0] * shape[1] * es);
  Check(st->GetArray("G", {0, 0}, shape, got.data()), where + " GetArray");
  std::vector<char> want(got.size(), 0);
  for (int r = 0; r < a.m; r++) {
    if (r == a.none_rank) continue;
    uint64_t r0, nr;
    ArrRows(shape[0], a.m, r, &r0, &nr);
    auto d = ArrData(a.gen, r0, nr, shape[1]);
    memcpy(want.data() + r0 * shape[1] * es, d.data(), d.size());
  }
  if (got != want) Die(where + ": array G contents differ (gen " + std::to_string(a.gen) + ")");
  bool tag_ok = false;
  for (auto& t : info.tags)
    if (t.name == "gen" && t.value.as_uint() == a.gen) tag_ok = true;
  if (!tag_ok) Die(where + ": array tag gen missing/wrong");
}

static bool Exists(const std::string& p) {
  struct stat sb;
  return stat(p.c_str(), &sb) == 0;
}

static int Verify(const std::string& path, const std::string& model) {
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  std::mt19937_64 rng(rank * 7 + time(nullptr));
  Options o = BaseOptions();
  o.read_only = true;
  o.create_if_missing = false;
  std::unique_ptr<Store> st;
  Status s = Store::Open(o, path, MPI_COMM_WORLD, &st);
  if (s.IsNotFound() || (!s.ok() && !Exists(path + "/MANIFEST"))) {
    // No store yet: nothing may be recorded.
    if (Exists(model + "/1.done")) Die("store missing but revision 1 recorded: " + s.ToString());
    return 0;
  }
  Check(s, "verify open");
  std::vector<RevisionInfo> revs;
  Check(st->ListRevisions(&revs), "ListRevisions");
  std::set<uint64_t> listed;
  uint64_t newest = 0;
  for (auto& r : revs) { listed.insert(r.revision); newest = std::max(newest, r.revision); }
  // Recorded revisions and events.
  uint64_t rec_newest = 0;
  std::set<uint64_t> recorded;
  for (uint64_t r = 1; r < 100000; r++) {
    if (Exists(model + "/" + std::to_string(r) + ".done")) { recorded.insert(r); rec_newest = r; }
    else if (r > rec_newest + 50) break;
  }
  std::string ev;
  ReadFile(model + "/events", &ev);
  std::set<uint64_t> pinned, dropped;
  {
    std::istringstream in(ev);
    std::string w;
    uint64_t r;
    while (in >> w >> r) {
      if (w == "pin") pinned.insert(r);
      if (w == "unpin") pinned.erase(r);
      if (w == "drop") { pinned.erase(r); dropped.insert(r); }
    }
  }
  uint64_t rec_live = 0;  // the newest recorded revision not dropped
  for (uint64_t r : recorded)
    if (!dropped.count(r)) rec_live = r;
  if (newest < rec_live) Die("newest listed " + std::to_string(newest) + " < recorded " + std::to_string(rec_live));
  std::string keeps;
  uint64_t keep = 0;
  if (ReadFile(model + "/keep", &keeps)) keep = std::stoull(keeps);
  for (uint64_t r : pinned)
    if (recorded.count(r) && !listed.count(r)) Die("pinned revision " + std::to_string(r) + " not listed");
  // The keep file is the last recording writer's: it says what the newest
  // revision's commit kept only when that revision is recorded.
  if (keep > 0 && newest == rec_live)
    for (uint64_t r : recorded)
      if (r + keep > newest && !dropped.count(r) && !listed.count(r))
        Die("revision " + std::to_string(r) + " within keep " + std::to_string(keep) + " of newest " +
            std::to_string(newest) + " not listed");
  if (keep == 0 && newest == rec_live)
    for (uint64_t r : recorded)
      if (!dropped.count(r) && !listed.count(r)) Die("revision " + std::to_string(r) + " lost (keep 0)");
  st->Close();
  int checked = 0;
  for (uint64_t r : recorded) {
    if (!listed.count(r)) continue;
    Options ro = o;
    ro.revision = r;
    std::unique_ptr<Store> sv;
    Check(Store::Open(ro, path, MPI_COMM_WORLD, &sv), "open revision " + std::to_string(r));
    int n = sv->writer_ranks();
    std::string where = "rev " + std::to_string(r);
    for (int ns = 0; ; ns++) {
      std::string text;
      bool have = ReadFile(model + "/" + std::to_string(r) + ".ns" + std::to_string(ns), &text);
      if (!have) {
        if (ns != n) Die(where + ": writer_ranks " + std::to_string(n) + " but model has " + std::to_string(ns));
        break;
      }
      if (ns % size != rank) continue;
      NsModel got = ReadNs(sv.get(), ns, rng, where + " ns " + std::to_string(ns));
      CompareNs(ParseNs(text), got, where + " ns " + std::to_string(ns));
    }
    std::string sh;
    if (rank == 0 && ReadFile(model + "/" + std::to_string(r) + ".shared", &sh)) {
      NsModel got = ReadNs(sv.get(), ReadOptions::kShared, rng, where + " shared");
      CompareNs(ParseNs(sh), got, where + " shared");
    }
    std::string at;
    if (ReadFile(model + "/" + std::to_string(r) + ".array", &at)) CheckArray(sv.get(), ParseArr(at), where);
    Check(sv->Close(), "close");
    checked++;
  }
  if (rank == 0) printf("verify ok: %d revisions checked (listed %zu, recorded %zu, newest %lu)\n", checked,
                        listed.size(), recorded.size(), (unsigned long)newest);
  return 0;
}

struct OpenStream {
  std::string key;
  std::unique_ptr<StreamWriter> w;
  std::string content;
  uint64_t pos = 0;
  TagList tags;
};

static int Write(const std::string& path, const std::string& model, uint64_t seed, int rounds,
                 uint64_t keep, uint64_t staging, uint64_t open_rev) {
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (const char* fs = getenv("COMBO_FSIZE")) {
    // A random file-size limit per run: data files stop growing somewhere.
    signal(SIGXFSZ, SIG_IGN);
    struct rlimit rl;
    getrlimit(RLIMIT_FSIZE, &rl);
    uint64_t cap = std::stoull(fs);
    std::mt19937_64 lr(seed);
    rl.rlim_cur = (rlim_t)(cap / 2 + lr() % (cap / 2));
    setrlimit(RLIMIT_FSIZE, &rl);
  }
  Options o = BaseOptions();
  o.keep_revisions = keep;
  o.staging_bytes = staging;
  o.revision = open_rev;
  std::unique_ptr<Store> st;
  Check(Store::Open(o, path, MPI_COMM_WORLD, &st), "open write");
  std::mt19937_64 rng(seed * 1000003 + rank);
  std::mt19937_64 grng(seed * 7919);  // same on every rank
  uint64_t r0 = st->revision();
  int n = st->writer_ranks();
  NsModel state, shared;
  ArrModel arr;
  if (r0 > 0) {
    if (rank < n) state = ReadNs(st.get(), rank, rng, "restart own ns");
    if (rank == 0) shared = ReadNs(st.get(), ReadOptions::kShared, rng, "restart shared");
    std::string text;
    if (Exists(model + "/" + std::to_string(r0) + ".done")) {
      if (ReadFile(model + "/" + std::to_string(r0) + ".ns" + std::to_string(rank), &text) && rank < n)
        CompareNs(ParseNs(text), state, "restart rev " + std::to_string(r0));
      if (rank == 0 && ReadFile(model + "/" + std::to_string(r0) + ".shared", &text))
        CompareNs(ParseNs(text), shared, "restart shared rev " + std::to_string(r0));
    }
    if (ReadFile(model + "/" + std::to_string(r0) + ".array", &text) &&
        Exists(model + "/" + std::to_string(r0) + ".done")) {
      arr = ParseArr(text);
      CheckArray(st.get(), arr, "restart");
    } else {
      ArrayInfo info;
      // Unrecorded revision: array must be re-put (we cannot model it).
      arr.present = st->GetArrayInfo("G", &info).ok();
      arr.gen = ~0ull;
    }
  }
  std::vector<OpenStream> streams;
  std::deque<std::unique_ptr<std::string>> zc_bufs, zc_prev;  // zero-copy buffers of the pending commits
  AsyncCommit pending;
  NsModel p_state, p_shared;
  ArrModel p_arr;
  bool have_pending = false;
  auto record = [&](uint64_t rev, const NsModel& s, const NsModel& sh, const ArrModel& a) {
    std::string base = model + "/" + std::to_string(rev);
    WriteFileSync(base + ".ns" + std::to_string(rank), SerializeNs(s));
    if (rank == 0) {
      WriteFileSync(model + "/keep", std::to_string(keep));
      WriteFileSync(base + ".shared", SerializeNs(sh));
      if (a.gen != ~0ull) WriteFileSync(base + ".array", SerializeArr(a));
    }
    SyncDir(model);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) { WriteFileSync(base + ".done", "ok\n"); SyncDir(model); }
  };
  auto finish_pending = [&]() {
    if (!have_pending) return;
    uint64_t rev = 0;
    Check(pending.Wait(&rev), "async wait");
    record(rev, p_state, p_shared, p_arr);
    have_pending = false;
    zc_prev.clear();
  };
  bool first_round = true;
  for (int round = 0; round < rounds; round++) {
    // --- local mutations ---
    int ops = 1 + rng() % 12;
    for (int i = 0; i < ops; i++) {
      int what = rng() % 10;
      std::string key = "k" + std::to_string(rng() % 30) + std::string(rng() % 3 == 0 ? 200 : 0, 'x');
      if (what <= 3) {
        size_t sz;
        switch (rng() % 5) {
          case 0: sz = 0; break;
          case 1: sz = rng() % 100; break;
          case 2: sz = 2000 + rng() % 100; break;
          case 3: sz = 4000 + rng() % 200; break;
          default: sz = rng() % 60000; break;
        }
        std::string v = Gen(rng(), sz);
        TagList t = {{"round", TagValue::Int(round, TagType::kInt32)}, {"r", TagValue::UInt(rank)}};
        if (rng() % 15 == 0) t.push_back({"huge", TagValue::String(Gen(rng(), 20000 + rng() % 60000))});
        if (rng() % 3 == 0) {
          zc_bufs.push_back(std::make_unique<std::string>(v));
          const std::string& b = *zc_bufs.back();
          Check(st->PutZeroCopy(key, b, t), "PutZeroCopy");
        } else {
          Check(st->Put(key, v, t), "Put");
        }
        state[key] = Obj{v.size(), Fnv(v.data(), v.size()), TagsHash(t)};
      } else if (what == 4) {
        Status s = st->Delete(key);
        if (state.count(key)) { Check(s, "Delete"); state.erase(key); }
        else if (!s.IsNotFound()) Die("Delete of absent key: " + s.ToString());
      } else if (what <= 6 && !state.empty()) {
        auto it = state.begin();
        std::advance(it, rng() % state.size());
        TagList t;
        Check(st->GetTags(it->first, &t), "GetTags own");
        if (TagsHash(t) != it->second.th) Die("GetTags own differs before edit " + it->first);
        if (rng() % 2) {
          Tag nt{"e" + std::to_string(rng() % 3), TagValue::Float64((double)rng())};
          Check(st->SetTag(it->first, nt), "SetTag");
          bool rep = false;
          for (auto& x : t) if (x.name == nt.name) { x = nt; rep = true; }
          if (!rep) t.push_back(nt);
        } else if (!t.empty()) {
          std::string name = t[rng() % t.size()].name;
          Check(st->DeleteTag(it->first, name), "DeleteTag");
          t.erase(std::remove_if(t.begin(), t.end(), [&](const Tag& x) { return x.name == name; }), t.end());
        }
        it->second.th = TagsHash(t);
      } else if (what == 8) {
        // put or delete a stream key, maybe while its stream is open
        std::string sk = "s" + std::to_string(rng() % 4);
        if (rng() % 3 == 0) {
          Status s = st->Delete(sk);
          if (state.count(sk)) { Check(s, "Delete stream key"); state.erase(sk); }
          else if (!s.IsNotFound()) Die("Delete of absent stream key: " + s.ToString());
        } else {
          std::string v = Gen(rng(), rng() % 6000);
          TagList t = {{"over", TagValue::Int(round)}};
          Check(st->Put(sk, v, t), "Put stream key");
          state[sk] = Obj{v.size(), Fnv(v.data(), v.size()), TagsHash(t)};
        }
      } else if (what == 7) {
        // streams
        if (streams.size() < 2 && rng() % 2) {
          OpenStream os;
          os.key = "s" + std::to_string(rng() % 4);
          bool dup = false;
          for (auto& x : streams) dup |= x.key == os.key;
          if (!dup) {
            os.tags = {{"stream", TagValue::String(os.key)}};
            Check(st->OpenWriteStream(os.key, os.tags, &os.w), "OpenWriteStream");
            streams.push_back(std::move(os));
          }
        }
      }
    }
    for (size_t i = 0; i < streams.size();) {
      OpenStream& os = streams[i];
      int w = rng() % 3;
      for (int j = 0; j < w; j++) {
        if (rng() % 4 == 0 && os.content.size() > 0) {
          os.pos = rng() % (os.content.size() + 100);
          Check(os.w->Seek(os.pos), "stream seek");
        }
        std::string d = Gen(rng(), rng() % 9000);
        Check(os.w->Write(d), "stream write");
        if (os.pos > os.content.size()) os.content.resize(os.pos, '\0');
        if (os.content.size() < os.pos + d.size()) os.content.resize(os.pos + d.size());
        memcpy(os.content.data() + os.pos, d.data(), d.size());
        os.pos += d.size();
        if (rng() % 5 == 0) Check(os.w->Flush(), "stream flush");
      }
      if (rng() % 4 == 0) {
        Check(os.w->Close(), "stream close");
        state[os.key] = Obj{os.content.size(), Fnv(os.content.data(), os.content.size()), TagsHash(os.tags)};
        streams.erase(streams.begin() + i);
      } else {
        i++;
      }
    }
    if (rank == 0 && rng() % 4 == 0) {
      std::string key = "sh" + std::to_string(rng() % 5);
      std::string v = Gen(rng(), rng() % 5000);
      TagList t = {{"shared", TagValue::Int(round)}};
      Check(st->PutShared(key, v, t), "PutShared");
      shared[key] = Obj{v.size(), Fnv(v.data(), v.size()), TagsHash(t)};
    }
    // --- array (same decision on every rank) ---
    int acase = grng() % 10;
    uint64_t agen = seed * 100000 + round * 10 + (grng() % 10);
    if (first_round && r0 > 0 && arr.present && acase >= 3) acase = 0;  // must re-put after restart
    if (acase < 3) {
      ArrModel a;
      a.present = true;
      a.gen = agen;
      a.m = size;
      a.none_rank = size > 1 ? (int)(agen % size) : -1;
      auto shape = ArrShape(agen);
      uint64_t rr0, nr;
      ArrRows(shape[0], size, rank, &rr0, &nr);
      if (rank != a.none_rank) {
        auto d = ArrData(agen, rr0, nr, shape[1]);
        ArrayPutOptions po;
        po.tags = {{"gen", TagValue::UInt(agen)}};
        po.checksum_grain = (agen % 3 == 0) ? 0 : 4096;
        Check(st->PutArray("G", ArrType(agen), shape, {rr0, 0}, {nr, shape[1]}, d.data(), po), "PutArray");
      }
      arr = a;
    } else if (acase == 3 && arr.present) {
      Status ds = st->DeleteArray("G");
      if (ds.IsNotFound() && have_pending) {
        // Known (reported): an array only in the commit in flight is NotFound; wait, retry.
        finish_pending();
        ds = st->DeleteArray("G");
      }
      Check(ds, "DeleteArray");
      arr = ArrModel();
    }
    first_round = false;
    // --- finish the commit in flight (puts above overlapped it) ---
    finish_pending();
    int cm = grng() % 10;
    if (cm == 9) Check(st->Flush(), "Flush");
    if (cm < 5) {
      uint64_t rev = 0;
      Check(st->Commit(&rev), "Commit");
      record(rev, state, shared, arr);
      zc_bufs.clear();
    } else {
      Check(st->CommitAsync(&pending), "CommitAsync");
      have_pending = true;
      p_state = state;
      p_shared = shared;
      p_arr = arr;
      // Zero-copy buffers must live until the commit finishes: keep them.
      for (auto& b : zc_bufs) zc_prev.push_back(std::move(b));
      zc_bufs.clear();
      if (grng() % 2) pending.Test();
    }
    // --- pins / drops (collective) ---
    int pc = grng() % 8;
    if (pc <= 2) {
      finish_pending();
      std::vector<RevisionInfo> revs;
      Check(st->ListRevisions(&revs), "ListRevisions");
      uint64_t pick = 0;
      if (!revs.empty()) pick = revs[grng() % revs.size()].revision;
      uint64_t pick0 = pick;
      MPI_Bcast(&pick0, 1, MPI_UINT64_T, 0, MPI_COMM_WORLD);
      if (pick0 != pick) Die("ListRevisions differs between ranks");
      if (pick) {
        bool is_pinned = false;
        for (auto& r : revs) if (r.revision == pick) is_pinned = r.pinned;
        if (pc == 0) {
          Check(st->Pin(pick), "Pin");
          if (rank == 0) {
            std::string ev; ReadFile(model + "/events", &ev);
            WriteFileSync(model + "/events", ev + "pin " + std::to_string(pick) + "\n");
          }
        } else if (getenv("COMBO_NO_UNPIN")) {
          // pins are forever: concurrent readers of pinned revisions must see them exactly
        } else if (pc == 1) {
          if (rank == 0) {
            std::string ev; ReadFile(model + "/events", &ev);
            WriteFileSync(model + "/events", ev + "unpin " + std::to_string(pick) + "\n");
          }
          MPI_Barrier(MPI_COMM_WORLD);
          Check(st->Unpin(pick), "Unpin");
        } else if (!is_pinned && pick != st->revision()) {
          if (rank == 0) {
            std::string ev; ReadFile(model + "/events", &ev);
            WriteFileSync(model + "/events", ev + "drop " + std::to_string(pick) + "\n");
          }
          MPI_Barrier(MPI_COMM_WORLD);
          Check(st->Drop(pick), "Drop");
        }
      }
    }
  }
  finish_pending();
  for (auto& os : streams) os.w.reset();  // closes (errors lost): joins no commit
  Check(st->Close(), "close");
  if (rank == 0) printf("write ok: %d rounds, revision %lu\n", rounds, (unsigned long)st->revision());
  return 0;
}

// Reads pinned recorded revisions while a writer runs (COMBO_NO_UNPIN on the
// writer: a pin is never removed), for `secs` seconds: every read must match.
static int PinRead(const std::string& path, const std::string& model, double secs) {
  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  std::mt19937_64 rng(rank + 17 * time(nullptr));
  double t0 = MPI_Wtime();
  int checked = 0, list_fail = 0;
  while (MPI_Wtime() - t0 < secs) {
    Options o = BaseOptions();
    o.read_only = true;
    o.create_if_missing = false;
    std::unique_ptr<Store> st;
    std::vector<RevisionInfo> revs;
    Status s = Store::Open(o, path, MPI_COMM_WORLD, &st);
    if (s.ok()) s = st->ListRevisions(&revs);
    int ok = s.ok(), all_ok = 0;
    MPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    if (st) st->Close();
    if (!all_ok) { list_fail++; continue; }
    std::vector<uint64_t> pins;
    for (auto& r : revs)
      if (r.pinned && Exists(model + "/" + std::to_string(r.revision) + ".done")) pins.push_back(r.revision);
    uint64_t pick = pins.empty() ? 0 : pins[rng() % pins.size()];
    MPI_Bcast(&pick, 1, MPI_UINT64_T, 0, MPI_COMM_WORLD);
    if (!pick) continue;
    o.revision = pick;
    std::unique_ptr<Store> sv;
    Check(Store::Open(o, path, MPI_COMM_WORLD, &sv), "pinread open pinned revision " + std::to_string(pick));
    int size;
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    std::string where = "pinned rev " + std::to_string(pick);
    for (int ns = rank; ns < sv->writer_ranks(); ns += size) {
      std::string text;
      if (!ReadFile(model + "/" + std::to_string(pick) + ".ns" + std::to_string(ns), &text)) Die(where + " model");
      CompareNs(ParseNs(text), ReadNs(sv.get(), ns, rng, where), where + " ns " + std::to_string(ns));
    }
    std::string at;
    if (ReadFile(model + "/" + std::to_string(pick) + ".array", &at)) CheckArray(sv.get(), ParseArr(at), where);
    sv->Close();
    checked++;
  }
  if (rank == 0) printf("pinread ok: %d pinned revision reads, %d list opens failed\n", checked, list_fail);
  return 0;
}

int main(int argc, char** argv) {
  int prov;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &prov);
  MPI_Comm_rank(MPI_COMM_WORLD, &g_rank);
  setvbuf(stdout, nullptr, _IOLBF, 0);
  int rc = 2;
  std::string mode = argc > 1 ? argv[1] : "";
  if (mode == "write" && argc >= 8) {
    rc = Write(argv[2], argv[3], std::stoull(argv[4]), std::stoi(argv[5]), std::stoull(argv[6]),
               std::stoull(argv[7]), argc > 8 ? std::stoull(argv[8]) : 0);
  } else if (mode == "pinread" && argc >= 5) {
    rc = PinRead(argv[2], argv[3], std::stod(argv[4]));
  } else if (mode == "verify" && argc >= 4) {
    rc = Verify(argv[2], argv[3]);
  } else {
    fprintf(stderr, "usage: combo write STORE MODEL SEED ROUNDS KEEP STAGING [REV] | verify STORE MODEL\n");
  }
  MPI_Finalize();
  return rc;
}
