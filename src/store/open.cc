// Store::Open: rank 0 reads the manifest and tells everyone what it found;
// the ranks agree on options and paths, open their data files and index
// tables (scattered by rank 0 when small), and the space of retained
// revisions is set up. This file holds the writable open and what both
// kinds of open share; rank 0's manifest step is open_manifest.cc, the
// read-only open open_read_only.cc (open_steps.h). The collective steps are
// described in doc/design.md ("Open (restart), step by step"); what they
// read in doc/format.md.
#include "cairn/store.h"

#include <sys/stat.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstring>

#include "array/array_meta.h"
#include "format/checksum.h"
#include "format/coding.h"
#include "format/subfile_header.h"
#include "io/fs_layout.h"
#include "io/coalescing_reader.h"
#include "store/crash_point.h"
#include "store/finalize_hook.h"
#include "store/open_steps.h"
#include "store/options_check.h"
#include "store/out_of_memory.h"
#include "store/retention.h"
#include "store/store_dir.h"
#include "store/store_rep.h"
#include "store/tag_edit.h"
#include "store/stream_hub.h"
#include "store/key_text.h"

namespace cairn {

namespace open_steps {

const char kNotOpened[] = "; the store was not opened";

Status SharedTable(Store::Rep* rep, const NamespaceDesc& d, std::string bytes,
                   std::shared_ptr<const IndexTable>* shared) {
  if (bytes.empty()) return rep->ReadTable(kSharedNamespace, d, shared);
  if (Checksum(bytes) != d.checksum)
    return Status::Corruption(rep->Where(kSharedNamespace) + ": index table checksum does not match the manifest");
  std::shared_ptr<IndexTable> t;
  Status s = ParseIndexTable(std::move(bytes), rep->Where(kSharedNamespace) + " index", &t, true);
  if (s.ok() && t->ns != kSharedNamespace)
    s = Status::Corruption(rep->Where(kSharedNamespace) + ": index table belongs to another namespace");
  *shared = t;
  return s;
}

Status AgreeOpen(Comm* c, const Options& o, const std::string& path, const std::string& root_opts,
                 bool differs, const Status& local, const Status& found, const Status& late,
                 const Status& refused) {
  int size = c->size(), rank = c->rank();
  uint64_t v[4] = {differs ? 1u : 0u, local.ok() ? 0u : uint64_t(size - rank),
                   late.ok() ? 0u : uint64_t(size - rank), refused.ok() ? 0u : uint64_t(size - rank)};
  c->IallreduceMax(v, 4)->Wait();  // max of size - rank: the lowest rank
  if (v[3] != 0) return StatusOfRank(c, size - int(v[3]), refused);
  if (v[0] != 0) return ExplainOptionDifference(c, o, path, root_opts);
  if (v[1] != 0) return StatusOfRank(c, size - int(v[1]), local);
  if (!found.ok()) return found;
  if (v[2] != 0) return StatusOfRank(c, size - int(v[2]), late);
  return Status::OK();
}

void AdoptSentSharedTable(Store::Rep* rep, std::string sb) {
  try {
    const NamespaceDesc& d = rep->current.shared();
    std::shared_ptr<IndexTable> t;
    if (!sb.empty() && Checksum(sb) == d.checksum &&
        ParseIndexTable(std::move(sb), rep->Where(kSharedNamespace) + " index", &t).ok() &&
        t->ns == kSharedNamespace)
      rep->tables[kSharedNamespace] = t;  // (rep->shared, the pending puts, stays rank 0's)
  } catch (const std::bad_alloc&) {
  } catch (const std::length_error&) {
  }
}

// Rank 0's read at open of the index tables it sends: those of namespaces
// [0, readers) within `limit`, end to end in parts->bytes where they are
// read (sent from there: no second copy to lay them end to end), and the
// shared table into *shared_bytes if `shared` and it is within `limit`.
Status ReadSentTables(Store::Rep* rep, const RevisionRecord& rec, uint32_t readers, uint64_t limit, bool shared,
                      ScatterParts* parts, std::string* shared_bytes) {
  parts->sizes.assign(size_t(rep->comm->size()), 0);
  uint64_t total = 0;
  for (uint32_t r = 0; r < readers; r++)
    if (Scattered(rec.namespaces[r], limit)) total += parts->sizes[r] = rec.namespaces[r].length;
  parts->bytes.resize(total);
  std::vector<ReadRange> ranges;
  uint64_t at = 0;
  for (uint32_t r = 0; r < readers; r++) {
    const NamespaceDesc& d = rec.namespaces[r];
    if (parts->sizes[r] == 0) continue;
    ranges.push_back(ReadRange{d.subfile, d.offset, d.length, parts->bytes.data() + at});
    at += d.length;
  }
  if (shared && Scattered(rec.shared(), limit)) {
    const NamespaceDesc& d = rec.shared();
    shared_bytes->resize(d.length);
    ranges.push_back(ReadRange{d.subfile, d.offset, d.length, shared_bytes->data()});
  }
  return ReadCoalesced(ranges, ReadPlanLimits(), [&](uint32_t id, File** f) { return rep->DataFile(id, f); });
}

// This rank's table at open (namespace `rank` of the opened revision):
// parsed from `bytes` rank 0 sent (`sent`), else read from the file. Out
// of memory is this rank's error, agreed by the caller.
Status OwnTableAtOpen(Store::Rep* rep, std::string bytes, bool sent, std::shared_ptr<const IndexTable>* mine) {
  return UnlessOutOfMemoryThen("open of", rep->path, kNotOpened, [&] {
    uint32_t rank = uint32_t(rep->comm->rank());
    const NamespaceDesc& d = rep->current.namespaces[rank];
    if (!sent) return rep->ReadTable(rank, d, mine);
    std::shared_ptr<IndexTable> t;
    if (Checksum(bytes) != d.checksum)
      return Status::Corruption(rep->Where(rank) + ": index table checksum does not match the manifest");
    Status s = ParseIndexTable(std::move(bytes), rep->Where(rank) + " index", &t, true);
    if (s.ok() && t->ns != rank)
      s = Status::Corruption(rep->Where(rank) + ": index table belongs to namespace " + std::to_string(t->ns));
    *mine = t;
    return s;
  });
}

}  // namespace open_steps

using namespace open_steps;

namespace {

uint64_t RoundUp(uint64_t v, uint64_t a) { return (v + a - 1) / a * a; }

}  // namespace

// `refused` (not OK): this rank's own arguments were refused before the
// open (Store::RefuseOpen); it takes part and every rank fails with it.
static Status OpenWith(const Options& options, const std::string& path, std::unique_ptr<Comm> comm,
                       std::unique_ptr<Store::Rep>* out, const Status& refused = Status::OK()) {
  auto rep = std::make_unique<Store::Rep>();
  rep->opt = options;
  rep->path = path;
  rep->comm = std::move(comm);
  Comm* c = rep->comm.get();
  int rank = c->rank(), nranks = c->size();

  // 0. Rank 0's first message: its path and collective options, whether it
  //    opens read-only, and for a read-only open what it found (manifest,
  //    and every rank's small index table: StartReadOnlyOpen). Every rank
  //    follows rank 0's kind of open, compares the options with its own
  //    and checks its own (the per-rank tuning options may differ); one
  //    agreement covers all of it (AgreeOpen). A read-only open makes four
  //    collective steps (the communicator's duplication, this broadcast, a
  //    scatter, the agreement) where it made fifteen at two ranks: each
  //    costs a scheduling round trip when ranks share cores (bench/HISTORY.md,
  //    "Small values").
  Status local = ValidateOptions(options);
  if (local.ok()) local = DirectReadBytesFromEnv(&rep->direct_read_bytes);
  if (path.empty()) local = Status::InvalidArgument("empty store path");
  if (!refused.ok()) local = refused;
  const std::string my_opts = nranks > 1 ? EncodeCollectiveOptions(options, path) : std::string();
  std::string hello;
  ScatterParts parts;
  Status rank0_tables;
  std::shared_ptr<const IndexTable> rank0_shared;
  if (rank == 0) {
    PutLengthPrefixed(&hello, my_opts);
    hello.push_back(options.read_only ? 1 : 0);
    if (options.read_only) StartReadOnlyOpen(rep.get(), local, &hello, &parts, &rank0_tables, &rank0_shared);
  }
  c->Bcast(&hello, 0);
  Decoder hd(hello);
  const std::string root_opts(hd.LengthPrefixed());
  const bool read_only_open = hd.U8() != 0;
  const bool differs = root_opts != my_opts;
  if (read_only_open) {
    Status s = FinishReadOnlyOpen(rep.get(), &hello, &hd, root_opts, differs, local, &parts, rank0_tables,
                                  std::move(rank0_shared), refused);
    if (s.ok()) *out = std::move(rep);
    return s;
  }

  // 1. A writable open: every rank's options are valid and the same, then
  //    rank 0 reads the manifest and tells everyone what it found.
  Status s = AgreeOpen(c, options, path, root_opts, differs, local, Status::OK(), Status::OK(), refused);
  if (!s.ok()) return s;
  OpenInfo info;
  if (rank == 0) {
    Status read = UnlessOutOfMemoryThen("open of", path, kNotOpened, [&] {
      info = OpenManifest(rep.get());
      return Status::OK();
    });
    if (!read.ok()) {
      info = OpenInfo();
      info.status = read;
    }
    // subfiles 0: the layout suits the file system; rank 0 asks statfs
    // once per writable open (the directory exists by now).
    if (info.status.ok() && !options.read_only && options.subfiles == 0)
      info.per_rank = DefaultLayout(path, &rep->stats) == FileLayout::kPerRank;
  }
  std::string bytes;
  if (rank == 0) bytes = EncodeOpenInfo(info);
  c->Bcast(&bytes, 0);
  if (rank != 0) info = DecodeOpenInfo(bytes);
  if (!info.status.ok()) return info.status;
  rep->store_id = info.store_id;
  rep->newest_revision = info.newest_revision;
  rep->newest_high_water = info.newest_high_water;
  rep->revisions = info.revisions;
  if (!info.record.empty()) {
    s = DecodeRevisionPayload(info.record, &rep->current);
    if (!s.ok()) return s;
  }

  // This rank's index table as rank 0 will send it (step 3), when it is
  // small enough to be sent: room for it is taken before (step 2), so that
  // a rank that cannot hold it fails in an agreement, not in the scatter.
  std::string my_bytes;
  const RevisionRecord& rec = rep->current;
  const uint32_t readers = std::min<uint32_t>(rec.nranks, uint32_t(nranks));
  const uint64_t scatter_limit = std::min<uint64_t>(options.compact_index_limit, (1ull << 30) / uint64_t(nranks));
  auto sent = [&](const NamespaceDesc& d) { return d.length != 0 && d.length <= scatter_limit; };

  // 2. Writable: each rank opens its data file and joins its file's counter.
  if (!options.read_only) {
    bool per_rank = options.subfiles == 0 && info.per_rank;
    if (per_rank) {
      rep->my_subfile = uint32_t(rank);
    } else if (options.subfiles == 0) {
      auto node = c->SplitNode();
      // Node number = number of distinct node leaders below mine.
      uint64_t leader = uint64_t(rank);
      std::string lb(reinterpret_cast<char*>(&leader), 8);
      node->Bcast(&lb, 0);
      std::memcpy(&leader, lb.data(), 8);
      std::vector<std::string> leaders;
      std::string all;
      c->Gather(lb, &leaders, 0);
      if (rank == 0) {
        std::vector<uint64_t> ids;
        for (auto& l : leaders) { uint64_t v; std::memcpy(&v, l.data(), 8); ids.push_back(v); }
        std::vector<uint64_t> uniq = ids;
        std::sort(uniq.begin(), uniq.end());
        uniq.erase(std::unique(uniq.begin(), uniq.end()), uniq.end());
        ScatterParts parts{std::string(), std::vector<uint64_t>(size_t(nranks), 4)};
        for (int i = 0; i < nranks; i++) {
          uint32_t sub = uint32_t(std::lower_bound(uniq.begin(), uniq.end(), ids[i]) - uniq.begin());
          parts.bytes.append(reinterpret_cast<char*>(&sub), 4);
        }
        c->Scatter(parts, &all, 0);
      } else {
        c->Scatter({}, &all, 0);
      }
      std::memcpy(&rep->my_subfile, all.data(), 4);
    } else {
      int k = std::min(options.subfiles, nranks);
      rep->my_subfile = uint32_t(int64_t(rank) * k / nranks);
    }
    // A file per rank (the same on every rank): no sub-communicator and no
    // shared extent counter; each rank counts its own file's extents. The
    // MPI communicator split and window they would need cost 0.1-0.25 s of
    // a process's first open on this machine (doc/design.md).
    bool alone = per_rank || options.subfiles >= nranks;
    rep->sub_comm = alone ? NewSelfComm() : c->Split(int(rep->my_subfile), rank);
    rep->subfile_on_one_node = alone || rep->sub_comm->SplitNode()->size() == rep->sub_comm->size();
    // Test hook: CAIRN_TEST_SUBFILE_ACROSS_NODES=1 takes the ranks of a
    // shared data file for ranks of different nodes, so that each fsyncs
    // the file itself (the commit's path, synchronous and asynchronous, for
    // a file spread across nodes, which one machine never takes otherwise;
    // power_loss_test.py --across-nodes).
    if (const char* e = std::getenv("CAIRN_TEST_SUBFILE_ACROSS_NODES"); e && std::strcmp(e, "1") == 0 && !alone)
      rep->subfile_on_one_node = false;
    bool leader = rep->sub_comm->rank() == 0;
    bool made_file = false;
    std::string fpath = path + "/" + DataFileName(rep->my_subfile);
    // The leader creates the file and its header; the others open it after.
    if (leader) {
      bool created = false;
      // A file the newest revision allocated data in must be there: a
      // missing one is damage, reported, not replaced by an empty file
      // (which would leave the store claiming data that is gone, and make
      // `cairn verify` say "truncated" instead of "missing").
      // Such a file is opened without O_CREAT; only a failed open asks why.
      const bool must_exist = rep->my_subfile < rep->newest_high_water.size() &&
                              rep->newest_high_water[rep->my_subfile] > 0;
      s = File::Open(fpath, must_exist ? File::kReadWrite : File::kCreate, &rep->stats, &rep->my_file, &created);
      struct stat fst;
      if (!s.ok() && must_exist && ::stat(fpath.c_str(), &fst) != 0 && errno == ENOENT)
        s = Status::Corruption(fpath + " is missing, yet the store allocated data in it (up to byte " +
                               std::to_string(rep->newest_high_water[rep->my_subfile]) + ", as of revision " +
                               std::to_string(rep->newest_revision) +
                               "): the store is damaged (restore the file; a read-only open reads what is left)");
      uint64_t size = 0;
      if (s.ok()) s = rep->my_file->Size(&size);
      // Nor is a header written over a file cut below it.
      if (s.ok() && must_exist && size < kSubfileHeaderSize)
        s = Status::Corruption(fpath + " is cut to " + std::to_string(size) + " bytes, below its " +
                               std::to_string(kSubfileHeaderSize) + "-byte header, yet the store allocated data in it "
                               "(up to byte " + std::to_string(rep->newest_high_water[rep->my_subfile]) +
                               "): the store is damaged");
      // With no committed revision nothing refers to any data file, so a
      // header left by an earlier, never-committed creation is rewritten.
      bool fresh = rep->newest_revision == 0;
      if (s.ok() && (size < kSubfileHeaderSize || fresh)) {
        SubfileHeader h;
        h.subfile_id = rep->my_subfile;
        h.store_id = rep->store_id;
        std::string hb = EncodeSubfileHeader(h);
        // Durable with the first commit that uses this file: its fsync
        // covers the header, and rank 0 syncs the directory before the
        // manifest record (a crash before: no revision refers to it).
        s = rep->my_file->PWrite(0, hb.data(), hb.size());
        made_file = true;
      } else if (s.ok()) {
        std::string hb(kSubfileHeaderSize, '\0');
        SubfileHeader h;
        s = rep->my_file->PRead(0, hb.data(), hb.size());
        if (s.ok()) s = DecodeSubfileHeader(hb, &h);
        if (s.ok() && (h.store_id != rep->store_id || h.subfile_id != rep->my_subfile))
          s = Status::Corruption(fpath + " belongs to another store or file id");
        if (!s.ok()) s = s.WithContext(fpath);
      }
    }
    rep->sub_comm->Barrier();
    if (!leader) s = File::Open(fpath, File::kReadWrite, &rep->stats, &rep->my_file);
    // One reduction: the lowest failing rank (size - rank), as AgreeStatus
    // gives it, and whether any rank made its file.
    uint64_t agreed[2] = {s.ok() ? 0u : uint64_t(nranks - rank), made_file ? 1u : 0u};
    c->IallreduceMax(agreed, 2)->Wait();
    if (agreed[0] != 0) return StatusOfRank(c, nranks - int(agreed[0]), s);
    if (agreed[1] != 0) rep->sync_store_dir = true;
    uint64_t floor = kSubfileHeaderReserve;
    if (rep->my_subfile < rep->newest_high_water.size())
      floor = std::max(floor, rep->newest_high_water[rep->my_subfile]);
    ExtentAllocator alloc;
    if (alone) {
      auto next = std::make_shared<uint64_t>(RoundUp(floor, options.extent_size));
      alloc = [next](uint64_t n, uint64_t* off) {
        *off = *next;
        *next += n;
        return Status::OK();
      };
    } else {
      // The file's leader hosts its extent counter; everyone learns the
      // leader's rank in the store's communicator.
      std::string lr(reinterpret_cast<const char*>(&rank), sizeof rank);
      rep->sub_comm->Bcast(&lr, 0);
      int leader_rank;
      std::memcpy(&leader_rank, lr.data(), sizeof leader_rank);
      s = c->CreateCounters(leader, RoundUp(floor, options.extent_size));
      s = AgreeStatus(c, s);
      if (!s.ok()) return s;
      Comm* wc = c;
      alloc = [wc, leader_rank](uint64_t n, uint64_t* off) { return wc->FetchAdd(leader_rank, n, off); };
    }
    rep->writer = std::make_unique<Writer>(
        rep->my_file.get(), rep->my_subfile, std::move(alloc),
        options.write_buffer_size, options.extent_size, options.chunk_size,
        options.staging_bytes > 0 ? rep->Io() : nullptr);
    if (options.staging_bytes > 0) rep->Io()->Prefault(options.write_buffer_size);
    rep->writer->SetWritebackBytes(options.writeback_bytes);
    // Extents no retained revision needs are reused before the file grows.
    Status room = UnlessOutOfMemoryThen("open of", path, kNotOpened, [&] {
      if (rec.revision != 0 && uint32_t(rank) < readers && sent(rec.namespaces[rank]))
        my_bytes.reserve(rec.namespaces[rank].length);
      return Status::OK();
    });
    Status space = InitSpaceAtOpen(rep.get());  // (collective; guards its own steps)
    s = AgreeStatus(c, room.ok() ? space : room);
    if (!s.ok()) return s;
  }

  // 3. Index tables of the opened revision. Rank 0 reads the small ones
  //    (they lie together) in one coalesced request and scatters them; a
  //    rank whose table is large reads its own. A read-only open reads the
  //    shared namespace's table only when it is compact (it comes with rank
  //    0's block, no request of its own, and is broadcast below), and
  //    leaves a larger one, like every other rank's, to its first use
  //    (Rep::Table): a restart reading its own objects reads, hashes and
  //    parses only its own table. A damaged table it never reads does not
  //    fail a read-only open.
  // A writable open needs the shared base (rank 0 commits into it).
  const bool eager_shared =
      !options.read_only || (rec.revision != 0 && rec.shared().length <= options.compact_index_limit);
  std::shared_ptr<const IndexTable> mine, shared;
  if (rec.revision != 0) {
    Status rs;
    if (rank == 0) {
      ScatterParts parts;
      std::string shared_bytes;
      // Out of memory for the tables: the open fails (agreed below), and
      // the others still get their (empty) parts.
      // Tables reused from older revisions (commit_tables.h) lie apart
      // from the newest block: the planner reads through a gap only while
      // a block stays within max_amplification (2x) of the table bytes it
      // wants, so the open reads at most about twice their bytes, however
      // far back an unchanged table lies (history_test).
      rs = UnlessOutOfMemoryThen("open of", path, kNotOpened, [&] {
        return ReadSentTables(rep.get(), rec, readers, scatter_limit, eager_shared, &parts, &shared_bytes);
      });
      if (!rs.ok()) {
        parts = ScatterParts{std::string(), std::vector<uint64_t>(size_t(nranks), 0)};
        shared_bytes = std::string();
      }
      c->Scatter(parts, &my_bytes, 0);
      // The shared table: compact ones came with the block, else read it.
      if (rs.ok() && eager_shared && rec.shared().length > 0) {
        const NamespaceDesc& d = rec.shared();
        Status ss = UnlessOutOfMemoryThen("open of", path, kNotOpened,
                                          [&] { return SharedTable(rep.get(), d, std::move(shared_bytes), &shared); });
        // A read-only open leaves a damaged shared table to its first use,
        // which reports it (lazy_open_test); a writable one fails.
        if (!ss.ok()) {
          shared.reset();
          if (!options.read_only) rs = ss;
        }
      }
    } else {
      c->Scatter({}, &my_bytes, 0);
    }
    const bool sent = !my_bytes.empty();
    if (rs.ok() && uint32_t(rank) < readers) rs = OwnTableAtOpen(rep.get(), std::move(my_bytes), sent, &mine);
    s = AgreeStatus(c, rs);
    if (!s.ok()) return s;
    // The shared table (global arrays' descriptors, shared objects) is
    // needed by every rank that reads an array: rank 0 broadcasts the copy
    // it read and checked, instead of every rank reading the same bytes
    // from rank 0's data file at its first GetArray (N opens and N reads
    // of one table at a restart: doc/scale.md). Above the limit each rank
    // still reads it on demand.
    // A read-only open broadcasts it only when it read it (eager_shared:
    // compact), and rank 0 sends nothing if it found it damaged.
    const uint64_t kBroadcastSharedLimit = 64ull << 20;
    if (nranks > 1 && eager_shared && rec.shared().length > 0 && rec.shared().length <= kBroadcastSharedLimit) {
      // A rank that cannot hold it takes the broadcast without it
      // (Comm::Bcast) and reads the table when it needs it; so does every
      // rank if rank 0 cannot copy it (it sends nothing).
      std::string sb;
      try {
        if (rank == 0 && shared) sb = std::string(shared->bytes);
      } catch (const std::bad_alloc&) {
      }
      try {
        c->Bcast(&sb, 0, "shared_table");
      } catch (const std::bad_alloc&) {
      }
      // Rank 0 checked these bytes; a failure here (memory damage, or out
      // of memory) leaves the table to be read from the file on demand.
      if (rank != 0) AdoptSentSharedTable(rep.get(), std::move(sb));
    }
    if (mine) rep->tables[uint32_t(rank)] = mine;
    if (shared) rep->tables[kSharedNamespace] = shared;
  }
  rep->own.Reset(mine);
  rep->shared.Reset(shared);
  *out = std::move(rep);
  return Status::OK();
}

// Why `comm` cannot carry a collective open (OK if it can): MPI not
// initialized, MPI_COMM_NULL, an inter-communicator.
static Status CheckOpenComm(MPI_Comm comm, const std::string& path) {
  int init = 0;
  MPI_Initialized(&init);
  if (!init) return Status::InvalidArgument("MPI is not initialized (use the single-process Open)");
  if (comm == MPI_COMM_NULL)
    return Status::InvalidArgument("Store::Open of " + path + ": the communicator is MPI_COMM_NULL (what "
                                   "MPI_Comm_split gives a rank it leaves out); this rank cannot open the store: "
                                   "pass a communicator it belongs to");
  // An inter-communicator's collectives go from one group to the other: the
  // store's broadcasts would wait for ever (found by the outside pass breaker4).
  int inter = 0;
  MPI_Comm_test_inter(comm, &inter);
  if (inter)
    return Status::InvalidArgument("Store::Open of " + path + ": the communicator is an inter-communicator "
                                   "(two groups); a store is opened over an intra-communicator: "
                                   "MPI_Intercomm_merge gives one");
  return Status::OK();
}

Status Store::Open(const Options& options, const std::string& path, MPI_Comm comm,
                   std::unique_ptr<Store>* store) {
  store->reset();
  Status s = CheckOpenComm(comm, path);
  if (!s.ok()) return s;
  std::unique_ptr<Rep> rep;
  // Each collective step of the open agrees a rank's lack of memory; what
  // is left to throw is this rank's own bookkeeping.
  s = UnlessOutOfMemoryThen("open of", path, kNotOpened, [&] {
    Status os = OpenWith(options, path, NewMpiComm(comm, options.collective_timeout_s), &rep);
    if (os.ok()) store->reset(new Store(std::move(rep)));
    return os;
  });
  if (s.ok()) RegisterOpenStore(store->get());
  return s;
}

Status Store::RefuseOpen(const std::string& path, MPI_Comm comm, const Status& why,
                         double collective_timeout_s) {
  const Status refused = why.ok() || why.message().empty()
                             ? Status::InvalidArgument("an open refused without a cause") : why;
  if (!CheckOpenComm(comm, path).ok()) return refused;  // no collective to take part in
  std::unique_ptr<Store::Rep> rep;
  const double timeout = collective_timeout_s > 0 ? collective_timeout_s : 0;  // NaN too
  Status s = UnlessOutOfMemoryThen("open of", path, kNotOpened,
                                   [&] { return OpenWith(Options(), path, NewMpiComm(comm, timeout), &rep, refused); });
  if (s.ok()) s = Status::Aborted("a refused open succeeded");  // cannot happen: `refused` is agreed
  return s;
}

Status Store::Open(const Options& options, const std::string& path, std::unique_ptr<Store>* store) {
  store->reset();
  std::unique_ptr<Rep> rep;
  Status s = UnlessOutOfMemoryThen("open of", path, kNotOpened, [&] {
    Status os = OpenWith(options, path, NewSelfComm(), &rep);
    if (os.ok()) store->reset(new Store(std::move(rep)));
    return os;
  });
  return s;
}

}  // namespace cairn
