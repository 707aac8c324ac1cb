// cairn, through its public C++ API (include/cairn/store.h), with its
// default Options unless told otherwise. One store per repetition
// (<rep>/store), opened collectively over MPI_COMM_WORLD; a checkpoint is one
// Put per object (key "c<ckpt>/<index>") and Commit(); the store stays open
// across the checkpoints of a process and the timed phase includes Open and
// Close. Reads open the store read-only (newest revision) and use MultiGet
// into the caller's memory (Store::ValueBuffer): the full read in batches
// of --read-batch bytes of values (default: one object) into one buffer
// made before the timed phase, the same memory bench_posix reads into (its
// one-object buffer; a larger buffer costs both systems cache misses in
// the kernel's copy, see bench/HISTORY.md); the sparse read in one batch (--read-mode=get reads one Get per object
// into a std::string instead; --read-mode=strings uses the MultiGet that
// returns std::strings). The bytes the MultiGets read and wanted are
// reported as lib_fetch_read_bytes and lib_fetch_wanted_bytes.
//
// Options for a tuned run, each reported under its own system name
// (--label=NAME gives "cairn-NAME"): --extent-size, --chunk-size,
// --write-buffer, --inline-limit, --subfiles, --sync=0|1, --writeback
// (Options::writeback_bytes; 0 turns early writeback off), --direct-read=N
// (sets CAIRN_DIRECT_READ_BYTES: requests of N bytes or more read past the
// page cache; doc/design.md "Direct reads").
//
// --distinct-sources=1 puts each object of a checkpoint from its own memory
// (--count buffers of --size bytes, made and touched before the timed
// phase, reported as "cairn-arrays" unless --label says otherwise), as an
// application checkpointing --count distinct arrays does; by default one
// buffer of --size bytes is stamped and put --count times, the suite's
// pattern for every system.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <memory>

#include "cairn/store.h"
#include "common.h"

namespace {

void CheckOk(const cairn::Status& s, const char* what) {
  if (!s.ok()) bench::Die("cairn %s: %s", what, s.ToString().c_str());
}

class Cairn : public bench::System {
 public:
  Cairn() {
    const auto& cfg = bench::Ctx().cfg;
    label_ = cfg.Get("label", "");
    if (cfg.GetU64("distinct-sources", 0) != 0) {
      if (label_.empty()) label_ = "arrays";
      sources_.assign(cfg.count, {});
      for (uint64_t i = 0; i < cfg.count; ++i)
        sources_[i] = bench::MakeFiller(cfg.size, bench::Ctx().rank + int(i));
    }
    name_ = label_.empty() ? "cairn" : "cairn-" + label_;
    options_.extent_size = cfg.GetU64("extent-size", options_.extent_size);
    options_.chunk_size = cfg.GetU64("chunk-size", options_.chunk_size);
    options_.write_buffer_size = cfg.GetU64("write-buffer", options_.write_buffer_size);
    options_.inline_value_limit = cfg.GetU64("inline-limit", options_.inline_value_limit);
    options_.subfiles = static_cast<int>(cfg.GetU64("subfiles", options_.subfiles));
    options_.sync = cfg.GetU64("sync", options_.sync ? 1 : 0) != 0;
    options_.writeback_bytes = cfg.GetU64("writeback", options_.writeback_bytes);
    if (std::string d = cfg.Get("direct-read", ""); !d.empty()) setenv("CAIRN_DIRECT_READ_BYTES", d.c_str(), 1);
    read_mode_ = cfg.Get("read-mode", "multiget");
    use_get_ = read_mode_ == "get";
    if (!use_get_ && read_mode_ != "strings" && read_mode_ != "multiget")
      bench::Die("--read-mode must be multiget, strings or get");
    batch_ = std::max<uint64_t>(1, cfg.GetU64("read-batch", cfg.size) / std::max<uint64_t>(1, cfg.size));
    // Room for a full-read batch, or for the sparse read's one batch.
    uint64_t sparse = uint64_t(double(cfg.count) * cfg.sparse_fraction) + 1;
    rbuf_.assign(std::min<uint64_t>(std::max(batch_, sparse), cfg.count) * cfg.size);
  }
  const char* name() const override { return name_.c_str(); }

  static std::string StorePath(const std::string& dir) { return dir + "/store"; }

  void OpenForWrite(const std::string& dir) override {
    cairn::Options o = options_;
    o.create_if_missing = true;
    CheckOk(cairn::Store::Open(o, StorePath(dir), bench::Ctx().comm, &store_), "open");
  }

  void Checkpoint(const std::string& dir, int ckpt) override {
    const auto& c = bench::Ctx();
    for (uint64_t i = 0; i < c.cfg.count; ++i) {
      char* src = sources_.empty() ? buf_.data() : sources_[i].data();
      bench::Stamp(src, c.cfg.size, c.rank, ckpt, i);
      CheckOk(store_->Put(bench::ObjectKey(ckpt, i), std::string_view(src, c.cfg.size)), "put");
    }
    CheckOk(store_->Commit(), "commit");
  }

  void CloseAfterWrite() override { Close(); }

  void OpenForRead(const std::string& dir, int ckpt) override {
    cairn::Options o = options_;
    o.read_only = true;
    o.create_if_missing = false;
    CheckOk(cairn::Store::Open(o, StorePath(dir), bench::Ctx().comm, &store_), "open read-only");
    multiget_requests_ = multiget_read_bytes_ = multiget_wanted_bytes_ = 0;
  }

  uint64_t ReadAll(const std::string& dir, int ckpt) override {
    const auto& cfg = bench::Ctx().cfg;
    uint64_t batch = use_get_ ? 1 : batch_;
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
    uint64_t bad = 0;
    if (use_get_) {
      for (uint64_t i : ids) bad += Fetch(ckpt, {i});
      return bad;
    }
    return Fetch(ckpt, ids);
  }

  void CloseAfterRead() override { Close(); }

  bench::Counters TakeCounters() override {
    bench::Counters c = counters_;
    counters_.clear();
    return c;
  }

 private:
  uint64_t Fetch(int ckpt, const std::vector<uint64_t>& ids) {
    const auto& c = bench::Ctx();
    cairn::IoStats before = store_->stats();
    uint64_t bad = 0;
    if (use_get_ && ids.size() == 1) {
      CheckOk(store_->Get(bench::ObjectKey(ckpt, ids[0]), &value_), "get");
      bad += value_.size() != c.cfg.size ||
             !bench::CheckStamp(value_.data(), c.cfg.size, c.rank, ckpt, ids[0]);
    } else if (read_mode_ == "strings") {
      std::vector<std::string> keys;
      keys.reserve(ids.size());
      for (uint64_t i : ids) keys.push_back(bench::ObjectKey(ckpt, i));
      std::vector<cairn::Status> st;
      CheckOk(store_->MultiGet(keys, &values_, &st), "multiget");
      for (size_t k = 0; k < ids.size(); ++k)
        bad += values_[k].size() != c.cfg.size ||
               !bench::CheckStamp(values_[k].data(), c.cfg.size, c.rank, ckpt, ids[k]);
    } else {
      // The key, buffer and status vectors of the last call are reused,
      // as a reader reading object by object would.
      std::vector<std::string>& keys = keys_;
      std::vector<cairn::Store::ValueBuffer>& bufs = bufs_;
      keys.resize(ids.size());
      bufs.resize(ids.size());
      for (size_t k = 0; k < ids.size(); ++k) {
        bench::ObjectKey(ckpt, ids[k], &keys[k]);
        bufs[k] = {rbuf_.data() + k * c.cfg.size, c.cfg.size, 0};
      }
      std::vector<cairn::Status>& st = statuses_;
      CheckOk(store_->MultiGet(keys, &bufs, &st), "multiget");
      for (size_t k = 0; k < ids.size(); ++k)
        bad += bufs[k].size != c.cfg.size ||
               !bench::CheckStamp(rbuf_.data() + k * c.cfg.size, c.cfg.size, c.rank, ckpt, ids[k]);
    }
    cairn::IoStats after = store_->stats();
    multiget_requests_ += after.read_requests - before.read_requests;
    multiget_read_bytes_ += after.read_bytes - before.read_bytes;
    multiget_wanted_bytes_ += ids.size() * c.cfg.size;
    return bad;
  }

  // Records this rank's I/O counters of the phase (cairn's own view of what
  // it did; strace gives the independent count) and closes the store.
  void Close() {
    cairn::IoStats s = store_->stats();
    counters_ = {
        {"lib_read_requests", double(s.read_requests)},
        {"lib_read_bytes", double(s.read_bytes)},
        {"lib_write_requests", double(s.write_requests)},
        {"lib_write_bytes", double(s.write_bytes)},
        {"lib_metadata_ops", double(s.metadata_ops())},
        {"lib_fetch_read_requests", double(multiget_requests_)},
        {"lib_fetch_read_bytes", double(multiget_read_bytes_)},
        {"lib_fetch_wanted_bytes", double(multiget_wanted_bytes_)},
    };
    CheckOk(store_->Close(), "close");
    store_.reset();
  }

  std::string label_, name_;
  cairn::Options options_;
  std::string read_mode_;
  bool use_get_ = false;
  uint64_t batch_ = 1;  // objects per MultiGet of the full read (64 MiB)
  // The reader's memory, made before the timed phase (bench_posix's rbuf_).
  bench::ReadBuffer rbuf_;
  std::vector<std::string> values_;
  std::vector<std::string> keys_;
  std::vector<cairn::Store::ValueBuffer> bufs_;
  std::vector<cairn::Status> statuses_;
  std::unique_ptr<cairn::Store> store_;
  // Filler made before the timed phase; stamped per object.
  std::vector<char> buf_ = bench::MakeFiller(bench::Ctx().cfg.size, bench::Ctx().rank);
  // --distinct-sources: one buffer per object (empty otherwise).
  std::vector<std::vector<char>> sources_;
  std::string value_;
  uint64_t multiget_requests_ = 0, multiget_read_bytes_ = 0, multiget_wanted_bytes_ = 0;
  bench::Counters counters_;
};

}  // namespace

int main(int argc, char** argv) {
  return bench::RunMain(argc, argv, [] { return static_cast<bench::System*>(new Cairn); });
}
