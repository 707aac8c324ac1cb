/* cairn C API: the C++ Store for C and (through ISO_C_BINDING) Fortran.
 *
 * Every function returns CAIRN_OK (0) or a negative cairn_code; the message
 * of the last failure on the calling thread is cairn_last_error(). No
 * function aborts the process. Collective functions (cairn_open, cairn_commit,
 * cairn_get_shared, cairn_pin, cairn_unpin, cairn_drop, cairn_close) must be
 * called by every rank of the communicator. */
#ifndef CAIRN_CAIRN_H_
#define CAIRN_CAIRN_H_

#include <mpi.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

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
 * (see include/cairn/options.h for the meaning of each). */
typedef struct {
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
} cairn_options_t;

void cairn_options_init(cairn_options_t* opts);

/* Tag types (the values of cairn::TagType); OR with CAIRN_TAG_ARRAY for an
 * array of a numeric type. */
enum {
  CAIRN_TAG_INT8 = 1, CAIRN_TAG_INT16 = 2, CAIRN_TAG_INT32 = 3, CAIRN_TAG_INT64 = 4,
  CAIRN_TAG_UINT8 = 5, CAIRN_TAG_UINT16 = 6, CAIRN_TAG_UINT32 = 7, CAIRN_TAG_UINT64 = 8,
  CAIRN_TAG_FLOAT32 = 9, CAIRN_TAG_FLOAT64 = 10, CAIRN_TAG_STRING = 11, CAIRN_TAG_BYTES = 12,
  CAIRN_TAG_ARRAY = 0x40
};

/* One tag. For integers set i (signed) or u (unsigned), for floats d; for
 * strings, bytes and arrays set data/len (len in bytes; arrays are packed
 * little-endian elements). Borrowed: cairn copies what it needs. */
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

/* Collective. Opens the store at `path` over `comm`. opts may be NULL. */
int cairn_open(const char* path, MPI_Comm comm, const cairn_options_t* opts, cairn_store_t** store);
/* The same with a Fortran communicator handle (MPI_Fint). */
int cairn_open_f(const char* path, MPI_Fint comm, const cairn_options_t* opts, cairn_store_t** store);
/* Collective. Closes and frees the store; pending changes are discarded.
 * Its streams still open stay valid handles, but every call on them then
 * fails with CAIRN_INVALID_ARGUMENT ("store ... is closed"; a writer's data
 * is not committed); cairn_stream_close still frees them. */
int cairn_close(cairn_store_t* store);

int cairn_rank(const cairn_store_t* store);
int cairn_size(const cairn_store_t* store);
/* The revision the store shows (0: none yet). */
uint64_t cairn_revision(const cairn_store_t* store);

/* Local. Stores value[0..len) under key (NUL-terminated) with ntags tags. */
int cairn_put(cairn_store_t* store, const char* key, const void* value, size_t len,
              const cairn_tag_t* tags, size_t ntags);
/* Local. Removes key. */
int cairn_delete(cairn_store_t* store, const char* key);
/* Local. *size = value size of key in namespace `rank` (-1: own). */
int cairn_get_size(cairn_store_t* store, const char* key, int rank, uint64_t* size);
/* Local. Reads len bytes at offset of key's value (namespace `rank`, -1: own) into buf. */
int cairn_get_range(cairn_store_t* store, const char* key, int rank, uint64_t offset,
                    void* buf, uint64_t len);
/* Local. Reads the whole value into buf of capacity cap; *size gets the value
 * size. CAIRN_INVALID_ARGUMENT if cap is too small (then *size says how much). */
int cairn_get(cairn_store_t* store, const char* key, int rank, void* buf, size_t cap,
              uint64_t* size);
/* Rank 0 only: stores a shared object. */
int cairn_put_shared(cairn_store_t* store, const char* key, const void* value, size_t len);
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
 * *handle is freed with cairn_async_free (it may outlive the store). */
int cairn_commit_async(cairn_store_t* store, cairn_async_t** handle);
/* Local, never blocks: moves the commit on; *done = 1 once it finished.
 * Returns the commit's error once it finished and failed. */
int cairn_async_test(cairn_async_t* handle, int* done);
/* Blocks until the commit finished; *revision (may be NULL) on success. */
int cairn_async_wait(cairn_async_t* handle, uint64_t* revision);
/* Frees a handle (the commit goes on; the store's close waits for it). */
void cairn_async_free(cairn_async_t* handle);
/* Local write barrier: what this rank put is written and fsynced, without
 * a revision (see cairn::Store::Flush). */
int cairn_flush(cairn_store_t* store);

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
/* Moves the position (whence: CAIRN_SEEK_SET, _CUR or _END). A reader
 * cannot pass the end; a writer can (the gap reads as zeros). */
int cairn_stream_seek(cairn_stream_t* stream, int64_t offset, int whence);
int cairn_stream_tell(const cairn_stream_t* stream, uint64_t* pos);
int cairn_stream_size(const cairn_stream_t* stream, uint64_t* size);
/* Writers: hands gathered bytes to the store (not durable). */
int cairn_stream_flush(cairn_stream_t* stream);
/* Ends the stream and frees the handle. For a writer the object is then
 * pending for the next commit; the return value says whether it was. */
int cairn_stream_close(cairn_stream_t* stream);

#ifdef __cplusplus
}
#endif

#endif /* CAIRN_CAIRN_H_ */
