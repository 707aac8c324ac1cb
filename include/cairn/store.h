// Store: a checkpoint/restart store opened collectively by the ranks of an
// MPI communicator (or by one process without MPI).
//
// Each rank owns a namespace of objects: a key, a value (any bytes, 0 to many
// GiB) and typed tags. Put/Get/Delete act on the caller's namespace and are
// local (no communication). Commit() is collective: it makes everything put
// so far by every rank one atomic, immutable revision. Objects not touched
// since the last revision are carried into the next without being copied.
//
// Thread safety: a Store is used by one thread at a time per rank.
// Collective calls (Open, Commit, CommitAsync, GetShared, QueryAll, Pin,
// Unpin, Drop, Close) must be made by every rank of the communicator, in
// the same order, as with MPI. A writable store may run a background I/O
// thread (staged puts, asynchronous commits, Flush); it never calls MPI, so
// MPI_THREAD_FUNNELED is enough (MPI_Init's MPI_THREAD_SINGLE works with
// OpenMPI and MPICH, but the standard promises it only for FUNNELED).
#pragma once

#include <mpi.h>

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "cairn/array.h"
#include "cairn/options.h"
#include "cairn/status.h"
#include "cairn/tags.h"

#include "cairn/export.h"

namespace cairn {
CAIRN_API_BEGIN

class StreamWriter;  // cairn/stream.h
class StreamReader;
class CAIRN_HIDDEN Inspector;  // the cairn tool's view of the internals (src/store/inspect.h)

// One committed revision, as listed by ListRevisions().
struct RevisionInfo {
  uint64_t revision = 0;
  uint64_t parent = 0;        // the revision it was built on (0: none)
  uint64_t time_ns = 0;       // commit time, nanoseconds since the Unix epoch
  uint32_t ranks = 0;         // number of ranks that wrote it
  // Objects over all namespaces, and the sum of their value sizes; both
  // include the store's own objects of global arrays (one per block and
  // one descriptor per array), which List and Query do not show.
  uint64_t objects = 0;
  uint64_t value_bytes = 0;
  uint64_t index_bytes = 0;   // sum of index table sizes
  bool pinned = false;        // protected from keep_revisions and Drop until unpinned
};

// One object, as listed by List().
struct ObjectInfo {
  std::string key;
  uint64_t size = 0;     // value size in bytes
  bool inlined = false;  // value stored inline in the index
  TagList tags;
};

// One condition on a tag, for Query(). An object satisfies it when it has a
// tag of that name whose value meets the condition. Numbers compare by value
// whatever their type and width (int32 42 == uint64 42 == double 42.0);
// strings and bytes compare bytewise; arrays only by Equal (same type, same
// elements).
struct TagQuery {
  enum class Op { kExists, kEqual, kRange, kPrefix, kWildcard };
  std::string name;
  Op op = Op::kExists;
  TagValue value;  // kEqual: the value; kRange: lower bound; kPrefix, kWildcard: the pattern
  TagValue upper;  // kRange: upper bound (both bounds inclusive)

  static TagQuery Exists(std::string name);
  static TagQuery Equal(std::string name, TagValue v);
  // Numbers within [lo, hi], or strings/bytes within [lo, hi] bytewise.
  // Both bounds numbers or both strings/bytes: a query with a range of
  // mixed kinds (an int and a string) or of arrays is refused with
  // InvalidArgument naming the tag (as is a kPrefix/kWildcard condition
  // whose value was set to a non-string), rather than matching nothing.
  static TagQuery Range(std::string name, TagValue lo, TagValue hi);
  // Strings or bytes starting with `prefix`.
  static TagQuery Prefix(std::string name, std::string_view prefix);
  // Strings or bytes matching a shell pattern: * any run, ? any one byte.
  static TagQuery Wildcard(std::string name, std::string_view pattern);
};

// A query result: whose namespace, which key.
struct QueryHit {
  int rank = 0;
  std::string key;
  bool operator==(const QueryHit& o) const { return rank == o.rank && key == o.key; }
};

// Counters of the I/O a rank has done through this store since it opened.
// Metadata operations are file-system calls that touch the namespace or
// force durability: open/create, mkdir, stat, rename, unlink, fsync.
struct IoStats {
  uint64_t read_requests = 0;
  uint64_t read_bytes = 0;
  uint64_t write_requests = 0;
  uint64_t write_bytes = 0;
  uint64_t opens = 0;      // open() calls, creating or not
  uint64_t creates = 0;    // of which created a file
  uint64_t mkdirs = 0;
  uint64_t stats = 0;      // stat/fstat
  uint64_t fsyncs = 0;     // fsync/fdatasync, files and directories
  uint64_t renames = 0;
  uint64_t unlinks = 0;
  uint64_t truncates = 0;
  // Background writes (Options::staging_bytes > 0): how often, and for how
  // long in total, a put waited because the staging memory was full.
  uint64_t staging_stalls = 0;
  uint64_t staging_stall_ns = 0;
  // Commits: index-table bytes rank 0 received from the ranks (its own
  // included; 0 on other ranks), and namespaces whose table a commit
  // reused because nothing in them changed since the last revision (this
  // rank's own, and at rank 0 the shared one): no bytes built, sent or
  // written for those.
  uint64_t index_bytes_gathered = 0;
  uint64_t index_tables_reused = 0;
  // This rank's tables a commit wrote in pieces from the entries where
  // they lay (a large table of entries all put since the last revision),
  // with no copy of the whole table in memory.
  uint64_t index_tables_streamed = 0;
  // Early writeback (Options::writeback_bytes): requests to start writing
  // data to the device ahead of the commit's fsync (not metadata, not
  // durable by themselves).
  uint64_t writeback_requests = 0;
  // Bytes of read_bytes read past the page cache: requests the device
  // wrote straight into memory. 0 unless CAIRN_DIRECT_READ_BYTES is set
  // (off by default; doc/design.md "Direct reads").
  uint64_t direct_read_bytes = 0;
  // Sum of the metadata operations above.
  uint64_t metadata_ops() const {
    return opens + mkdirs + stats + fsyncs + renames + unlinks + truncates;
  }
};

// The handle of a commit made by Store::CommitAsync. Copyable (copies
// share the commit); a default-constructed handle refers to none.
//
// The commit finishes in steps: the rank's staged data is written and
// synced by a background thread, the ranks agree that all succeeded, rank 0
// appends and syncs the manifest record. The agreement uses nonblocking
// MPI collectives, which advance only while the ranks are inside MPI: each
// rank's Test, Wait, or any later call on the store moves them on.
// Only calls on that store (or this handle) move its commit on: a rank
// blocked in Wait of one store's commit does not move another store's. With
// commits in flight on several stores at once, every rank must Wait for
// them in the same order (or Test each in turn until all have finished): a
// rank that waits for store A's commit while another waits for store B's,
// or only Tests B's, hangs both, since each commit's next step needs the
// other rank.
class AsyncCommit {
 public:
  AsyncCommit() = default;
  // Whether the handle refers to a commit.
  bool valid() const { return state_ != nullptr; }
  // The revision number the commit makes (0 for an empty handle).
  uint64_t revision() const;
  // Local, never blocks: moves the commit on as far as it can go without
  // waiting, and says whether it has finished (committed or failed).
  bool Test();
  // Whether it finished and its revision is committed (durable).
  bool committed() const;
  // Blocks until the commit has finished (every rank must also reach Wait,
  // Test, or a store call) and returns its outcome; *revision is set on
  // success. Calling it again returns the same outcome.
  Status Wait(uint64_t* revision = nullptr);

  struct CAIRN_HIDDEN State;  // implementation, not part of the API

 private:
  friend class Store;
  explicit AsyncCommit(std::shared_ptr<State> s) : state_(std::move(s)) {}
  std::shared_ptr<State> state_;
};

class Store {
 public:
  // Opens (or creates) the store at directory `path`, collectively over
  // `comm` (every rank passes the same path and options). The communicator
  // is duplicated; the caller may free its own. On success *store is set; on
  // failure it is null and every rank returns the same error.
  // MPI must be initialized; the store must be closed before MPI_Finalize.
  // MPI_COMM_NULL is InvalidArgument (local: only that rank returns it), and
  // so is an inter-communicator (on every rank of both groups, before any
  // communication).
  // The duplicate ends the job on an MPI error (MPI_ERRORS_ARE_FATAL),
  // whatever error handler `comm` has: a collective that failed on one
  // rank cannot be finished by the others.
  static Status Open(const Options& options, const std::string& path,
                     MPI_Comm comm, std::unique_ptr<Store>* store);
  // For a rank that cannot call Open because its own arguments were refused
  // before it (a binding's check, say): takes part in the collective Open
  // the other ranks of `comm` make, so that none waits for this one.
  // Nothing is opened or created. Every rank's Open, and this call, fail
  // with the lowest refusing rank's code and "rank R: " + its message (R
  // that rank). An OK `why`, or one with an empty message, reads as
  // InvalidArgument "an open refused without a cause". A null or
  // inter-communicator, or MPI not initialized, has no collective to take
  // part in: `why` is returned at once, and the others wait.
  // `collective_timeout_s` is Options::collective_timeout_s for this
  // rank's part (0, negative or NaN: wait for ever).
  static Status RefuseOpen(const std::string& path, MPI_Comm comm, const Status& why,
                           double collective_timeout_s = 0);
  // Opens the store for a single process. Works whether or not MPI is
  // initialized (no MPI call is made if it is not).
  static Status Open(const Options& options, const std::string& path,
                     std::unique_ptr<Store>* store);

  Store(const Store&) = delete;
  Store& operator=(const Store&) = delete;
  // Closes the store if Close() was not called (collective; see Close).
  ~Store();

  int rank() const;
  int size() const;
  // The number of ranks that wrote this view's revision (its namespaces are
  // 0 .. writer_ranks()-1, readable by any rank through ReadOptions::rank);
  // size() for a store with no revision yet. It differs from size() after a
  // restart on another rank count (see Options::read_only).
  int writer_ranks() const;
  // The revision this view shows: the one opened, or the last committed by
  // this handle; 0 for a store with no revision yet.
  uint64_t revision() const;

  // --- The caller's namespace (local calls, no communication) ---

  // Stores `value` under `key` with `tags`, replacing any object of that key.
  // Keys are 1..65535 bytes. The value is copied (or written) before return.
  Status Put(std::string_view key, std::string_view value, const TagList& tags = {});
  // Zero-copy put: as Put, but with Options::staging_bytes > 0 the value is
  // not copied: the background thread writes it from `value`'s memory, and
  // the caller promises not to modify or free that memory until the commit
  // that includes it has finished (AsyncCommit::Test() true, Wait, Commit or
  // Flush returned). Only the checksums are computed before return. Without
  // staging it is Put. Saves one memcpy of the value per checkpoint.
  Status PutZeroCopy(std::string_view key, std::string_view value, const TagList& tags = {});
  // Removes `key`. NotFound if there is no such object.
  Status Delete(std::string_view key);
  // Replaces all tags of `key`; the value is not rewritten.
  Status SetTags(std::string_view key, const TagList& tags);
  // Sets (adds or replaces) one tag of `key`; the value is not rewritten.
  Status SetTag(std::string_view key, const Tag& tag);
  // Removes tag `name` of `key`; NotFound if the object or tag is absent.
  Status DeleteTag(std::string_view key, std::string_view name);

  // --- Reads (local; ReadOptions::rank picks whose namespace) ---

  // Reads the whole value of `key` into *value.
  Status Get(std::string_view key, std::string* value, const ReadOptions& ro = {});
  // Reads `length` bytes from `offset` of the value into `buf`; fails with
  // InvalidArgument if the range passes the end. Only the chunks touched are
  // read and verified.
  Status GetRange(std::string_view key, uint64_t offset, void* buf, uint64_t length,
                  const ReadOptions& ro = {});
  // The value size of `key`.
  Status GetSize(std::string_view key, uint64_t* size, const ReadOptions& ro = {});
  // The tags of `key`.
  Status GetTags(std::string_view key, TagList* tags, const ReadOptions& ro = {});
  // Reads many values in one call: the requested data ranges are sorted and
  // merged into I/O blocks by ro.gap_limit and ro.max_read_amplification,
  // and read straight into place. (*values)[i] and (*statuses)[i] answer
  // keys[i]; the return value is the first non-ok status, or ok. Strings
  // already in *values are reused (pass the same vector again to avoid
  // allocating); a value whose status is not ok is left empty.
  Status MultiGet(const std::vector<std::string>& keys, std::vector<std::string>* values,
                  std::vector<Status>* statuses, const ReadOptions& ro = {});
  // Where MultiGet puts one value in the caller's memory.
  struct ValueBuffer {
    void* data = nullptr;   // at least `capacity` writable bytes
    uint64_t capacity = 0;
    uint64_t size = 0;      // out: the value's size (also when it did not fit)
  };
  // MultiGet into the caller's buffers: value i is read (and its checksums
  // verified) straight into (*buffers)[i].data, with no allocation. (A
  // chunk whose destination sits 1-31 bytes past its file offset within a
  // page, which the kernel copies slowly, is read through a 1 MiB buffer
  // kept per reading thread, verified there and copied: doc/design.md,
  // "The read path".)
  // A value larger than its buffer's capacity is InvalidArgument for
  // that key (nothing is written). Where the read of value i failed
  // (Corruption, IOError), its `size` bytes in buffer i are zeroed: a
  // damaged value is never left behind as data. Returns the first non-ok
  // status, or ok. The buffers must not overlap ([data, data + capacity) of
  // each); overlapping buffers, or as many buffers as keys not given, are
  // InvalidArgument for every key, before anything is read.
  Status MultiGet(const std::vector<std::string>& keys, std::vector<ValueBuffer>* buffers,
                  std::vector<Status>* statuses, const ReadOptions& ro = {});
  // Lists the objects of a namespace in key order, with sizes and tags.
  Status List(std::vector<ObjectInfo>* objects, const ReadOptions& ro = {});

  // --- Streams (include cairn/stream.h) ---

  // Local: opens a stream that will become object `key` of the caller's
  // namespace, with `tags`, when the writer is closed. Until then the key
  // keeps whatever object it had: a commit made meanwhile holds that object
  // (or none), the stream joins the first commit after its Close, and no
  // commit reuses the space the stream has written. InvalidArgument if a
  // write stream of `key` is already open on this rank (cairn/stream.h).
  Status OpenWriteStream(std::string_view key, const TagList& tags,
                         std::unique_ptr<StreamWriter>* writer);
  // Local: opens object `key` (of the namespace ro.rank names) for reading
  // as a stream. The reader sees the object as it was at this call (while
  // it exists, commits do not reuse that object's space).
  Status OpenReadStream(std::string_view key, std::unique_ptr<StreamReader>* reader,
                        const ReadOptions& ro = {});

  // --- Queries by tag ---

  // Local: the keys (in key order) of the objects of a namespace that meet
  // every condition in `all_of` (an empty list matches every object). On a
  // writable store the caller's own namespace (ro.rank -1 or its rank) is
  // queried with its changes not yet committed, as Get reads it: while an
  // asynchronous commit is in flight, the revision in flight plus the puts
  // and tag edits made since. Any other namespace shows this view's
  // revision (revision(): a commit in flight counts once Test, Wait or a
  // collective call has seen it finish), never another rank's pending
  // changes.
  Status Query(const std::vector<TagQuery>& all_of, std::vector<std::string>* keys,
               const ReadOptions& ro = {});
  // Collective: runs Query on every rank's namespace (not the shared one:
  // query it with Query and ReadOptions::rank = kShared) and gives every
  // rank the union, ordered by namespace (the rank that wrote it) then key.
  // It covers every namespace of this view's revision on any number of
  // ranks (rank r takes namespaces r, r + size(), ...); on a writable store
  // rank r's own namespace r is queried with its changes not yet committed
  // (so after a restart on fewer ranks, the namespaces no rank owns are
  // covered until the next commit, which does not carry them). A commit in
  // flight is finished first (its revision is then this view's).
  Status QueryAll(const std::vector<TagQuery>& all_of, std::vector<QueryHit>* hits);

  // --- Shared objects: written once by rank 0, read by all ---

  // Rank 0 only: stores a shared object (InvalidArgument on other ranks).
  Status PutShared(std::string_view key, std::string_view value, const TagList& tags = {});
  // Collective: rank 0 reads the value once and broadcasts it to every rank.
  // Every rank names the same key: a rank that names another gets
  // InvalidArgument naming both (and an empty value), never rank 0's value.
  Status GetShared(std::string_view key, std::string* value);

  // --- Global arrays (cairn/array.h) ---

  // Local: puts one block of array `name`: the box of `count` elements at
  // `start` of an array of `global_shape` and type `dtype`; `data` holds
  // prod(count) elements, dense, in opt.order. The data is copied (or
  // written) before return. A rank may put several blocks of an array, or
  // none. The first put of an array since the last commit, on any rank,
  // starts it anew: the next revision holds exactly the blocks put since
  // then by every rank; an array no rank put is carried as it was.
  // InvalidArgument (nothing stored) for an empty name or one over 4096
  // bytes, a dtype that is not a DType, 0 or more than kMaxArrayDims
  // dimensions, a global shape whose bytes pass 2^64 (byte offsets are
  // 64-bit), a box outside global_shape, a data pointer that is null
  // with a non-empty box, or a dtype or shape that differs from this rank's
  // earlier put of the same array. Across ranks, Commit checks that every
  // rank's puts of an array agree in dtype and shape and that its blocks do
  // not overlap; if not, the commit fails on every rank with
  // InvalidArgument naming the array and the ranks, and nothing is made:
  // the round's array puts and deletes are dropped (put them again), the
  // other puts stay pending, with or without staging. CommitAsync returns
  // that error itself, before anything starts.
  Status PutArray(std::string_view name, DType dtype, const std::vector<uint64_t>& global_shape,
                  const std::vector<uint64_t>& start, const std::vector<uint64_t>& count,
                  const void* data, const ArrayPutOptions& opt = {});
  // Local: the array `name` is absent from the next revision (its blocks'
  // space is freed as retention allows). NotFound if this view's revision
  // has no such array and none was put since. A PutArray of the same name
  // on any rank in the same commit round makes that commit fail with
  // InvalidArgument.
  Status DeleteArray(std::string_view name);
  // Local: reads the box (start, count) of array `name`, as this view's
  // revision holds it, into `out`: prod(count) elements, dense, in
  // ro.order. Works on any rank and any rank count, whatever rank count
  // wrote the array. Puts not yet committed are not seen. Only the byte
  // runs the box needs are read (never a whole block for a part of it),
  // straight into `out` where they are contiguous, and their chunks'
  // checksums are verified. Elements that no block covers read as zero.
  // NotFound if there is no such array; InvalidArgument if the box passes
  // the shape or its dimension count differs.
  Status GetArray(std::string_view name, const std::vector<uint64_t>& start,
                  const std::vector<uint64_t>& count, void* out,
                  const ArrayReadOptions& ro = {});
  // Local: dtype, shape, tags and block count of array `name` in this
  // view's revision; with `with_blocks`, every block too (O(blocks) memory).
  Status GetArrayInfo(std::string_view name, ArrayInfo* info, bool with_blocks = false);
  // Local: the arrays of this view's revision in name order (no blocks).
  Status ListArrays(std::vector<ArrayInfo>* arrays);
  // Local: the names of the arrays whose tags meet every condition in
  // `all_of` (as Query does for objects), in name order, in this view's
  // revision (as GetArray: arrays put since, or in a commit still in
  // flight, are not seen).
  Status QueryArrays(const std::vector<TagQuery>& all_of, std::vector<std::string>* names);
  // Local: what this handle's GetArray calls planned and read so far
  // (cairn/array.h); zeros before the first.
  ArrayReadStats array_read_stats() const;

  // --- Revisions ---

  // Collective: makes all ranks' changes one atomic revision. Data and index
  // are made durable on every rank, then rank 0 appends the revision to the
  // manifest and syncs it. If any rank fails, no revision is made, every
  // rank returns the same error, and the changes stay pending for a later
  // Commit; with staging (Options::staging_bytes > 0) they are dropped
  // instead (their staged writes may be lost: the error says to put them
  // again). A handle one of whose ranks failed an fsync (in Commit or
  // Flush) takes no more commits, on any rank.
  Status Commit(uint64_t* revision = nullptr);
  // Collective: starts a commit of all ranks' changes and returns once every
  // value put so far is captured, without waiting for it to be durable; the
  // commit then finishes in the background (see AsyncCommit). What the
  // revision holds is fixed when this returns: puts made after it belong to
  // the next revision, and the caller's buffers were already free to reuse
  // when each Put returned (Options::staging_bytes says whether a put
  // copied or wrote its value). At most one commit is in flight: a later
  // Commit, CommitAsync, collective read or Close first waits for it. If it
  // fails, no revision is made and every put since the last committed
  // revision (those made while it was in flight included) is dropped: put
  // them again. AsyncCommit::Wait returns the failure; if no Wait did, the
  // next Commit or CommitAsync returns it instead. After a failed fsync, or
  // a manifest append whose outcome is unknown, the handle takes no more
  // commits (close and reopen; the last committed revision is intact). The time this call blocks is the time
  // to encode the index and exchange it with rank 0, plus the time to copy
  // or write values not yet handed over.
  Status CommitAsync(AsyncCommit* handle);
  // Local write barrier: everything this rank has put so far is written and
  // made durable (one fsync of its data file; with staging, after the
  // background writes drain), without making a revision. A later Commit
  // then has only the index and the manifest record left to sync. Data
  // that is durable but not committed is not visible after a crash: only a
  // Commit publishes it.
  Status Flush();
  // The retained (not dropped or expired) revisions of the store, oldest
  // first (read by rank 0 at open, updated by each commit, pin, unpin and
  // drop through this handle; local).
  Status ListRevisions(std::vector<RevisionInfo>* revisions);

  // --- Retention (see Options::keep_revisions) ---

  // Collective: pins revision `rev`: it is never expired by keep_revisions
  // and Drop refuses it, until Unpin. Rank 0 appends a pin record to the
  // manifest and syncs it. Pinning a pinned revision is ok and writes
  // nothing. NotFound if `rev` is not a retained revision. Pin, Unpin and
  // Drop act on rank 0's `rev`: a rank that names another gets
  // InvalidArgument naming both (its list of revisions follows rank 0's).
  Status Pin(uint64_t rev);
  // Collective: removes the pin of `rev` (ok if it has none). The revision
  // then expires at the next commit if keep_revisions says so.
  Status Unpin(uint64_t rev);
  // Collective: removes revision `rev` for good: a drop record is appended
  // and synced, the revision can no longer be opened, and the extents only
  // it needed are reused from the next commit on. InvalidArgument if it is
  // pinned or is the revision this handle is open at; NotFound if it is
  // not a retained revision.
  Status Drop(uint64_t rev);

  // Collective: waits for a commit in flight (returning its error if it
  // failed), then releases files, the writer lock and MPI resources (the
  // lock only once that commit's record is durable). Changes not committed
  // are discarded, and so is the data of write streams still open: from
  // then on every stream of this handle fails with "store ... is closed"
  // (destroying it stays safe). Safe to call twice. A store still open at MPI_Finalize is
  // closed by it (a pending commit is finished first; a failure is printed
  // to stderr, as there is no caller to return it to).
  Status Close();

  // I/O counters of this rank.
  IoStats stats() const;

  struct CAIRN_HIDDEN Rep;  // implementation, not part of the API

 private:
  friend class Inspector;  // the command-line tool's view of the internals
  explicit Store(std::unique_ptr<Rep> rep);
  // QueryAll, with this rank's part refused as `refused` when not OK (it
  // then queries nothing, and every rank fails with it).
  Status QueryAllAgreed(const std::vector<TagQuery>& all_of, std::vector<QueryHit>* hits, const Status& refused);
  // CommitAsync's body (CommitAsync turns running out of memory into a status).
  Status StartCommit(AsyncCommit* handle);
  std::unique_ptr<Rep> rep_;
};

CAIRN_API_END
}  // namespace cairn
