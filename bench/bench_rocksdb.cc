// RocksDB, one database per rank, in LSMIO's configuration (Bulut et al.,
// SC-W 2023; LSMIO's store_rdb): write-ahead log off, compression off, block
// cache off, automatic compactions off (compaction style "none"), a 32 MiB
// write buffer, info log at ERROR level. A checkpoint is one Put per object
// (key "c<ckpt>/<index>") followed by DB::Flush, LSMIO's write barrier, which
// writes the memtables to SST files and syncs them and the MANIFEST.
// The database stays open across the checkpoints of a process, as a running
// application keeps its LSMIO store open; the timed phase includes the open
// and the close. Reads open the database read-only and use MultiGet: the
// full read in batches of at most 64 MiB of values, the sparse read as one
// batch.
#include <rocksdb/db.h>
#include <rocksdb/options.h>
#include <rocksdb/table.h>

#include <cstdio>
#include <memory>

#include "common.h"

namespace {

void CheckOk(const rocksdb::Status& s, const char* what) {
  if (!s.ok()) bench::Die("rocksdb %s: %s", what, s.ToString().c_str());
}

class RocksDb : public bench::System {
 public:
  RocksDb() {
    const auto& cfg = bench::Ctx().cfg;
    options_.create_if_missing = true;
    options_.compression = rocksdb::kNoCompression;
    options_.write_buffer_size = cfg.GetU64("write-buffer", 32ull << 20);
    options_.disable_auto_compactions = true;
    options_.compaction_style = rocksdb::kCompactionStyleNone;
    options_.info_log_level = rocksdb::ERROR_LEVEL;
    rocksdb::BlockBasedTableOptions table;
    table.no_block_cache = true;
    options_.table_factory.reset(rocksdb::NewBlockBasedTableFactory(table));
    write_options_.disableWAL = true;
  }
  const char* name() const override { return "rocksdb"; }

  static std::string DbPath(const std::string& dir) {
    return dir + "/rocksdb.rank" + std::to_string(bench::Ctx().rank);
  }

  void OpenForWrite(const std::string& dir) override {
    rocksdb::DB* db = nullptr;
    CheckOk(rocksdb::DB::Open(options_, DbPath(dir), &db), "open");
    db_.reset(db);
  }

  void Checkpoint(const std::string& dir, int ckpt) override {
    const auto& c = bench::Ctx();
    for (uint64_t i = 0; i < c.cfg.count; ++i) {
      bench::Stamp(buf_.data(), c.cfg.size, c.rank, ckpt, i);
      CheckOk(db_->Put(write_options_, bench::ObjectKey(ckpt, i), rocksdb::Slice(buf_.data(), c.cfg.size)), "put");
    }
    rocksdb::FlushOptions fo;
    fo.wait = true;
    CheckOk(db_->Flush(fo), "flush");
  }

  void CloseAfterWrite() override {
    CheckOk(db_->Close(), "close");
    db_.reset();
  }

  void OpenForRead(const std::string& dir, int ckpt) override {
    rocksdb::DB* db = nullptr;
    CheckOk(rocksdb::DB::OpenForReadOnly(options_, DbPath(dir), &db), "open read-only");
    db_.reset(db);
  }

  uint64_t ReadAll(const std::string& dir, int ckpt) override {
    const auto& cfg = bench::Ctx().cfg;
    uint64_t batch = std::max<uint64_t>(1, (64ull << 20) / cfg.size);
    uint64_t bad = 0;
    std::vector<uint64_t> ids;
    for (uint64_t first = 0; first < cfg.count; first += batch) {
      ids.clear();
      for (uint64_t i = first; i < std::min(cfg.count, first + batch); ++i) ids.push_back(i);
      bad += Fetch(ckpt, ids);
    }
    return bad;
  }

  uint64_t ReadSome(const std::string& dir, int ckpt, const std::vector<uint64_t>& ids) override {
    return Fetch(ckpt, ids);
  }

  void CloseAfterRead() override {
    CheckOk(db_->Close(), "close");
    db_.reset();
  }

 private:
  uint64_t Fetch(int ckpt, const std::vector<uint64_t>& ids) {
    const auto& c = bench::Ctx();
    std::vector<std::string> keys;
    keys.reserve(ids.size());
    for (uint64_t i : ids) keys.push_back(bench::ObjectKey(ckpt, i));
    std::vector<rocksdb::Slice> slices(keys.begin(), keys.end());
    std::vector<rocksdb::PinnableSlice> values(ids.size());
    std::vector<rocksdb::Status> st(ids.size());
    db_->MultiGet(rocksdb::ReadOptions(), db_->DefaultColumnFamily(), ids.size(), slices.data(),
                  values.data(), st.data(), /*sorted_input=*/true);
    uint64_t bad = 0;
    for (size_t k = 0; k < ids.size(); ++k) {
      CheckOk(st[k], "multiget");
      bad += values[k].size() != c.cfg.size ||
             !bench::CheckStamp(values[k].data(), c.cfg.size, c.rank, ckpt, ids[k]);
    }
    return bad;
  }

  rocksdb::Options options_;
  rocksdb::WriteOptions write_options_;
  std::unique_ptr<rocksdb::DB> db_;
  // Filler made before the timed phase; stamped per object.
  std::vector<char> buf_ = bench::MakeFiller(bench::Ctx().cfg.size, bench::Ctx().rank);
};

}  // namespace

int main(int argc, char** argv) {
  return bench::RunMain(argc, argv, [] { return static_cast<bench::System*>(new RocksDb); });
}
