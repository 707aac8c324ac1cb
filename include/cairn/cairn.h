/* cairn C API: the C++ Store for C and (through ISO_C_BINDING) Fortran.
 * Valid C99 and C++ (no C++ needed to include it).
 *
 * Every function returns CAIRN_OK (0) or a negative cairn_code; the message
 * of the last failure on the calling thread is cairn_last_error(). No
 * function aborts the process. Collective functions (cairn_open, cairn_commit,
 * cairn_commit_async, cairn_get_shared, cairn_query_all, cairn_pin,
 * cairn_unpin, cairn_drop, cairn_close) must be called by every rank of the
 * communicator, in the same order (cairn_open_refused stands in for
 * cairn_open on a rank that refused its own arguments); every other
 * function is local (no communication).
 *
 * Threads: a store handle, and the streams and async handles made from it,
 * are used by one thread at a time (different stores may be used by
 * different threads); collective calls need the MPI thread level the
 * application initialized (MPI_THREAD_FUNNELED is enough when one thread
 * makes them). cairn_last_error and cairn_code_name may be called from any
 * thread.
 *
 * Memory: cairn copies what it is given (keys, values, tags) before a call
 * returns, except where a function says otherwise. What a function returns
 * through a pointer-to-pointer (tag lists, object lists, query hits,
 * revision lists, array descriptions) is one block allocated by cairn, owned
 * by the caller, and released with cairn_free; everything it points to
 * lives in that block.
 *
 * Structs across versions: only two kinds may grow, by members appended at
 * the end. Options structs (cairn_options_t, cairn_read_options_t,
 * cairn_array_put_options_t, cairn_array_read_options_t) carry the
 * caller's sizeof in struct_size; the library reads only that part and
 * gives the rest its defaults. Counter structs (cairn_io_stats_t,
 * cairn_array_read_stats_t: uint64_t members only) are filled by size:
 * the caller passes its sizeof, and the library writes only that many
 * bytes (0 in members it does not know). Every other struct cannot grow:
 * it is an element of an array, cairn's (cairn_object_t, cairn_hit_t,
 * cairn_revision_info_t, cairn_array_info_t, cairn_array_block_t,
 * cairn_array_block_info_t, cairn_name_t, cairn_tag_t) or the caller's
 * (cairn_read_t, cairn_query_t, cairn_tag_t), stepped through with the
 * sizeof each side was compiled with. A new member there means a new
 * struct and a new function using it, the old ones kept (as
 * cairn_array_blocks added cairn_array_block_info_t beside
 * cairn_array_block_t).
 *
 * Keys and names: the calls here take them as NUL-terminated strings, so a
 * key holding a NUL byte (the C++ and Python APIs accept any bytes) cannot
 * be named through the C API. Such keys are still listed, with key_len
 * giving their full length; read or change them through the C++ API. */
#ifndef CAIRN_CAIRN_H_
#define CAIRN_CAIRN_H_

#include <mpi.h>
#include <stddef.h>
#include <stdint.h>

#include "cairn/export.h"
#include "cairn/version.h"

#ifdef __cplusplus
extern "C" {
#endif
CAIRN_API_BEGIN

typedef enum {
  CAIRN_OK = 0,
  CAIRN_NOT_FOUND = -1,
  CAIRN_CORRUPTION = -2,
  CAIRN_INVALID_ARGUMENT = -3,
  CAIRN_IO_ERROR = -4,
  CAIRN_NOT_SUPPORTED = -5,
  CAIRN_ABORTED = -6
} cairn_code;

typedef struct cairn_store cairn_store_t;

/* Open options; cairn_options_init fills the documented defaults
 * (see include/cairn/options.h for the meaning of each). Members are only
 * ever appended. A value refused on any rank, such as a byte size of 2^63
 * or more (what a negative int64_t becomes), is CAIRN_INVALID_ARGUMENT
 * from cairn_open on every rank, naming the option. */
typedef struct {
  /* sizeof(cairn_options_t) as the caller was compiled, set by
   * cairn_options_init: a later library reads only the members the caller
   * knows (the others keep their defaults). A struct not filled by
   * cairn_options_init (0 here), or from a newer cairn.h than the library,
   * is CAIRN_INVALID_ARGUMENT. */
  size_t struct_size;
  int create_if_missing;
  int error_if_exists;
  int read_only;
  uint64_t revision;
  uint64_t extent_size;
  uint64_t chunk_size;
  size_t write_buffer_size;
  size_t inline_value_limit;
  size_t compact_index_limit;
  int subfiles;
  int sync;
  uint64_t staging_bytes;
  uint64_t keep_revisions; /* 0: keep all (see Options::keep_revisions) */
  double collective_timeout_s; /* 0: wait forever (see Options::collective_timeout_s) */
  uint64_t writeback_bytes; /* 0: off (see Options::writeback_bytes) */
  /* Options::require_writer_lock (default 1): a read-write open takes the
   * store's writer lock, and fails with CAIRN_NOT_SUPPORTED where the file
   * system cannot lock (Lustre without -o flock, some NFS). 0: such an open
   * warns on stderr and writes unprotected; the caller must make sure no
   * other job writes the store. A caller built against a cairn.h without
   * this member gets the default. */
  int require_writer_lock;
} cairn_options_t;

/* Fills the documented defaults into the first `size` bytes of *opts (the
 * caller's sizeof(cairn_options_t)) and sets struct_size to `size`: the
 * library never writes past what the caller was compiled with. NULL, a
 * size below sizeof(size_t) or above 4096 (no cairn.h struct is that
 * large: a garbage size): nothing written, so the struct keeps whatever
 * struct_size it held (cairn_open refuses it unless that happens to be a
 * size of a cairn.h). Called by the cairn_options_init
 * macro below; take this function's address, or bind it by name from
 * another language (ctypes, cffi, bindgen), rather than
 * cairn_options_init's. */
void cairn_options_init_sized(cairn_options_t* opts, size_t size);
/* The entry point that programs built against a cairn.h before
 * require_writer_lock call: fills the members before it, and struct_size
 * to their size (such a program's struct ends there), so a
 * require_writer_lock set after it is not read. This header routes each
 * call cairn_options_init(opts) to cairn_options_init_sized(opts,
 * sizeof(cairn_options_t)) instead. Before a member is appended to any
 * options struct of this header, its init gets the same pair (a sized
 * function, and the old name filling only the old members). */
void cairn_options_init(cairn_options_t* opts);
#define cairn_options_init(opts) cairn_options_init_sized((opts), sizeof(cairn_options_t))

/* Tag types (the values of cairn::TagType); OR with CAIRN_TAG_ARRAY for an
 * array of a numeric type. */
enum {
  CAIRN_TAG_INT8 = 1, CAIRN_TAG_INT16 = 2, CAIRN_TAG_INT32 = 3, CAIRN_TAG_INT64 = 4,
  CAIRN_TAG_UINT8 = 5, CAIRN_TAG_UINT16 = 6, CAIRN_TAG_UINT32 = 7, CAIRN_TAG_UINT64 = 8,
  CAIRN_TAG_FLOAT32 = 9, CAIRN_TAG_FLOAT64 = 10, CAIRN_TAG_STRING = 11, CAIRN_TAG_BYTES = 12,
  CAIRN_TAG_ARRAY = 0x40
};

/* One tag. The number is read from the member its type names: i for the
 * signed types (CAIRN_TAG_INT8 .. _INT64), u for the unsigned ones, d for
 * the floats; a number given only in another member (a CAIRN_TAG_UINT32
 * with i = 5 and u = 0) is CAIRN_INVALID_ARGUMENT naming the member to set.
 * For strings, bytes and arrays set data/len (len in bytes; arrays are
 * packed little-endian elements). Borrowed: cairn copies what it needs. An
 * array element both ways: never grows (see the top of this file). */
typedef struct {
  const char* name;
  int type;
  int64_t i;
  uint64_t u;
  double d;
  const void* data;
  size_t len;
} cairn_tag_t;

/* The message of the last failed call on this thread ("" if none). */
const char* cairn_last_error(void);

/* Collective. Opens the store at `path` over `comm`. opts may be NULL. A
 * NULL path or store, or an options struct refused (see struct_size), on
 * some ranks only is CAIRN_INVALID_ARGUMENT on every rank (that rank still
 * takes part, so none is left waiting); the other ranks' message is
 * "rank R: " and that rank's own cause (R the lowest such rank).
 * Any number of ranks may open a revision written by another number, read-
 * only or read-write (Options::read_only in cairn/options.h): every
 * namespace of the revision stays readable by rank number, and after a
 * read-write open on M ranks the next commit has M namespaces: objects of
 * namespaces M.. are not carried (read them and put them first), and an
 * array with blocks there must be put again or deleted, or that commit
 * fails with CAIRN_INVALID_ARGUMENT naming it (the other puts stay
 * pending). On a read-only store every write call (put, delete, commit,
 * pin, ...) returns CAIRN_INVALID_ARGUMENT. A rank number that names no
 * namespace of the revision (cairn_get, cairn_list, cairn_query ...) is
 * CAIRN_INVALID_ARGUMENT, and cairn_last_error() names the function and
 * the ranks it accepts; a missing key, array or tag is CAIRN_NOT_FOUND. */
int cairn_open(const char* path, MPI_Comm comm, const cairn_options_t* opts, cairn_store_t** store);
/* The same with a Fortran communicator handle (MPI_Fint). */
int cairn_open_f(const char* path, MPI_Fint comm, const cairn_options_t* opts, cairn_store_t** store);
/* Collective, for wrappers and bindings: on a rank whose own arguments to
 * cairn_open were refused before the call (by the wrapper's checks), takes
 * part in the cairn_open the other ranks of `comm` make at `path`, so that
 * none of them waits for this one. Nothing is opened or created; every
 * rank's cairn_open fails with the lowest refusing rank's code and
 * "rank R: " + its cause (here CAIRN_INVALID_ARGUMENT and `why`; a NULL or
 * empty `why` reads as "an open refused without a cause"). Returns
 * CAIRN_INVALID_ARGUMENT, with cairn_last_error() = "InvalidArgument: " +
 * `why`. A NULL `path` reads as "". MPI_COMM_NULL, an inter-communicator
 * or MPI not initialized: returns at once, and the others wait (as for any
 * collective a rank leaves). `collective_timeout_s` is the options' field
 * for this rank's part (0: wait for ever). */
int cairn_open_refused(const char* path, MPI_Comm comm, const char* why, double collective_timeout_s);
/* The same with a Fortran communicator handle (MPI_Fint). */
int cairn_open_refused_f(const char* path, MPI_Fint comm, const char* why, double collective_timeout_s);
/* Local. Opens the store for this process alone (one rank: cairn_rank 0,
 * cairn_size 1), whether or not MPI is initialized: no MPI call is made if
 * it is not (a serial tool or test needs no MPI_Init). The collective
 * calls are then local. See the single-process Store::Open. */
int cairn_open_local(const char* path, const cairn_options_t* opts, cairn_store_t** store);
/* Collective. Closes and frees the store; pending changes are discarded.
 * Its streams still open stay valid handles, but every call on them then
 * fails with CAIRN_INVALID_ARGUMENT ("store ... is closed"; a writer's data
 * is not committed); cairn_stream_close still frees them. The handle is
 * freed: a C caller must not pass it again (set it to NULL; the Fortran
 * cairn_close does). NULL is accepted (CAIRN_OK, nothing done).
 * Every function taking a store refuses a NULL one with
 * CAIRN_INVALID_ARGUMENT and "<function>: NULL store handle (not opened,
 * or the store was closed)" (cairn_rank, cairn_size, cairn_writer_ranks
 * return -1, cairn_revision 0). */
int cairn_close(cairn_store_t* store);

/* Local. The caller's rank and the number of ranks (-1 for a NULL store). */
int cairn_rank(const cairn_store_t* store);
int cairn_size(const cairn_store_t* store);
/* The revision the store shows (0: none yet). */
uint64_t cairn_revision(const cairn_store_t* store);

/* Local. Stores value[0..len) under key (NUL-terminated) with ntags tags. */
int cairn_put(cairn_store_t* store, const char* key, const void* value, size_t len,
              const cairn_tag_t* tags, size_t ntags);
/* Local. Removes key. */
int cairn_delete(cairn_store_t* store, const char* key);
/* Local. As cairn_put, but with Options::staging_bytes > 0 (asynchronous
 * commits) the value is not copied into staging: the caller must not modify
 * or free value[0..len) until the commit that includes it has finished
 * (cairn_async_test done, cairn_async_wait, cairn_commit or cairn_flush
 * returned). Bytes changed before then are written as changed but were
 * checksummed as put: reads of that revision report CAIRN_CORRUPTION for
 * the key, never the changed bytes as data. Without staging it is
 * cairn_put (the buffer may be reused at once). See Store::PutZeroCopy. */
int cairn_put_zero_copy(cairn_store_t* store, const char* key, const void* value, size_t len,
                        const cairn_tag_t* tags, size_t ntags);
/* Local. *size = value size of key in namespace `rank` (-1: own). */
int cairn_get_size(cairn_store_t* store, const char* key, int rank, uint64_t* size);
/* Local. Reads len bytes at offset of key's value (namespace `rank`, -1: own) into buf. */
int cairn_get_range(cairn_store_t* store, const char* key, int rank, uint64_t offset,
                    void* buf, uint64_t len);
/* Local. Reads the whole value into buf of capacity cap; *size gets the value
 * size. CAIRN_INVALID_ARGUMENT if cap is too small (then *size says how much). */
int cairn_get(cairn_store_t* store, const char* key, int rank, void* buf, size_t cap,
              uint64_t* size);

/* One value of a cairn_multi_get: the caller fills key, data and capacity;
 * cairn fills size (the value's size, also when it did not fit; 0 when the
 * call was refused) and code (CAIRN_OK or this key's error). An element
 * of the caller's array: never grows (see the top of this file). */
typedef struct {
  const char* key;    /* NUL-terminated */
  void* data;         /* at least `capacity` writable bytes (NULL if 0) */
  uint64_t capacity;
  uint64_t size;      /* out */
  int code;           /* out */
} cairn_read_t;

/* Local. Reads n values of namespace `rank` (-1: own) in one call, each
 * straight into its buffer (and verified there): the byte ranges are sorted
 * and merged into few large reads, so many small values cost few requests
 * (Store::MultiGet). A value larger than its capacity is
 * CAIRN_INVALID_ARGUMENT for that key and nothing is written to its buffer;
 * where a read failed (corruption, I/O error) the first `size` bytes of its
 * buffer are zeroed, never left as data. Returns the first non-OK code of
 * the n reads (cairn_last_error names it), or CAIRN_OK. The buffers must
 * not overlap ([data, data + capacity) of each; the same key twice needs two
 * buffers). A refused call (a NULL key, a NULL data with a capacity,
 * overlapping buffers, a rank that names no namespace) reads nothing and sets
 * every read's code to its error. n = 0 does nothing and returns CAIRN_OK. */
int cairn_multi_get(cairn_store_t* store, int rank, cairn_read_t* reads, size_t n);
/* How cairn_multi_get merges byte ranges into reads (cairn::ReadOptions);
 * cairn_read_options_init fills the defaults. Members are only ever
 * appended. */
typedef struct {
  /* sizeof(cairn_read_options_t) as the caller was compiled, set by
   * cairn_read_options_init (as cairn_options_t::struct_size). */
  size_t struct_size;
  uint64_t gap_limit;            /* merge ranges at most this far apart (4 MiB) */
  uint64_t max_block;            /* no merged read larger than this (64 MiB) */
  double max_read_amplification; /* nor reading more than this x the bytes asked
                                    for in it (2; < 1: only ranges that touch) */
} cairn_read_options_t;
/* Any thread. Fills opts with the defaults. */
void cairn_read_options_init(cairn_read_options_t* opts);
/* Local. cairn_multi_get with read options (opts NULL: the defaults); the
 * same results, and CAIRN_INVALID_ARGUMENT for every read when opts is not
 * filled by cairn_read_options_init. */
int cairn_multi_get_opts(cairn_store_t* store, int rank, cairn_read_t* reads, size_t n,
                         const cairn_read_options_t* opts);
/* Rank 0 only: stores a shared object. */
int cairn_put_shared(cairn_store_t* store, const char* key, const void* value, size_t len);
/* Rank 0 only: cairn_put_shared with ntags tags (read them with
 * cairn_get_tags(..., CAIRN_RANK_SHARED, ...)). */
int cairn_put_shared_tags(cairn_store_t* store, const char* key, const void* value, size_t len,
                          const cairn_tag_t* tags, size_t ntags);
/* Collective: reads a shared object into buf (capacity cap); *size gets its size. */
int cairn_get_shared(cairn_store_t* store, const char* key, void* buf, size_t cap,
                     uint64_t* size);
/* Collective: commits a revision; *revision (may be NULL) gets its number. */
int cairn_commit(cairn_store_t* store, uint64_t* revision);
/* Collective: protects revision `rev` from keep_revisions and drop until
 * cairn_unpin (Store::Pin). */
int cairn_pin(cairn_store_t* store, uint64_t rev);
/* Collective: removes the pin of `rev`; ok if it has none (Store::Unpin). */
int cairn_unpin(cairn_store_t* store, uint64_t rev);
/* Collective: removes revision `rev` for good; its space is reused by later
 * commits. Fails for a pinned revision and for the one the store is open at
 * (Store::Drop). */
int cairn_drop(cairn_store_t* store, uint64_t rev);

/* ---- Asynchronous commits (see cairn::Store::CommitAsync) ---- */

typedef struct cairn_async cairn_async_t;

/* Collective. Starts a commit of every rank's changes and returns once the
 * values put so far are captured; the commit finishes in the background.
 * *handle is freed with cairn_async_free (it may outlive the store). A NULL
 * handle (with a valid store) is CAIRN_INVALID_ARGUMENT after taking part:
 * the commit is made, and waited for, as the other ranks make it. */
int cairn_commit_async(cairn_store_t* store, cairn_async_t** handle);
/* Local, never blocks: moves the commit on; *done = 1 once it finished.
 * Returns the commit's error once it finished and failed. */
int cairn_async_test(cairn_async_t* handle, int* done);
/* Blocks until the commit finished; *revision (may be NULL) on success. */
int cairn_async_wait(cairn_async_t* handle, uint64_t* revision);
/* Frees a handle (the commit goes on; the store's close waits for it). */
void cairn_async_free(cairn_async_t* handle);
/* Local, never blocks, moves nothing on. The revision number the commit
 * makes, known as soon as cairn_commit_async returned (0 for a NULL
 * handle); AsyncCommit::revision. */
uint64_t cairn_async_revision(const cairn_async_t* handle);
/* Local, never blocks, moves nothing on: 1 once the commit has finished
 * and its revision is committed (durable), else 0 (still running, failed,
 * or a NULL handle); AsyncCommit::committed. cairn_async_test moves it on. */
int cairn_async_committed(const cairn_async_t* handle);
/* Local write barrier: what this rank put is written and fsynced, without
 * a revision (see cairn::Store::Flush). */
int cairn_flush(cairn_store_t* store);

/* ---- I/O counters (cairn::IoStats, include/cairn/store.h) ---- */

/* What this rank's handle did through the store since it opened. Metadata
 * operations are file-system calls that touch the namespace or force
 * durability. Filled by size (cairn_stats): members are only ever
 * appended, all uint64_t (see the top of this file). */
typedef struct {
  uint64_t read_requests, read_bytes, write_requests, write_bytes;
  uint64_t opens;    /* open() calls, creating or not */
  uint64_t creates;  /* of which created a file */
  uint64_t mkdirs;
  uint64_t stats;    /* stat/fstat */
  uint64_t fsyncs;   /* fsync/fdatasync, files and directories */
  uint64_t renames, unlinks, truncates;
  /* Background writes (staging_bytes > 0): how often, and for how long in
   * total, a put waited because the staging memory was full. */
  uint64_t staging_stalls, staging_stall_ns;
  /* Commits: index bytes rank 0 received (0 elsewhere); namespaces whose
   * table was reused unchanged; tables written in pieces without a copy. */
  uint64_t index_bytes_gathered, index_tables_reused, index_tables_streamed;
  /* Early writeback requests (writeback_bytes). */
  uint64_t writeback_requests;
  /* Bytes of read_bytes read past the page cache (0 unless the
   * environment sets CAIRN_DIRECT_READ_BYTES; cairn::IoStats). */
  uint64_t direct_read_bytes;
} cairn_io_stats_t;

/* Local. Fills the first stats_size bytes of *stats (pass
 * sizeof(cairn_io_stats_t): a program built against an older cairn.h gets
 * the members it knows; one built against a newer cairn.h gets 0 in the
 * members this library does not know) with this rank's counters
 * (Store::stats).
 * CAIRN_INVALID_ARGUMENT for a NULL argument or a stats_size that is 0,
 * not a multiple of 8 or above 4096 (nothing written). */
int cairn_stats(const cairn_store_t* store, cairn_io_stats_t* stats, size_t stats_size);

/* ---- Streams (see include/cairn/stream.h) ---- */

typedef struct cairn_stream cairn_stream_t;
enum { CAIRN_SEEK_SET = 0, CAIRN_SEEK_CUR = 1, CAIRN_SEEK_END = 2 };

/* Local. Opens a stream that becomes object `key` of the caller's
 * namespace, with the tags, when closed (commits made before hold the key's
 * previous object; see cairn::Store::OpenWriteStream). CAIRN_INVALID_ARGUMENT
 * if a write stream of `key` is already open on this rank. */
int cairn_stream_open_write(cairn_store_t* store, const char* key, const cairn_tag_t* tags,
                            size_t ntags, cairn_stream_t** stream);
/* Local. Opens object `key` of namespace `rank` (-1: own) for reading. */
int cairn_stream_open_read(cairn_store_t* store, const char* key, int rank, cairn_stream_t** stream);
/* Writes len bytes at the position (overwriting or extending). */
int cairn_stream_write(cairn_stream_t* stream, const void* data, size_t len);
/* Reads up to len bytes from the position; *got < len only at the end. */
int cairn_stream_read(cairn_stream_t* stream, void* buf, size_t len, size_t* got);
/* Readers: reads exactly len bytes at offset into buf without moving the
 * position (StreamReader::ReadAt); CAIRN_INVALID_ARGUMENT if the range
 * passes the end (nothing read) or the stream is a writer. */
int cairn_stream_read_at(cairn_stream_t* stream, uint64_t offset, void* buf, size_t len);
/* Moves the position (whence: CAIRN_SEEK_SET, _CUR or _END). A reader
 * cannot pass the end; a writer can (the gap reads as zeros, and is written
 * out as zeros by the next write: it takes its size on disk; a gap larger
 * than the file system's free space makes that write CAIRN_IO_ERROR,
 * nothing written; see StreamWriter::Write). */
int cairn_stream_seek(cairn_stream_t* stream, int64_t offset, int whence);
int cairn_stream_tell(const cairn_stream_t* stream, uint64_t* pos);
int cairn_stream_size(const cairn_stream_t* stream, uint64_t* size);
/* Writers: hands gathered bytes to the store (not durable). */
int cairn_stream_flush(cairn_stream_t* stream);
/* Ends the stream and frees the handle. For a writer the object is then
 * pending for the next commit; the return value says whether it was. */
int cairn_stream_close(cairn_stream_t* stream);

/* ---- Version, errors and memory ---- */

/* Local. The version of the library linked at run time (CAIRN_VERSION_*
 * in cairn/version.h are the headers'); any pointer may be NULL. Returns
 * the version string, e.g. "0.1.0" (static, never freed). */
const char* cairn_version(int* major, int* minor, int* patch);
/* The name of a code: "OK", "NotFound", "Corruption", "InvalidArgument",
 * "IOError", "NotSupported", "Aborted"; "Unknown" for anything else.
 * Static strings; any thread. */
const char* cairn_code_name(int code);
/* Frees a block returned by cairn_get_tags, cairn_get_tag, cairn_list,
 * cairn_query, cairn_query_all, cairn_list_revisions, cairn_array_info,
 * cairn_array_blocks, cairn_list_arrays or cairn_query_arrays. NULL is
 * ignored. Any thread. */
void cairn_free(void* block);

/* The `rank` argument of the reads: the caller's namespace, or the shared
 * one (rank 0's cairn_put_shared). 0..size-1 name a rank of the revision. */
enum { CAIRN_RANK_OWN = -1, CAIRN_RANK_SHARED = -2 };

/* ---- Tags ---- */

/* Local. Sets (adds or replaces) one tag of `key` in the caller's
 * namespace; the value is not rewritten. Pending until the next commit. */
int cairn_set_tag(cairn_store_t* store, const char* key, const cairn_tag_t* tag);
/* Local. Replaces all tags of `key` in the caller's namespace by the ntags
 * given (0: removes them all); the value is not rewritten. Pending until the
 * next commit. CAIRN_NOT_FOUND if there is no object `key`;
 * CAIRN_INVALID_ARGUMENT for an empty or repeated tag name. */
int cairn_set_tags(cairn_store_t* store, const char* key, const cairn_tag_t* tags, size_t ntags);
/* Local. Removes tag `name` of `key` in the caller's namespace; the value is
 * not rewritten. CAIRN_NOT_FOUND if the object or the tag is absent. */
int cairn_delete_tag(cairn_store_t* store, const char* key, const char* name);
/* Tags of objects only: a global array's tags are not read here (an array
 * name is not a key: CAIRN_NOT_FOUND) but by cairn_array_info (its tags and
 * ntags), and queried by cairn_query_arrays. */
/* Local. The tags of `key` in namespace `rank`: *tags gets an array of
 * *ntags tags (NULL when 0), in the order they were written. Integers have
 * both i and u set (the same bits), floats d; strings, bytes and arrays
 * point data/len into the block (strings also NUL-terminated). Free *tags
 * with cairn_free. */
int cairn_get_tags(cairn_store_t* store, const char* key, int rank, cairn_tag_t** tags,
                   size_t* ntags);
/* Local. The tag `name` of `key` (namespace `rank`), as one cairn_tag_t
 * freed with cairn_free; CAIRN_NOT_FOUND if the object has no such tag. */
int cairn_get_tag(cairn_store_t* store, const char* key, int rank, const char* name,
                  cairn_tag_t** tag);

/* ---- Listing keys ---- */

/* One object of a namespace, as cairn_list returns it. key is
 * NUL-terminated and key_len long (keys are bytes: a key may hold NULs).
 * An array element: never grows (see the top of this file). */
typedef struct {
  const char* key;
  size_t key_len;
  uint64_t size;      /* value size in bytes */
  int inlined;        /* 1: the value is stored inline in the index */
  const cairn_tag_t* tags;
  size_t ntags;
} cairn_object_t;

/* Local. Every object of namespace `rank` in key order, with sizes and
 * tags: *objects gets *nobjects entries (NULL when 0), one block freed with
 * cairn_free. Shows the revision the store is open at plus this rank's
 * pending changes (for its own namespace). */
int cairn_list(cairn_store_t* store, int rank, cairn_object_t** objects, size_t* nobjects);

/* ---- Queries by tag (see cairn::TagQuery) ---- */

enum {
  CAIRN_QUERY_EXISTS = 0,   /* the object has a tag `name` */
  CAIRN_QUERY_EQUAL = 1,    /* ... equal to value */
  CAIRN_QUERY_RANGE = 2,    /* ... within [value, upper] */
  CAIRN_QUERY_PREFIX = 3,   /* ... a string/bytes starting with value.data */
  CAIRN_QUERY_WILDCARD = 4  /* ... a string/bytes matching value.data (* and ?) */
};
/* One condition. value and upper are tags whose name is ignored. Numbers
 * compare by value whatever their type and width. A range's value and
 * upper are both numbers or both strings/bytes, and a prefix or wildcard
 * value has type CAIRN_TAG_STRING, CAIRN_TAG_BYTES or 0: any other
 * condition (an int lower bound with a string upper one, a prefix given
 * an int) is refused with CAIRN_INVALID_ARGUMENT naming it, rather than
 * matching nothing. An element of the
 * caller's array: never grows (see the top of this file). */
typedef struct {
  const char* name;
  int op;
  cairn_tag_t value;
  cairn_tag_t upper;
} cairn_query_t;

/* One query result: the namespace (rank, or CAIRN_RANK_SHARED) and key.
 * An array element: never grows (see the top of this file). */
typedef struct {
  int rank;
  const char* key;
  size_t key_len;
} cairn_hit_t;

/* Local. The keys (in key order) of namespace `rank` whose objects meet
 * every one of the nconds conditions (none: every object). *hits gets *nhits
 * entries, one block freed with cairn_free. */
int cairn_query(cairn_store_t* store, const cairn_query_t* conds, size_t nconds, int rank,
                cairn_hit_t** hits, size_t* nhits);
/* Collective. Runs cairn_query over every namespace of the view and gives
 * every rank the union, ordered by rank then key (freed with cairn_free).
 * A writable store queries each rank's own namespace (with its uncommitted
 * changes) and, after an open on fewer ranks than wrote the revision, the
 * namespaces no rank owns (rank r takes r + size, r + 2 size, ...); a
 * read-only one covers every namespace of the revision on any number of
 * ranks (Store::QueryAll). */
int cairn_query_all(cairn_store_t* store, const cairn_query_t* conds, size_t nconds,
                    cairn_hit_t** hits, size_t* nhits);

/* ---- Revisions ---- */

/* One retained revision, as cairn_list_revisions returns it. An array
 * element: never grows (see the top of this file). */
typedef struct {
  uint64_t revision;
  uint64_t parent;      /* the revision it was built on (0: none) */
  uint64_t time_ns;     /* commit time, ns since the Unix epoch */
  uint32_t ranks;       /* how many ranks wrote it */
  uint64_t objects;     /* objects over all namespaces, the store's own
                           array objects (one per block, one per array)
                           included */
  uint64_t value_bytes; /* sum of value sizes (the same objects) */
  uint64_t index_bytes;
  int pinned;           /* 1: protected from keep_revisions and drop */
} cairn_revision_info_t;

/* Local. The retained revisions, oldest first (as this handle knows them:
 * read at open, updated by its commits, pins, unpins and drops). *revisions
 * gets *nrevisions entries (NULL when 0), freed with cairn_free. */
int cairn_list_revisions(cairn_store_t* store, cairn_revision_info_t** revisions,
                         size_t* nrevisions);
/* Local. *ranks = how many ranks wrote revision `rev` (0: the revision the
 * store is open at; *ranks = 0 if it has none yet). CAIRN_NOT_FOUND if
 * `rev` is not retained. A restart on another rank count reads this
 * instead of probing rank by rank. */
int cairn_revision_ranks(cairn_store_t* store, uint64_t rev, uint32_t* ranks);

/* Local. How many ranks wrote the revision the store shows: its
 * namespaces are 0 .. cairn_writer_ranks()-1, each readable by any rank.
 * It differs from cairn_size after a restart on another rank count; for a
 * store with no revision yet it is cairn_size. -1 for a NULL store. */
int cairn_writer_ranks(const cairn_store_t* store);

/* ---- Global arrays (see include/cairn/array.h) ----
 *
 * A typed N-d array every rank puts blocks of (several or none) and any
 * rank of any later job reads any sub-box of, whatever the rank counts.
 * Shapes, starts and counts are arrays of ndims uint64_t, 0-based. In
 * CAIRN_ROW_MAJOR order the last index varies fastest; a Fortran caller
 * passes CAIRN_COLUMN_MAJOR, and its shape, start and count (first index
 * fastest) are then taken in reverse: what a Fortran code writes as
 * a(nx, ny) a C code reads as a[ny][nx]. */

/* Element types (the values of cairn::DType, the numeric tag codes). */
enum {
  CAIRN_INT8 = 1, CAIRN_INT16 = 2, CAIRN_INT32 = 3, CAIRN_INT64 = 4,
  CAIRN_UINT8 = 5, CAIRN_UINT16 = 6, CAIRN_UINT32 = 7, CAIRN_UINT64 = 8,
  CAIRN_FLOAT32 = 9, CAIRN_FLOAT64 = 10
};
/* Flags of the array calls: the element order of the caller's indices and
 * buffer (one of the first two), and for cairn_put_array, optionally
 * CAIRN_ARRAY_STATISTICS: record each block's minimum and maximum (costs a
 * pass over the data; off by default). */
enum { CAIRN_ROW_MAJOR = 0, CAIRN_COLUMN_MAJOR = 1, CAIRN_ARRAY_STATISTICS = 0x100 };
/* The most dimensions an array may have (cairn::kMaxArrayDims). */
#define CAIRN_MAX_ARRAY_DIMS 16

/* Any thread. Bytes per element of dtype (0 if it is not a CAIRN_INT8 ..
 * CAIRN_FLOAT64 code); its NumPy name ("int8" ... "float64", "?" for an
 * unknown code; static). */
size_t cairn_dtype_size(int dtype);
const char* cairn_dtype_name(int dtype);

/* Local. Puts one block of array `name`: the box of count[] elements at
 * start[] of an array of global_shape[] (ndims each) and type dtype; data
 * holds prod(count) elements, dense, in the order flags give. data is
 * copied (or written) before the call returns; tags are the array's (where
 * two ranks give the same tag name, the lowest rank's value is kept). The
 * first put of an array since the last commit, on any rank, starts it
 * anew: the next revision holds exactly the blocks put since then.
 * CAIRN_INVALID_ARGUMENT (nothing stored) for a bad name, dtype, ndims or
 * box, or a dtype or shape that differs from this rank's earlier put; the
 * next cairn_commit fails on every rank if ranks disagree or blocks
 * overlap (Store::PutArray). */
int cairn_put_array(cairn_store_t* store, const char* name, int dtype, int ndims,
                    const uint64_t* global_shape, const uint64_t* start, const uint64_t* count,
                    const void* data, int flags, const cairn_tag_t* tags, size_t ntags);
/* Options of cairn_put_array_opts (cairn::ArrayPutOptions);
 * cairn_array_put_options_init fills the defaults. Fields are only ever
 * appended. */
typedef struct {
  /* sizeof(cairn_array_put_options_t) as the caller was compiled, set by
   * cairn_array_put_options_init (as cairn_options_t::struct_size). */
  size_t struct_size;
  /* As cairn_put_array's flags: CAIRN_ROW_MAJOR (0) or CAIRN_COLUMN_MAJOR,
   * optionally | CAIRN_ARRAY_STATISTICS. Default 0. */
  int flags;
  /* ArrayPutOptions::checksum_grain: the block is checksummed in pieces cut
   * at the data file's multiples of this many bytes, so a read of a sub-box
   * reads and verifies only the pieces holding it. A multiple of 4096 (else
   * CAIRN_INVALID_ARGUMENT, nothing stored), or 0 for the store's
   * chunk_size. Default 4096. */
  uint64_t checksum_grain;
} cairn_array_put_options_t;

/* Any thread. Fills opts with the defaults (flags 0, checksum_grain 4096). */
void cairn_array_put_options_init(cairn_array_put_options_t* opts);

/* Local. cairn_put_array with options (opts NULL: the defaults); the same
 * errors, and CAIRN_INVALID_ARGUMENT for a bad checksum_grain. */
int cairn_put_array_opts(cairn_store_t* store, const char* name, int dtype, int ndims,
                         const uint64_t* global_shape, const uint64_t* start, const uint64_t* count,
                         const void* data, const cairn_array_put_options_t* opts, const cairn_tag_t* tags,
                         size_t ntags);
/* Local. Reads the box (start, count; ndims each, in the order flags give)
 * of array `name`, as the store's revision holds it, into out: prod(count)
 * elements, dense, in that order; cap is out's size in bytes. Any rank,
 * any rank count. Only the bytes the box needs are read and verified;
 * elements no block covers read as zero. CAIRN_NOT_FOUND without such an
 * array; CAIRN_INVALID_ARGUMENT if ndims differs from the array's, the box
 * passes its shape, or cap is below prod(count) x cairn_dtype_size (nothing
 * is read then). */
int cairn_get_array(cairn_store_t* store, const char* name, int ndims, const uint64_t* start,
                    const uint64_t* count, void* out, size_t cap, int flags);
/* Options of cairn_get_array_opts (cairn::ArrayReadOptions);
 * cairn_array_read_options_init fills the defaults. Members are only ever
 * appended. */
typedef struct {
  /* sizeof(cairn_array_read_options_t) as the caller was compiled, set by
   * cairn_array_read_options_init (as cairn_options_t::struct_size). */
  size_t struct_size;
  /* As cairn_get_array's flags: CAIRN_ROW_MAJOR (0, the default) or
   * CAIRN_COLUMN_MAJOR. */
  int flags;
  /* Byte runs of one block whose gap is at most this many bytes are read
   * in one request, the gap read and discarded. Default 65536. */
  uint64_t gap_limit;
} cairn_array_read_options_t;

/* Any thread. Fills opts with the defaults. */
void cairn_array_read_options_init(cairn_array_read_options_t* opts);
/* Local. cairn_get_array with options (opts NULL: the defaults); the same
 * errors, and CAIRN_INVALID_ARGUMENT for opts not filled by
 * cairn_array_read_options_init. */
int cairn_get_array_opts(cairn_store_t* store, const char* name, int ndims, const uint64_t* start,
                         const uint64_t* count, void* out, size_t cap, const cairn_array_read_options_t* opts);

/* What this handle's array reads did since it opened
 * (cairn::ArrayReadStats): the planning cost and the bytes moved. Filled
 * by size (cairn_array_read_stats): members are only ever appended, all
 * uint64_t (see the top of this file). */
typedef struct {
  uint64_t calls;
  uint64_t blocks_examined; /* blocks the overlap index looked at */
  uint64_t blocks_read;     /* blocks that overlapped a box */
  uint64_t runs;            /* contiguous byte runs planned */
  uint64_t requests;        /* read calls to the file system (inline blocks: one per run) */
  uint64_t bytes_wanted;    /* bytes of the boxes that blocks cover */
  uint64_t bytes_read;      /* bytes read: whole checksum grains, and gaps joining them */
  uint64_t index_nodes;     /* nodes of the irregular blocks' overlap tree tested */
  uint64_t blocks_decoded;  /* blocks whose chunk list was decoded */
} cairn_array_read_stats_t;

/* Local. Fills the first stats_size bytes of *stats (pass
 * sizeof(cairn_array_read_stats_t)) as cairn_stats does
 * (Store::array_read_stats). */
int cairn_array_read_stats(const cairn_store_t* store, cairn_array_read_stats_t* stats, size_t stats_size);

/* Local. The array `name` is absent from the next revision. CAIRN_NOT_FOUND
 * if the store's revision has none and none was put since. */
int cairn_delete_array(cairn_store_t* store, const char* name);

/* One block of an array: the namespace (writer rank) holding it, and its
 * start and count (ndims each, row-major). An array element: never grows
 * (see the top of this file). */
typedef struct {
  int rank;
  const uint64_t* start;
  const uint64_t* count;
} cairn_array_block_t;

/* What the store's revision holds of one array. Shape and block indices
 * are row-major (reverse them for Fortran order). An element of
 * cairn_list_arrays' array: never grows (see the top of this file). */
typedef struct {
  const char* name;        /* NUL-terminated, name_len bytes */
  size_t name_len;
  int dtype;               /* CAIRN_INT8 .. CAIRN_FLOAT64 */
  int ndims;
  const uint64_t* shape;   /* ndims entries */
  uint64_t elements;       /* product of shape */
  uint64_t block_count;
  int regular;             /* 1: a regular grid of blocks, stored in O(1) */
  const cairn_tag_t* tags;
  size_t ntags;
  const cairn_array_block_t* blocks; /* with_blocks: block_count entries; else NULL */
} cairn_array_info_t;

/* Local. Dtype, shape, tags and block count of array `name` (with
 * with_blocks != 0, every block too: O(blocks) memory). *info gets one
 * block freed with cairn_free. CAIRN_NOT_FOUND without such an array. */
int cairn_array_info(cairn_store_t* store, const char* name, int with_blocks,
                     cairn_array_info_t** info);
/* One block of an array with its statistics, as cairn_array_blocks returns
 * it. Its own struct, not members appended to cairn_array_block_t: a caller
 * steps through an array of those with the sizeof it was compiled with, so
 * an element struct never grows (a later cairn.h adds a new call instead). */
typedef struct {
  int rank;               /* the namespace (writer rank) holding it */
  int ndims;
  const uint64_t* start;  /* ndims entries, row-major */
  const uint64_t* count;  /* ndims entries, row-major */
  int has_statistics;     /* 1: put with CAIRN_ARRAY_STATISTICS */
  double min, max;        /* its smallest and largest element when
                             has_statistics (NaNs skipped; 64-bit integers
                             rounded to the nearest double); else 0 */
} cairn_array_block_info_t;

/* Local. Every block of array `name` as the store's revision holds it,
 * with the minimum and maximum recorded by a put with
 * CAIRN_ARRAY_STATISTICS (ArrayInfo::blocks of Store::GetArrayInfo):
 * *blocks gets *nblocks entries (NULL when 0), one block freed with
 * cairn_free; O(blocks) memory. CAIRN_NOT_FOUND without such an array. */
int cairn_array_blocks(cairn_store_t* store, const char* name, cairn_array_block_info_t** blocks,
                       size_t* nblocks);
/* Local. Every array of the store's revision in name order (blocks NULL):
 * *arrays gets *narrays entries (NULL when 0), one block freed with
 * cairn_free. */
int cairn_list_arrays(cairn_store_t* store, cairn_array_info_t** arrays, size_t* narrays);
/* One name, as cairn_query_arrays returns it. An array element: never
 * grows (see the top of this file). */
typedef struct {
  const char* name;  /* NUL-terminated, name_len bytes */
  size_t name_len;
} cairn_name_t;
/* Local. The names, in name order, of the arrays whose tags meet every one
 * of the nconds conditions (none: every array). *names gets *nnames
 * entries (NULL when 0), one block freed with cairn_free. */
int cairn_query_arrays(cairn_store_t* store, const cairn_query_t* conds, size_t nconds,
                       cairn_name_t** names, size_t* nnames);

CAIRN_API_END
#ifdef __cplusplus
}
#endif

#endif /* CAIRN_CAIRN_H_ */
