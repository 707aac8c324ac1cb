// The read-only open (Store::Open with Options::read_only): rank 0 reads
// the manifest and every rank's small index table in one request and sends
// them in its first message and one scatter; then one agreement. See
// open_steps.h and doc/design.md ("Open (restart), step by step").
#include <algorithm>

#include "format/checksum.h"
#include "io/coalescing_reader.h"
#include "store/open_steps.h"
#include "store/out_of_memory.h"

namespace cairn::open_steps {

namespace {

// Index tables rank 0 reads for every rank at a read-only open: those of at
// most this many bytes (compact_index_limit, and 1 GiB over all ranks).
uint64_t ScatterLimit(const Options& o, int nranks) {
  return std::min<uint64_t>(o.compact_index_limit, (1ull << 30) / uint64_t(nranks));
}

// What happened to rank 0's read of the small tables at a read-only open.
enum class TableBlock : uint8_t { kNone = 0, kScattered = 1, kFailed = 2 };

// The shared table's bytes, the last field of rank 0's first message
// (`hello`, at `bytes` in it), as a string of their own: `hello` itself,
// cut to them in place (no allocation). `hello` is left holding them.
std::string TakeLastField(std::string* hello, std::string_view bytes) {
  if (bytes.empty()) return std::string();
  size_t at = size_t(bytes.data() - hello->data()), n = bytes.size();
  hello->erase(0, at);  // (both shorten in place)
  hello->resize(n);
  return std::move(*hello);
}

void ReadForReadOnlyOpen(Store::Rep* rep, const Status& local, uint64_t limit, OpenInfo* info_out,
                         TableBlock* block_out, std::string* send_out, ScatterParts* parts,
                         Status* tables, std::shared_ptr<const IndexTable>* shared_out);

}  // namespace

Status FinishReadOnlyOpen(Store::Rep* rep, std::string* hello, Decoder* d, const std::string& root_opts,
                          bool differs, const Status& local, ScatterParts* parts, Status rank0_tables,
                          std::shared_ptr<const IndexTable> rank0_shared, const Status& refused) {
  Comm* c = rep->comm.get();
  const Options& options = rep->opt;
  int rank = c->rank(), nranks = c->size();
  OpenInfo info = DecodeOpenInfo(std::string(d->LengthPrefixed()));
  TableBlock block = TableBlock(d->U8());
  uint64_t limit = d->U64();
  // The compact shared table (up to 64 MiB) stays where it arrived: a copy
  // here, unguarded, threw out of the open on a rank with room for the
  // message and not for a second copy, while the others waited for it in
  // the scatter below (an outside review; CollectiveMemory.
  // ReadOnlySharedCopyOfLastRank).
  const std::string_view shared_bytes = d->LengthPrefixed();
  Status found = info.status;
  if (found.ok() && !info.record.empty()) {
    RevisionRecord r;
    found = DecodeRevisionPayload(info.record, &r);
    if (found.ok()) rep->current = std::move(r);
  }
  const RevisionRecord& rec = rep->current;
  uint32_t readers = std::min<uint32_t>(rec.nranks, uint32_t(nranks));
  std::shared_ptr<const IndexTable> mine;
  Status late = rank == 0 ? rank0_tables : Status::OK();
  if (found.ok() && rec.revision != 0 && block != TableBlock::kNone) {
    std::string my_bytes;
    bool have_part = uint32_t(rank) < readers && Scattered(rec.namespaces[rank], limit);
    // A rank that cannot hold its part still takes every step of the
    // scatter (Comm::ScatterSized) and fails in the agreement below.
    uint64_t most = 0;
    for (uint32_t r = 0; r < readers; r++)
      if (Scattered(rec.namespaces[r], limit)) most = std::max(most, rec.namespaces[r].length);
    if (block == TableBlock::kScattered) {
      Status got = UnlessOutOfMemoryThen("open of", rep->path, kNotOpened, [&] {
        c->ScatterSized(*parts, have_part ? rec.namespaces[rank].length : 0, most, &my_bytes, 0);
        return Status::OK();
      });
      if (late.ok()) late = got;
    }
    // (A rank whose own open failed, or was refused, reads nothing: the
    // agreement below fails every rank.)
    if (block == TableBlock::kScattered && late.ok() && local.ok() && uint32_t(rank) < readers)
      late = OwnTableAtOpen(rep, std::move(my_bytes), have_part, &mine);
    // The shared table, when rank 0 read and checked it, came with its
    // message; a copy damaged on the way (memory), or one that does not
    // fit in this rank's memory, is left to be read from the file on
    // demand, which reports it.
    if (rank != 0) AdoptSentSharedTable(rep, TakeLastField(hello, shared_bytes));
  }
  Status s = AgreeOpen(c, options, rep->path, root_opts, differs, local, found, late, refused);
  if (!s.ok()) return s;
  rep->store_id = info.store_id;
  rep->newest_revision = info.newest_revision;
  rep->newest_high_water = info.newest_high_water;
  rep->revisions = info.revisions;
  if (mine) rep->tables[uint32_t(rank)] = mine;
  if (rank0_shared) rep->tables[kSharedNamespace] = rank0_shared;
  rep->own.Reset(mine);
  rep->shared.Reset(rank0_shared);
  return Status::OK();
}

void StartReadOnlyOpen(Store::Rep* rep, const Status& local, std::string* hello,
                       ScatterParts* parts, Status* tables,
                       std::shared_ptr<const IndexTable>* shared_out) {
  const Options& options = rep->opt;
  int nranks = rep->comm->size();
  OpenInfo info;
  uint64_t limit = ScatterLimit(options, nranks);
  TableBlock block = TableBlock::kNone;
  std::string shared_send;
  // Out of memory (the manifest, the tables) fails the open on every rank
  // through the status this message carries.
  Status read = UnlessOutOfMemoryThen("open of", rep->path, kNotOpened, [&] {
    ReadForReadOnlyOpen(rep, local, limit, &info, &block, &shared_send, parts, tables, shared_out);
    return Status::OK();
  });
  if (!read.ok()) {
    info = OpenInfo();
    info.status = read;
    block = TableBlock::kNone;
    shared_send = std::string();
    *parts = ScatterParts();
    shared_out->reset();
  }
  PutLengthPrefixed(hello, EncodeOpenInfo(info));
  hello->push_back(char(block));
  PutFixed64(hello, limit);
  PutLengthPrefixed(hello, shared_send);
}

namespace {

// StartReadOnlyOpen's reads: the manifest into *info, the small tables
// into *parts (*block says how that went) and the compact shared table.
void ReadForReadOnlyOpen(Store::Rep* rep, const Status& local, uint64_t limit, OpenInfo* info_out,
                         TableBlock* block_out, std::string* send_out, ScatterParts* parts,
                         Status* tables, std::shared_ptr<const IndexTable>* shared_out) {
  const Options& options = rep->opt;
  int nranks = rep->comm->size();
  OpenInfo& info = *info_out;
  TableBlock& block = *block_out;
  std::string& shared_send = *send_out;
  if (local.ok()) info = OpenManifest(rep);
  else info.status = local;
  RevisionRecord rec;
  if (info.status.ok() && !info.record.empty() && DecodeRevisionPayload(info.record, &rec).ok() &&
      rec.revision != 0) {
    uint32_t readers = std::min<uint32_t>(rec.nranks, uint32_t(nranks));
    std::string shared_bytes;
    // A read-only open reads the shared table only when it is compact.
    const bool eager_shared = rec.shared().length <= options.compact_index_limit;
    // (The planner reads through a gap between tables only while a block
    // stays within 2x of the table bytes it wants: history_test.)
    Status rs = ReadSentTables(rep, rec, readers, limit, eager_shared, parts, &shared_bytes);
    block = rs.ok() ? TableBlock::kScattered : TableBlock::kFailed;
    if (!rs.ok()) {
      *parts = ScatterParts{std::string(), std::vector<uint64_t>(size_t(nranks), 0)};
      *tables = rs;
    }
    if (rs.ok() && eager_shared && rec.shared().length > 0) {
      const NamespaceDesc& d = rec.shared();
      rep->current = rec;  // (Where names the revision)
      std::shared_ptr<const IndexTable> shared;
      Status ss = SharedTable(rep, d, std::move(shared_bytes), &shared);
      // A damaged shared table is left to its first use, which reports it
      // (lazy_open_test). Every other rank gets rank 0's checked copy.
      if (!ss.ok()) shared.reset();
      const uint64_t kSendSharedLimit = 64ull << 20;
      if (shared && nranks > 1 && d.length <= kSendSharedLimit) shared_send = std::string(shared->bytes);
      *shared_out = shared;
    }
  }
}

}  // namespace

}  // namespace cairn::open_steps
