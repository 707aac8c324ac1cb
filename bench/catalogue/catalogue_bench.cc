// The tagged-object catalogue workload of a data service (PDC's metadata
// checkpoint): S ranks act as servers; together they hold O objects with T
// typed tags each (tag names shared by all objects). One phase per process,
// so that a restart really starts from disk:
//
//   catalogue_bench write   SYSTEM DIR O T   build the catalogue in memory
//                                            (untimed), then checkpoint it
//   catalogue_bench restart SYSTEM DIR O T   open (restart), read every tag
//                                            of every object and check it,
//                                            then checkpoint again
//
// An optional last argument TAGGED gives tags to the first TAGGED objects
// only (the others have none): PDC's own workload (kvtag_add_scale 100000
// 100) is O = 100000, T = 1, TAGGED = 100, i.e. 100 integer tags in total.
//
// With CATALOGUE_UPDATE=K in the environment (K > 0), the restart then
// times a small change: K objects spread over the catalogue each get a new
// value of their first tag, committed durably (an "update" phase): cairn
// with SetTag + Commit, RocksDB with one synced batch of the K tag keys.
// SQLite is not measured there (its table has no index on the object and
// tag name, so an update would be a scan, not what a tuned schema costs).
//
// SYSTEM: cairn | cairn-commit (the catalogue lives in the store, so a
// checkpoint is Commit alone) | sqlite | rocksdb. Prints one JSON line
// from rank 0 with the phase times, CPU seconds and page faults (each the
// max over ranks), peak RSS and bytes.
#include <mpi.h>
#include <sqlite3.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "cairn/store.h"

#ifdef CAIRN_BENCH_HAVE_ROCKSDB
#include <rocksdb/db.h>
#include <rocksdb/write_batch.h>
#endif

namespace {

int g_rank = 0, g_size = 1;

double Now() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}
// CPU seconds (user + system) and minor page faults of this process so far:
// with the wall time, what each phase costs on a shared machine.
struct Meter {
  double wall = 0, cpu = 0;
  long faults = 0;
};
Meter Mark() {
  rusage u;
  getrusage(RUSAGE_SELF, &u);
  Meter m;
  m.wall = Now();
  m.cpu = double(u.ru_utime.tv_sec + u.ru_stime.tv_sec) + 1e-6 * double(u.ru_utime.tv_usec + u.ru_stime.tv_usec);
  m.faults = u.ru_minflt + u.ru_majflt;
  return m;
}
// A phase's cost: the difference of two meters.
struct Phase {
  double wall = 0, cpu = 0;
  long faults = 0;
};
void Stop(Phase* p, const Meter& from) {
  Meter m = Mark();
  p->wall = m.wall - from.wall;
  p->cpu = m.cpu - from.cpu;
  p->faults = m.faults - from.faults;
}
double MaxOver(double v) {
  double out;
  MPI_Allreduce(&v, &out, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  return out;
}
[[noreturn]] void Die(const std::string& what) {
  std::fprintf(stderr, "rank %d: %s\n", g_rank, what.c_str());
  MPI_Abort(MPI_COMM_WORLD, 1);
  std::abort();
}

// Tag t of object o. Five kinds in turn: int64, double, string, uint32, int32.
enum Kind { kI64, kF64, kStr, kU32, kI32 };
Kind KindOf(int t) { return Kind(t % 5); }
std::string TagName(int t) {
  static const char* kinds[] = {"count", "value", "label", "flags", "level"};
  return std::string(kinds[t % 5]) + "_" + std::to_string(t);
}
int64_t IntOf(uint64_t o, int t) { return int64_t((o * 2654435761u) ^ (uint64_t(t) * 40503u)) % 1000003 - 500000; }
double FloatOf(uint64_t o, int t) { return double(o) * 0.5 + t * 0.25; }
std::string StrOf(uint64_t o, int t) { return "v" + std::to_string(o) + "_t" + std::to_string(t); }

cairn::TagValue ValueOf(uint64_t o, int t) {
  switch (KindOf(t)) {
    case kI64: return cairn::TagValue::Int(IntOf(o, t));
    case kF64: return cairn::TagValue::Float64(FloatOf(o, t));
    case kStr: return cairn::TagValue::String(StrOf(o, t));
    case kU32: return cairn::TagValue::UInt(uint64_t(IntOf(o, t) & 0xffffff), cairn::TagType::kUInt32);
    default: return cairn::TagValue::Int(IntOf(o, t) % 30000, cairn::TagType::kInt32);
  }
}

std::string ObjKey(uint64_t o) {
  char b[24];
  std::snprintf(b, sizeof b, "obj%010" PRIu64, o);
  return b;
}

// This rank's objects: a contiguous block of the global ids.
struct Range { uint64_t first, count; };
Range MyRange(uint64_t total) {
  uint64_t base = total / g_size, extra = total % g_size;
  uint64_t first = g_rank * base + std::min<uint64_t>(g_rank, extra);
  return {first, base + (uint64_t(g_rank) < extra ? 1 : 0)};
}

// The service's in-memory catalogue, built before anything is timed.
struct Object { std::string key; cairn::TagList tags; };
std::vector<Object> BuildCatalogue(Range r, int ntags, uint64_t tagged) {
  std::vector<Object> objs(r.count);
  for (uint64_t i = 0; i < r.count; i++) {
    uint64_t o = r.first + i;
    objs[i].key = ObjKey(o);
    if (o >= tagged) continue;  // an object without tags
    objs[i].tags.reserve(ntags);
    for (int t = 0; t < ntags; t++) objs[i].tags.push_back({TagName(t), ValueOf(o, t)});
  }
  return objs;
}

// Bytes the files occupy on the device (allocated blocks: holes in sparse
// files do not count).
uint64_t DirBytes(const std::string& dir) {
  uint64_t n = 0;
  std::error_code ec;
  for (auto& e : std::filesystem::recursive_directory_iterator(dir, ec)) {
    struct stat st;
    if (e.is_regular_file() && ::stat(e.path().c_str(), &st) == 0) n += uint64_t(st.st_blocks) * 512;
  }
  return n;
}

long PeakRssKiB() {
  rusage u;
  getrusage(RUSAGE_SELF, &u);
  return u.ru_maxrss;
}

// ------------------------------------------------------------------ cairn

std::unique_ptr<cairn::Store> OpenCairn(const std::string& dir) {
  std::unique_ptr<cairn::Store> s;
  cairn::Status st = cairn::Store::Open(cairn::Options(), dir, MPI_COMM_WORLD, &s);
  if (!st.ok()) Die(st.ToString());
  return s;
}
void CairnPutAll(cairn::Store* s, const std::vector<Object>& objs) {
  for (const auto& ob : objs) {
    cairn::Status st = s->Put(ob.key, "", ob.tags);
    if (!st.ok()) Die(st.ToString());
  }
}
void CairnCommit(cairn::Store* s) {
  cairn::Status st = s->Commit();
  if (!st.ok()) Die(st.ToString());
}
// The small change of the update phase: K objects spread evenly over the
// global catalogue (of `total`), those of this rank's range `r` by their
// index in it; only objects with tags (their first tag gets a new value).
std::vector<size_t> UpdatedObjects(const std::vector<Object>& objs, uint64_t first, uint64_t total, uint64_t k) {
  std::vector<size_t> out;
  if (k == 0 || total == 0) return out;
  k = std::min<uint64_t>(k, total);
  for (uint64_t i = 0; i < k; i++) {
    uint64_t o = i * total / k;  // a global object id
    if (o >= first && o < first + objs.size() && !objs[o - first].tags.empty()) out.push_back(size_t(o - first));
  }
  return out;
}
cairn::Tag UpdatedTag(const Object& ob) {
  cairn::Tag t = ob.tags.front();
  if (t.value.type() == cairn::TagType::kInt64) t.value = cairn::TagValue::Int(t.value.as_int() + 1);
  return t;
}
void CairnUpdate(cairn::Store* s, const std::vector<Object>& objs, const std::vector<size_t>& which) {
  for (size_t i : which) {
    cairn::Status st = s->SetTag(objs[i].key, UpdatedTag(objs[i]));
    if (!st.ok()) Die(st.ToString());
  }
  CairnCommit(s);
}
// Reads every object's tags back (as the service would, into its own
// structures) and compares them with the expected catalogue.
uint64_t CairnVerify(cairn::Store* s, const std::vector<Object>& want) {
  uint64_t checked = 0;
  cairn::TagList tags;
  for (const Object& ob : want) {
    cairn::Status st = s->GetTags(ob.key, &tags);
    if (!st.ok()) Die(st.ToString());
    if (!(tags == ob.tags)) Die("tag mismatch at " + ob.key);
    checked += tags.size();
  }
  return checked;
}

// ----------------------------------------------------------------- SQLite
// One table, a row per tag, a transaction per checkpoint; synchronous=FULL
// (durable, like cairn's commit), WAL journal.

void Sql(sqlite3* db, const char* q) {
  char* err = nullptr;
  if (sqlite3_exec(db, q, nullptr, nullptr, &err) != SQLITE_OK) Die(std::string("sqlite: ") + (err ? err : "?"));
}
sqlite3* OpenSqlite(const std::string& dir) {
  std::filesystem::create_directories(dir);
  sqlite3* db;
  std::string path = dir + "/rank" + std::to_string(g_rank) + ".sqlite";
  if (sqlite3_open(path.c_str(), &db) != SQLITE_OK) Die("sqlite open");
  Sql(db, "PRAGMA journal_mode=WAL; PRAGMA synchronous=FULL;");
  Sql(db, "CREATE TABLE IF NOT EXISTS tags (obj TEXT, name TEXT, type INTEGER, ival INTEGER, dval REAL, sval TEXT)");
  return db;
}
void SqliteCheckpoint(sqlite3* db, const std::vector<Object>& objs) {
  Sql(db, "BEGIN");
  Sql(db, "DELETE FROM tags");
  sqlite3_stmt* ins;
  sqlite3_prepare_v2(db, "INSERT INTO tags VALUES (?,?,?,?,?,?)", -1, &ins, nullptr);
  for (const auto& ob : objs) {
    for (const auto& t : ob.tags) {
      sqlite3_bind_text(ins, 1, ob.key.data(), int(ob.key.size()), SQLITE_STATIC);
      sqlite3_bind_text(ins, 2, t.name.data(), int(t.name.size()), SQLITE_STATIC);
      sqlite3_bind_int(ins, 3, t.value.type_code());
      if (t.value.is_float()) sqlite3_bind_double(ins, 5, t.value.as_double());
      else sqlite3_bind_null(ins, 5);
      if (t.value.is_signed()) sqlite3_bind_int64(ins, 4, t.value.as_int());
      else if (t.value.is_unsigned()) sqlite3_bind_int64(ins, 4, int64_t(t.value.as_uint()));
      else sqlite3_bind_null(ins, 4);
      if (t.value.type() == cairn::TagType::kString)
        sqlite3_bind_text(ins, 6, t.value.bytes().data(), int(t.value.bytes().size()), SQLITE_STATIC);
      else sqlite3_bind_null(ins, 6);
      if (sqlite3_step(ins) != SQLITE_DONE) Die("sqlite insert");
      sqlite3_reset(ins);
    }
  }
  sqlite3_finalize(ins);
  Sql(db, "COMMIT");
}
uint64_t SqliteVerify(sqlite3* db, const std::vector<Object>& want, std::vector<Object>* restored) {
  sqlite3_stmt* q;
  sqlite3_prepare_v2(db, "SELECT obj, name, type, ival, dval, sval FROM tags ORDER BY rowid", -1, &q, nullptr);
  restored->clear();
  restored->reserve(want.size());
  uint64_t checked = 0;
  while (sqlite3_step(q) == SQLITE_ROW) {
    std::string key(reinterpret_cast<const char*>(sqlite3_column_text(q, 0)));
    if (restored->empty() || restored->back().key != key) restored->push_back({key, {}});
    cairn::Tag tag;
    tag.name = reinterpret_cast<const char*>(sqlite3_column_text(q, 1));
    int type = sqlite3_column_int(q, 2);
    auto tt = cairn::TagType(type);
    if (tt == cairn::TagType::kFloat64) tag.value = cairn::TagValue::Float64(sqlite3_column_double(q, 4));
    else if (tt == cairn::TagType::kString)
      tag.value = cairn::TagValue::String(reinterpret_cast<const char*>(sqlite3_column_text(q, 5)));
    else if (tt >= cairn::TagType::kUInt8 && tt <= cairn::TagType::kUInt64)
      tag.value = cairn::TagValue::UInt(uint64_t(sqlite3_column_int64(q, 3)), tt);
    else tag.value = cairn::TagValue::Int(sqlite3_column_int64(q, 3), tt);
    restored->back().tags.push_back(std::move(tag));
  }
  sqlite3_finalize(q);
  if (restored->size() != want.size()) Die("sqlite: wrong object count");
  for (size_t i = 0; i < want.size(); i++) {
    const auto& ob = (*restored)[i];
    if (ob.key != want[i].key || !(ob.tags == want[i].tags)) Die("sqlite: object mismatch at " + ob.key);
    checked += ob.tags.size();
  }
  return checked;
}

// ---------------------------------------------------------------- RocksDB
// A key per tag (object key + tag name), value = type byte + payload;
// written in batches of 1,000 objects, then flushed to table files and the
// last batch synced, so the checkpoint is durable and a restart does not
// replay a write-ahead log (a 10-million-key single batch made open take
// 35 s replaying it).

#ifdef CAIRN_BENCH_HAVE_ROCKSDB
std::unique_ptr<rocksdb::DB> OpenRocks(const std::string& dir) {
  std::filesystem::create_directories(dir);
  rocksdb::Options o;
  o.create_if_missing = true;
  rocksdb::DB* db;
  rocksdb::Status s = rocksdb::DB::Open(o, dir + "/rank" + std::to_string(g_rank), &db);
  if (!s.ok()) Die("rocksdb: " + s.ToString());
  return std::unique_ptr<rocksdb::DB>(db);
}
std::string RocksValue(const cairn::TagValue& v) {
  std::string out(1, char(v.type_code()));
  if (v.is_float()) { double d = v.as_double(); out.append(reinterpret_cast<char*>(&d), 8); }
  else if (v.is_signed()) { int64_t i = v.as_int(); out.append(reinterpret_cast<char*>(&i), 8); }
  else if (v.is_unsigned()) { uint64_t u = v.as_uint(); out.append(reinterpret_cast<char*>(&u), 8); }
  else out += v.bytes();
  return out;
}
void RocksCheckpoint(rocksdb::DB* db, const std::vector<Object>& objs) {
  rocksdb::WriteBatch batch;
  rocksdb::WriteOptions wo;
  for (size_t i = 0; i < objs.size(); i++) {
    for (const auto& t : objs[i].tags) batch.Put(objs[i].key + "/" + t.name, RocksValue(t.value));
    if ((i + 1) % 1000 == 0 || i + 1 == objs.size()) {
      wo.sync = i + 1 == objs.size();
      rocksdb::Status s = db->Write(wo, &batch);
      if (!s.ok()) Die("rocksdb write: " + s.ToString());
      batch.Clear();
    }
  }
  rocksdb::Status s = db->Flush(rocksdb::FlushOptions());
  if (!s.ok()) Die("rocksdb flush: " + s.ToString());
}
// The update phase: the K changed tags in one batch, synced (the write-ahead
// log makes it durable; no flush, as a service would commit a small change).
void RocksUpdate(rocksdb::DB* db, const std::vector<Object>& objs, const std::vector<size_t>& which) {
  rocksdb::WriteBatch batch;
  for (size_t i : which) {
    cairn::Tag t = UpdatedTag(objs[i]);
    batch.Put(objs[i].key + "/" + t.name, RocksValue(t.value));
  }
  rocksdb::WriteOptions wo;
  wo.sync = true;
  rocksdb::Status s = db->Write(wo, &batch);
  if (!s.ok()) Die("rocksdb update: " + s.ToString());
}
// Reads every key back in order; a tag's value is compared with the
// expected one encoded the same way (keys sort as object, then tag name).
uint64_t RocksVerify(rocksdb::DB* db, const std::vector<Object>& want) {
  std::unique_ptr<rocksdb::Iterator> it(db->NewIterator(rocksdb::ReadOptions()));
  uint64_t n = 0;
  std::vector<std::pair<std::string, std::string>> expect;
  size_t oi = 0, ti = 0;
  for (it->SeekToFirst(); it->Valid(); it->Next()) {
    if (ti == expect.size()) {  // next object: its tags in key order
      if (oi == want.size()) Die("rocksdb: more keys than expected");
      expect.clear();
      for (const auto& t : want[oi].tags) expect.emplace_back(want[oi].key + "/" + t.name, RocksValue(t.value));
      std::sort(expect.begin(), expect.end());
      oi++;
      ti = 0;
    }
    if (it->key().ToString() != expect[ti].first || it->value().ToString() != expect[ti].second)
      Die("rocksdb: tag mismatch at " + it->key().ToString());
    ti++;
    n++;
  }
  if (oi != want.size() || ti != expect.size()) Die("rocksdb: fewer keys than expected");
  return n;
}
#endif

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &g_rank);
  MPI_Comm_size(MPI_COMM_WORLD, &g_size);
  if (argc != 6 && argc != 7) {
    if (g_rank == 0) std::fprintf(stderr, "usage: catalogue_bench write|restart SYSTEM DIR OBJECTS TAGS [TAGGED]\n");
    MPI_Finalize();
    return 2;
  }
  std::string phase = argv[1], sys = argv[2], dir = argv[3];
  uint64_t total = std::strtoull(argv[4], nullptr, 10);
  int ntags = std::atoi(argv[5]);
  uint64_t tagged = argc == 7 ? std::strtoull(argv[6], nullptr, 10) : total;
  Range r = MyRange(total);
  Phase ckpt, open, verify, ckpt2, upd;  // checkpoint, open, read all tags, checkpoint 2, update
  const char* upd_env = std::getenv("CATALOGUE_UPDATE");
  uint64_t update_k = upd_env ? std::strtoull(upd_env, nullptr, 10) : 0;
  if (update_k > 0 && phase == "restart" && sys == "sqlite") Die("CATALOGUE_UPDATE: not measured for sqlite");
  uint64_t checked = 0;
  // The service's state (write), or what a restart must find (restart):
  // built before anything is timed.
  std::vector<Object> objs = BuildCatalogue(r, ntags, tagged);
  // Spread over the global catalogue: this rank's share of the K objects.
  std::vector<size_t> updated =
      phase == "restart" ? UpdatedObjects(objs, r.first, total, update_k) : std::vector<size_t>();
  MPI_Barrier(MPI_COMM_WORLD);
  Meter t0 = Mark();

  if (sys == "cairn" || sys == "cairn-commit") {
    bool in_store = sys == "cairn-commit";  // the catalogue lives in the store
    if (phase == "write") {
      if (in_store) {  // building the in-store state is the service's own work
        auto s = OpenCairn(dir);
        CairnPutAll(s.get(), objs);
        MPI_Barrier(MPI_COMM_WORLD);
        t0 = Mark();
        CairnCommit(s.get());
        Stop(&ckpt, t0);
        s->Close();
      } else {
        auto s = OpenCairn(dir);
        CairnPutAll(s.get(), objs);
        CairnCommit(s.get());
        s->Close();
        Stop(&ckpt, t0);
      }
    } else {
      auto s = OpenCairn(dir);
      Stop(&open, t0);
      Meter t1 = Mark();
      checked = CairnVerify(s.get(), objs);
      Stop(&verify, t1);
      MPI_Barrier(MPI_COMM_WORLD);
      t1 = Mark();
      if (!in_store) CairnPutAll(s.get(), objs);  // a service keeping its own catalogue saves it all again
      CairnCommit(s.get());
      s->Close();
      Stop(&ckpt2, t1);
      if (update_k > 0) {  // reopened (untimed), then the change and its commit; the close untimed
        s = OpenCairn(dir);
        MPI_Barrier(MPI_COMM_WORLD);
        t1 = Mark();
        CairnUpdate(s.get(), objs, updated);
        Stop(&upd, t1);
        s->Close();
      }
    }
  } else if (sys == "sqlite") {
    if (phase == "write") {
      sqlite3* db = OpenSqlite(dir);
      SqliteCheckpoint(db, objs);
      sqlite3_close(db);
      Stop(&ckpt, t0);
    } else {
      sqlite3* db = OpenSqlite(dir);
      Stop(&open, t0);
      Meter t1 = Mark();
      std::vector<Object> restored;
      checked = SqliteVerify(db, objs, &restored);
      Stop(&verify, t1);
      MPI_Barrier(MPI_COMM_WORLD);
      t1 = Mark();
      SqliteCheckpoint(db, restored);
      sqlite3_close(db);
      Stop(&ckpt2, t1);
    }
  } else if (sys == "rocksdb") {
#ifdef CAIRN_BENCH_HAVE_ROCKSDB
    if (phase == "write") {
      auto db = OpenRocks(dir);
      RocksCheckpoint(db.get(), objs);
      db.reset();
      Stop(&ckpt, t0);
    } else {
      auto db = OpenRocks(dir);
      Stop(&open, t0);
      Meter t1 = Mark();
      checked = RocksVerify(db.get(), objs);
      Stop(&verify, t1);
      MPI_Barrier(MPI_COMM_WORLD);
      t1 = Mark();
      RocksCheckpoint(db.get(), objs);
      db.reset();
      Stop(&ckpt2, t1);
      if (update_k > 0) {  // reopened (untimed), then the synced batch; the close untimed
        db = OpenRocks(dir);
        MPI_Barrier(MPI_COMM_WORLD);
        t1 = Mark();
        RocksUpdate(db.get(), objs, updated);
        Stop(&upd, t1);
        db.reset();
      }
    }
#else
    Die("built without RocksDB");
#endif
  } else {
    Die("unknown system " + sys);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  Phase* phases[5] = {&ckpt, &open, &verify, &ckpt2, &upd};
  for (Phase* p : phases) {  // the slowest rank's of each
    p->wall = MaxOver(p->wall);
    p->cpu = MaxOver(p->cpu);
    p->faults = long(MaxOver(double(p->faults)));
  }
  long rss = PeakRssKiB(), max_rss;
  MPI_Reduce(&rss, &max_rss, 1, MPI_LONG, MPI_MAX, 0, MPI_COMM_WORLD);
  uint64_t all_checked = 0, my_updated = updated.size(), all_updated = 0;
  MPI_Reduce(&my_updated, &all_updated, 1, MPI_UINT64_T, MPI_SUM, 0, MPI_COMM_WORLD);
  MPI_Reduce(&checked, &all_checked, 1, MPI_UINT64_T, MPI_SUM, 0, MPI_COMM_WORLD);
  if (g_rank == 0) {
    std::printf("{\"phase\": \"%s\", \"system\": \"%s\", \"ranks\": %d, \"objects\": %" PRIu64 ", \"tags\": %d",
                phase.c_str(), sys.c_str(), g_size, total, ntags);
    const char* names[5] = {"checkpoint", "open", "verify", "checkpoint2", "update"};
    for (int i = 0; i < 5; i++)
      std::printf(", \"%s_s\": %.6f, \"%s_cpu_s\": %.6f, \"%s_faults\": %ld", names[i], phases[i]->wall,
                  names[i], phases[i]->cpu, names[i], phases[i]->faults);
    if (phase == "restart") std::printf(", \"updated_objects\": %" PRIu64, all_updated);
    std::printf(", \"tags_checked\": %" PRIu64 ", \"peak_rss_kib\": %ld, \"bytes\": %" PRIu64 "}\n", all_checked,
                max_rss, DirBytes(dir));
  }
  MPI_Finalize();
  return 0;
}
