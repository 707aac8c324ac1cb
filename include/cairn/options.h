// Options for opening a store, and for reads.
//
// Every field has a default that suits a laptop's local disk and a parallel
// file system alike; the comment on each says why it is what it is.
#pragma once

#include <cstddef>
#include <cstdint>

#include "cairn/export.h"

namespace cairn {
CAIRN_API_BEGIN

// Open is collective: every rank must pass the same store path and the same
// values of every option except the local tuning ones (chunk_size,
// write_buffer_size, inline_value_limit, writeback_bytes), which may differ
// per rank. Open compares them with rank 0's and fails on every rank with
// InvalidArgument naming the option and the ranks' values when one differs
// (a difference would otherwise give mismatched collective calls and a hang
// later). A value refused on any rank (each option's comment says which are
// valid; every byte size must be below 2^63, so a negative size from C or
// Fortran is refused) fails Open on every rank with InvalidArgument naming
// the option and the rank.
struct Options {
  // Create the store directory and its manifest if they do not exist.
  bool create_if_missing = true;
  // Fail with InvalidArgument if the store already exists.
  bool error_if_exists = false;
  // Open without write access: Put/Delete/Commit return InvalidArgument.
  // Any open, read-only or not, may use any number of ranks M, whatever the
  // number N that wrote the revision it opens (Store::writer_ranks()).
  // Every namespace 0..N-1 of that revision stays readable by every rank
  // (ReadOptions::rank, List, QueryAll) and global arrays by GetArray. When
  // a read-write open has M != N, rank r starts from namespace r (empty for
  // r >= N) and the next commit has M namespaces: objects of namespaces
  // M..N-1 are not carried (read them and put them where they belong
  // first), and an array with blocks in those namespaces must be put again
  // or deleted, or that commit fails with InvalidArgument naming it. The
  // history stays one store; older revisions keep their N namespaces.
  bool read_only = false;
  // The revision to open; 0 means the newest committed one. Opening an older
  // revision read-write makes it the parent of the next commit (a rollback);
  // newer revisions stay in the store.
  uint64_t revision = 0;

  // Allocation unit of the data files, in bytes. Each rank writes into its
  // own extents, so no two ranks share a file-system lock unit when this is a
  // multiple of the stripe size. 16 MiB is a multiple of Lustre's and GPFS's
  // common stripe/block sizes (1, 4, 8, 16 MiB). Must be a power of two >= 4 KiB.
  uint64_t extent_size = 16ull << 20;
  // Largest piece of a value covered by one checksum. A read of part of a
  // value verifies only the chunks it touches. Power of two >= 4 KiB.
  uint64_t chunk_size = 4ull << 20;
  // Bytes each rank buffers before writing; memory use of the write path is
  // bounded by this (plus the index). Larger values go to disk directly.
  // 1 MiB: Lustre's default stripe and RPC size, and measured here a
  // stream of 1 MiB writes commits 256 MiB in 0.14-0.18 s with a 1 MiB
  // buffer against 0.17-0.79 s with 16 MiB (a buffer larger than the CPU
  // cache, page-faulted anew by every process; doc/design.md). A writable
  // open refuses one above the node's memory (InvalidArgument).
  size_t write_buffer_size = 1ull << 20;
  // Early writeback: each time a rank has written this many bytes of data
  // contiguously since the last time, it asks the kernel to start writing
  // them to the device (Linux sync_file_range with SYNC_FILE_RANGE_WRITE;
  // elsewhere nothing), so the device works while the puts go on and the
  // commit's fsync waits only for the tail. It makes nothing durable and
  // changes no guarantee: the commit still fsyncs every data file. 0 turns
  // it off. 8 MiB: measured here, a stream of 1 MiB writes + fsync took
  // 0.87-0.89x the time without it at 256 MiB and 0.96x at 64 MiB
  // (doc/design.md, "Early writeback"). Local tuning: may differ per rank.
  uint64_t writeback_bytes = 8ull << 20;
  // Values up to this size live inline in the index ("compact"): reading
  // them costs no request beyond the index read at open, but a reader of any
  // one of them reads (and verifies) the whole table. At 2 KiB a value stored
  // as a chunk instead costs at most 2x its bytes in 4 KiB device pages
  // (doc/design.md "Inline values").
  size_t inline_value_limit = 2048;
  // A rank's index table up to this size is sent to rank 0 at commit and
  // written with the others as one block; at open rank 0 reads that block in
  // one request and scatters it (HDF5's compact-storage limit is 64 KiB).
  size_t compact_index_limit = 64 * 1024;
  // Data files ("subfiles"), each created once per store (never per
  // checkpoint); a commit fsyncs each file written once. 0 (the default):
  // chosen from the file system of the store (statfs at open): one file
  // per rank on a local one (ext4, XFS, btrfs, tmpfs, and any not known),
  // where writers of one file take turns in the page cache; one per node
  // (ranks sharing memory share a file) on Lustre, GPFS, BeeGFS, CephFS,
  // NFS and SMB, where every fsync costs a server round trip. k > 0: k
  // files, ranks assigned in contiguous blocks. doc/design.md, "The write
  // path", has the measurements.
  int subfiles = 0;
  // Staging memory for background writes, in bytes. 0 (the default): a put
  // writes its value (into the page cache) before it returns. > 0: a put
  // copies its value into staging buffers (write_buffer_size each) and
  // returns; a background thread writes them. A write that fails (a full
  // disk) fails the next Commit, which then drops the puts made since the
  // last revision (their staged bytes may be lost; put them again); the
  // handle reads, puts and commits again once space is freed. Until that
  // Commit, committed values read as ever, and a value put since whose
  // bytes were lost is an error (its checksum fails, or it lies past the
  // file's end) that notes the failed write, never its stale bytes.
  // Either way the caller may
  // reuse its buffer as soon as Put returns. When this much is staged and
  // not yet written, a put waits for the writes to free a buffer (counted
  // in IoStats::staging_stalls). With CommitAsync this lets a checkpoint
  // block the application only for the copy. 0 or >= write_buffer_size,
  // and at most the node's memory (a writable open prefaults it).
  uint64_t staging_bytes = 0;
  // Retention: keep the newest `keep_revisions` revisions (the one being
  // committed included) plus pinned ones; each commit drops older ones in
  // the same manifest record that makes it, and their extents are reused by
  // the following writes once that record is durable. 0 keeps every
  // revision. Readers of a revision must not run while a writer expires it.
  uint64_t keep_revisions = 0;
  // Seconds a rank waits in one of the store's collective operations before
  // it concludes that the other ranks will not come (a collective call made
  // by only some ranks, or a rank stuck or dead) and aborts the job with
  // MPI_Abort and a message naming the operation, instead of hanging. 0
  // (the default) waits forever, as MPI does: a legitimately slow rank
  // (an fsync of a large checkpoint on a busy file system) must not kill
  // the job. Set it well above the slowest expected commit. It covers
  // every collective the store makes (Open's duplication of the
  // communicator, gathers, scatters, broadcasts, reductions, the window of
  // extent counters and its free at Close, communicator splits).
  double collective_timeout_s = 0;
  // fsync data and manifest at commit. Turning this off loses the crash
  // guarantee; it exists for benchmarks that measure the page cache.
  bool sync = true;
  // A read-write open takes the store's exclusive writer lock (flock on
  // <store>/LOCK) until Close; a second writer gets IOError naming the
  // holder. Where the file system cannot lock (Lustre mounted without
  // -o flock, some NFS setups) the open fails with NotSupported, unless
  // this is false: then it warns on stderr and writes unprotected, and the
  // caller must make sure no other job writes the store. Read-only opens
  // never lock. See doc/design.md "The writer lock".
  bool require_writer_lock = true;
};

struct ReadOptions {
  // Names the shared namespace in `rank` (a local read of it; GetShared is
  // the collective read-once-and-broadcast).
  static constexpr int kShared = -2;
  // Whose namespace to read: -1 is the caller's own; 0..N-1 names a rank of
  // the revision (any rank can read any other rank's objects); kShared the
  // shared namespace.
  int rank = -1;
  // Batch reads merge requested ranges whose gap is at most this many bytes
  // into one I/O block (libsonata's I/O blocks). 4 MiB default.
  uint64_t gap_limit = 4ull << 20;
  // No merged I/O block grows beyond this many bytes.
  uint64_t max_block = 64ull << 20;
  // ... and no merged block reads more than this many times the bytes asked
  // for in it, so a batch read never reads more than (this - 1) times what
  // was asked in data nobody asked for (values < 1 count as 1: merge only
  // ranges that touch). Store::stats() read_bytes shows what was read.
  double max_read_amplification = 2.0;
};

CAIRN_API_END
}  // namespace cairn
