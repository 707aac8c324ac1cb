// Store::Rep: the state behind a Store handle on one rank. Internal; shared
// by store.cc (the API) and inspect.cc (what the command-line tool reads).
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "cairn/store.h"
#include "comm/comm.h"
#include "format/index_format.h"
#include "format/manifest_format.h"
#include "io/coalescing_reader.h"
#include "io/file.h"
#include "io/io_queue.h"
#include "io/writer.h"
#include "store/manifest.h"
#include "store/namespace_state.h"
#include "store/retention.h"
#include "store/writer_lock.h"

namespace cairn {

struct StreamHub;  // store/stream_hub.h
struct ArrayState;  // array/array_state.h

// A commit between its collective start and its end: the record rank 0
// will append, and this rank's table, already encoded.
struct CommitPlan {
  uint64_t revision = 0;
  RevisionRecord rec;                            // every rank: the record to append
  std::shared_ptr<const IndexTable> table;         // this rank's namespace in it
  std::shared_ptr<const IndexTable> shared_table;  // rank 0: the shared namespace
  SpacePlan space;                               // rank 0: retention's plan (retention.h)
  bool async = false;                            // made by CommitAsync (retention holds free runs)
};

struct Store::Rep {
  Options opt;
  // Reads past the page cache from this request size on (ReadPlanLimits::
  // direct_bytes): CAIRN_DIRECT_READ_BYTES at open, 0 (never) without it
  // (read_path.cc, doc/design.md "Direct reads").
  uint64_t direct_read_bytes = 0;
  std::string path;
  IoStats stats;
  std::unique_ptr<Comm> comm;      // all ranks of the store
  std::unique_ptr<Comm> sub_comm;  // the ranks sharing my data file (writable opens)
  bool subfile_on_one_node = true; // its ranks share a node: the leader's fsync covers all
  bool closed = false;
  Status poisoned;  // not ok after a failed fsync: no more commits (see CheckWritable)
  // The failure of an asynchronous commit that no Wait returned yet: the
  // next commit returns it instead of committing without the puts it
  // discarded (see DiscardPending).
  std::shared_ptr<AsyncCommit::State> unreported;
  std::string scratch, scratch_tags;  // reused encoding buffers of the put path
  // The store directory and its parent, synced by the first commit of a
  // writable open (rank 0) before its manifest record.
  bool sync_store_dir = false;
  bool sync_parent_dir = false;

  std::string store_id;
  std::unique_ptr<Manifest> manifest;       // rank 0 only
  std::unique_ptr<WriterLock> writer_lock;  // rank 0 of a writable open, Open to Close
  RevisionRecord current;                   // the revision this view is at (revision 0: none)
  std::vector<uint64_t> newest_high_water;  // allocation floor per data file
  uint64_t newest_revision = 0;             // newest committed revision in the store
  std::vector<RevisionInfo> revisions;      // all ranks: the list, oldest first

  // Writing (writable opens).
  uint32_t my_subfile = 0;
  std::unique_ptr<File> my_file;
  // The background I/O thread (staged writes, and the durable end of
  // asynchronous commits); made on first need. Declared between the file
  // and the writer: destroyed after the writer releases its buffer and
  // before the files its jobs write.
  std::unique_ptr<IoQueue> io;
  std::unique_ptr<Writer> writer;
  std::shared_ptr<AsyncCommit::State> inflight;  // the commit in flight, if any
  std::shared_ptr<StreamHub> streams;  // this handle's open streams (stream_hub.h); made by the first
  uint64_t open_seq = 0;  // order of opening, for closing at MPI_Finalize
  uint64_t space_taken_mark = 0;  // writer->taken_bytes() at the last space report
  std::vector<uint64_t> space_need;  // rank 0: per rank, recent peak of run bytes per commit

  // Reading.
  std::map<uint32_t, std::unique_ptr<File>> read_files;  // data files opened on demand
  NamespaceState own;     // my namespace (rank r of the revision)
  NamespaceState shared;  // the shared namespace (rank 0)
  std::map<uint32_t, std::shared_ptr<const IndexTable>> tables;  // other namespaces, loaded on demand
  std::shared_ptr<ArrayState> arrays;  // global arrays: pending puts, decoded descriptors (made on first use)
  // MultiRead's bookkeeping, reused from call to call (a Store is used by
  // one thread at a time), so that a MultiGet of one small value allocates
  // nothing; emptied after a call with many keys (read_path.cc).
  struct MultiReadScratch {
    std::vector<EntryView> views;
    std::vector<ReadRange> ranges;
    std::vector<std::pair<size_t, const ChunkRef*>> wants;  // per range: key, chunk
    std::vector<char> placed;  // MultiGet into buffers: value i was placed
    std::vector<size_t> order;  // MultiGet into buffers: the overlap check
    ReadWorkspace io;
  } multi_read;

  Status CheckWritable() const;
  // Collective: CheckWritable, and an unreported asynchronous failure,
  // agreed by every rank (a rank whose fsync failed in Flush is the only
  // one poisoned: the others must not start the commit's collectives
  // without it). Every rank returns the same status. A rank that already
  // knows it cannot commit (out of memory) passes why as `refused`.
  Status CheckCommittable(const Status& refused = Status::OK());
  // After a failed commit that may have lost staged data (with staging, or
  // any failed CommitAsync): the namespaces go back to the last committed
  // revision's tables (the puts since then are discarded and must be made
  // again) and the I/O queue forgets its error, so that the handle reads,
  // puts and commits again once the cause (a full disk) is gone.
  void DiscardPending();
  // A commit failed before its asynchronous part (if any) started: with
  // staging, DiscardPending (every rank does: the failure is agreed) and
  // the error says so; else `s` as it is.
  Status StagedCommitFailed(const Status& s);
  // Opens (or returns) the data file of id `subfile` for reading. This
  // rank's own file: its pending writes are written out first, so that a
  // read sees uncommitted values; if one of them failed (a full disk, with
  // or without staging) the file is returned all the same, and the failure
  // kept in pending_write_error: committed values are intact (no write
  // touches the space of a live revision) and read as ever, and a pending
  // value whose bytes did not arrive fails its checksum (or reads past the
  // file's end), which is reported as such with a note of the failed write
  // (which chunks are pending is not known here, so the note says "may").
  Status DataFile(uint32_t subfile, File** file);
  // The error of a chunk of `key` whose bytes fail their checksum
  // (Corruption, with the note of a failed pending write if there is one).
  Status ChunkError(std::string_view key, const ChunkRef& c) const;
  // The error of a read of `key` that failed (`read`), in its context, with
  // that note too.
  Status ReadError(std::string_view key, const Status& read) const;
  std::string PendingWriteNote() const;
  Status pending_write_error;  // cleared by DiscardPending and each commit
  // The table of namespace `ns` of the current revision (loads it on demand).
  Status Table(uint32_t ns, std::shared_ptr<const IndexTable>* table);
  // Reads and verifies a table given its descriptor.
  Status ReadTable(uint32_t ns, const NamespaceDesc& d, std::shared_ptr<const IndexTable>* out);
  // Resolves ReadOptions::rank to an entry body and the dictionary of its tags.
  Status Resolve(std::string_view key, const ReadOptions& ro, std::string_view* body,
                 const NameDict** dict);
  // For a value claiming more than 1 GiB: every chunk must lie inside its
  // data file, checked before a buffer of that size is allocated.
  Status CheckHugeValue(const EntryView& e);
  // Resolve, then decode the entry.
  Status Find(std::string_view key, const ReadOptions& ro, EntryView* e, const NameDict** dict);
  // Reads [offset, offset+len) of a decoded entry's value into dest.
  Status ReadValue(const EntryView& e, uint64_t offset, uint64_t len, char* dest,
                   const ReadOptions& ro);
  // The body of both MultiGets (src/store/read_path.cc): place(i, size,
  // &dest) says where value i goes, or why it cannot (that key's status).
  Status MultiRead(const std::vector<std::string>& keys, std::vector<Status>* statuses,
                   const ReadOptions& ro, const std::function<Status(size_t, uint64_t, char**)>& place);
  // Encodes and stores an entry for a value in namespace `ns`.
  // zero_copy: with staging, the value is written from the caller's memory
  // by the I/O thread (see Store::PutZeroCopy). grain: the checksum grain
  // of a chunked value (Writer::Append; 0: Options::chunk_size).
  Status PutInto(NamespaceState* ns, std::string_view key, std::string_view value,
                 const TagList& tags, bool zero_copy = false, uint64_t grain = 0);
  // Re-encodes an entry with new tags, keeping its value.
  Status RetagInto(NamespaceState* ns, std::string_view key, const TagList& tags);
  std::string Where(uint32_t ns) const;

  // The background I/O queue, made on first use.
  IoQueue* Io();
  // Everything this rank's writer was given is written (not synced).
  Status DrainWrites();
  // Store::Flush's body (which maps running out of memory to an IOError).
  Status FlushWrites();
  // Collective: encodes every namespace's table, gathers the small ones to
  // rank 0, which writes them as one block and builds the revision record;
  // every rank gets the record, or the same error (then nothing changed).
  Status PrepareCommit(CommitPlan* plan);
  // Commit after CheckCommittable: PrepareCommit, then the durable end.
  // *deciding is set once the outcome is being decided (then an exception
  // out of it leaves this view in doubt).
  Status CommitSync(uint64_t* revision, bool* deciding);
  // Rank 0: syncs the directory entries made at open (before the first
  // record that depends on them).
  Status SyncNewDirs();
  // Whether SyncNewDirs has directories to sync.
  bool NeedsDirSync() const { return opt.sync && (sync_store_dir || sync_parent_dir); }
  // The revision of `plan` is committed: it becomes this view; `space` is
  // rank 0's retention section of the outcome (expired revisions, free
  // extents), applied here.
  Status Adopt(const CommitPlan& plan, std::string_view space);
  // Moves a commit in flight on without blocking (block: until it ends).
  void Progress(bool block);
  // Waits for the commit in flight, if any; returns its outcome (an
  // IOError, InflightStuck, if it ran out of memory and is still in flight).
  Status FinishInflight();
  Status InflightStuck() const;
};

RevisionInfo InfoOf(const RevisionRecord& r);
// The keys (in key order) of table `t`'s entries that start with `prefix`
// and meet every condition in `all_of` (query.cc).
// OK, or InvalidArgument naming the first condition no tag can meet (an
// empty name, a range of mixed kinds, ...; query.cc).
Status ValidateQuery(const std::vector<TagQuery>& all_of);
Status QueryTableKeys(const IndexTable& t, const std::vector<TagQuery>& all_of, std::string_view prefix,
                      std::vector<std::string>* keys);
std::string DataFileName(uint32_t subfile);
// Makes *value `size` bytes long for a read of `key`'s value into it. A
// value larger than this process can allocate (a restart on a node with
// less memory than the writer's) is an IOError saying so, with *value
// empty, not std::bad_alloc out of the API. Get, MultiGet, GetShared.
// Store::Rep::direct_read_bytes from the environment (CAIRN_DIRECT_READ_BYTES,
// a byte count; unset or empty: 0); InvalidArgument naming the variable
// for anything else.
Status DirectReadBytesFromEnv(uint64_t* bytes);
Status SizeValue(std::string* value, uint64_t size, std::string_view key);

}  // namespace cairn
