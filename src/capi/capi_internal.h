// What the C API's translation units share: the handle types and the
// Status -> code/message conversion (the message is per thread).
#pragma once

#include <cstdlib>
#include <cstring>
#include <initializer_list>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "cairn/cairn.h"
#include "cairn/status.h"
#include "cairn/store.h"
#include "cairn/tags.h"

struct cairn_store {
  std::unique_ptr<cairn::Store> store;
  bool read_only = false;  // opened with cairn_options_t.read_only
};

namespace cairn_capi {

// CAIRN_OK for ok, else records s.ToString() as the last error and returns
// the negative code.
int Code(const cairn::Status& s);
// Records "InvalidArgument: msg" and returns CAIRN_INVALID_ARGUMENT.
int Invalid(const char* msg);
// CAIRN_OK if the `rank` argument of the read `fn` names a namespace of
// the revision s shows (CAIRN_RANK_OWN, CAIRN_RANK_SHARED, 0 ..
// cairn_writer_ranks()-1, or the caller's own rank on a writable store);
// else records a message in C terms (the function, the argument, the
// valid values) and returns CAIRN_INVALID_ARGUMENT.
int CheckRank(const cairn_store_t* s, int rank, const char* fn);
// Converts C tags; false for a NULL name or an unknown type.
// The C tags as a TagList; false (and *why, if given, says what) for a
// NULL name, data NULL with len > 0, an unknown type, or a number in a
// member its type does not read (a uint32 given in i only: it was stored
// as 0).
bool ToTags(const cairn_tag_t* tags, size_t n, cairn::TagList* out, std::string* why = nullptr);
// Converts C query conditions; false (and *why) for a bad one.
bool ToQueries(const cairn_query_t* conds, size_t n, std::vector<cairn::TagQuery>* out,
               std::string* why);
// The members of an options struct the caller knows (its struct_size
// bytes) over the defaults `init` fills, into *known. `older` lists the
// sizes the struct had in earlier cairn.h versions (each the offset of the
// first member appended after it): a caller built against one of them gets
// its members and the defaults of the rest. InvalidArgument for a struct
// not filled by `init` (struct_size 0 or not a known size) or one from a
// newer header than this library (struct_size larger than ours).
template <typename Opts>
int KnownPart(const Opts* caller, Opts* known, void (*init)(Opts*), const char* fn, const char* init_name,
              std::initializer_list<size_t> older = {}) {
  init(known);
  size_t n = caller->struct_size;
  if (n == sizeof(Opts)) {
    *known = *caller;
    return CAIRN_OK;
  }
  for (size_t o : older) {
    if (n != o || n == 0) continue;
    std::memcpy(static_cast<void*>(known), caller, n);
    known->struct_size = sizeof(Opts);
    return CAIRN_OK;
  }
  std::string why = n == 0 ? std::string("its struct_size is 0: fill it with ") + init_name + " first"
                    : n > sizeof(Opts)
                        ? "its struct_size " + std::to_string(n) + " is larger than this library's (" +
                              std::to_string(sizeof(Opts)) + "): the program was compiled against a newer cairn.h"
                        : "its struct_size " + std::to_string(n) + " is not one of a cairn.h this library knows (" +
                              std::to_string(sizeof(Opts)) + ")";
  return Invalid((std::string(fn) + ": options struct not accepted: " + why).c_str());
}

// Copies an output struct the library filled (`filled`, this cairn.h's
// layout) into the caller's, of `caller_size` bytes (the function's
// stats_size argument: the caller's sizeof as compiled). A caller built
// against an older cairn.h gets the members it knows; one built against a
// newer cairn.h gets 0 in the members appended after ours. Such structs
// only ever get uint64_t members appended, so every cairn.h's size is a
// multiple of 8: a size that is 0, is not, or is above kMaxStructSize is
// InvalidArgument naming `fn` and `type` (nothing written). cairn_stats,
// cairn_array_read_stats.
// The largest struct size the sized calls accept: members are appended one
// at a time, none over 8 bytes, so no cairn.h struct will reach it; a larger
// size is garbage (an uninitialized variable, a size in bits), refused with
// nothing written rather than written through.
constexpr size_t kMaxStructSize = 4096;

template <typename Out>
int CopyOut(const Out& filled, Out* caller, size_t caller_size, const char* fn, const char* type) {
  if (caller_size > kMaxStructSize)
    return Invalid((std::string(fn) + ": stats_size " + std::to_string(caller_size) + " is not sizeof(" + type +
                    ") of any cairn.h (at most " + std::to_string(kMaxStructSize) + "); nothing written")
                       .c_str());
  if (caller_size == 0 || caller_size % 8 != 0)
    return Invalid((std::string(fn) + ": stats_size " + std::to_string(caller_size) + " is not sizeof(" + type +
                    ") of a cairn.h (a multiple of 8)")
                       .c_str());
  std::memset(static_cast<void*>(caller), 0, caller_size);
  std::memcpy(static_cast<void*>(caller), &filled, caller_size < sizeof filled ? caller_size : sizeof filled);
  return CAIRN_OK;
}

// Records "IOError: <what>: out of memory" and returns CAIRN_IO_ERROR.
int OutOfMemory(const char* what);

// The body of every C entry point that returns a code runs in Guarded: a
// C++ exception must not reach a C or Fortran caller, which cannot catch
// it (the process would end). One that escapes `body` becomes a code and
// a message naming `fn` (Escaped): std::bad_alloc (a size too large for
// memory, e.g. a tag's len) CAIRN_IO_ERROR "<fn>: out of memory";
// std::length_error (a size no buffer can hold) CAIRN_INVALID_ARGUMENT;
// anything else CAIRN_IO_ERROR "<fn>: internal error: <what>". The store
// stays usable as far as the C++ call that threw left it: its committed
// revisions are untouched. A collective call that fails so on one rank
// can leave the others waiting, as a crash of that rank would.
int Escaped(const char* fn) noexcept;  // inside a catch block only
template <typename Body>
int Guarded(const char* fn, Body&& body) noexcept {
  try {
    return body();
  } catch (...) {
    return Escaped(fn);
  }
}

// Guarded for an entry point whose first argument is the store handle: a
// NULL handle is refused before `body` runs, with CAIRN_INVALID_ARGUMENT
// and "<fn>: NULL store handle (not opened, or the store was closed)",
// so that the message names the store rather than "NULL argument". A
// closed handle reaches here as NULL from Fortran (cairn_close sets it to
// c_null_ptr); in C cairn_close frees it and it cannot be told from a
// live one (using it is undefined, as for free()).
int NullStore(const char* fn);
template <typename Body>
int GuardedStore(const char* fn, const cairn_store_t* s, Body&& body) noexcept {
  if (!s) return NullStore(fn);
  return Guarded(fn, std::forward<Body>(body));
}

// Lays out one block: `head` bytes of fixed records, then byte payloads
// appended one by one (each NUL-terminated, 8-byte aligned). Two passes:
// Reserve() every payload to learn the size, then Allocate(), then Add()
// them in the same order.
class Block {
 public:
  explicit Block(size_t head) : head_(Align(head)), size_(head_) {}
  void Reserve(size_t n) { size_ += Align(n + 1); }
  // false if out of memory.
  bool Allocate() {
    base_ = static_cast<char*>(std::calloc(1, size_ ? size_ : 1));
    next_ = head_;
    return base_ != nullptr;
  }
  char* base() const { return base_; }
  // Copies n bytes (plus a NUL) into the block and returns where.
  const char* Add(const void* p, size_t n) {
    char* at = base_ + next_;
    if (n) std::memcpy(at, p, n);
    at[n] = '\0';
    next_ += Align(n + 1);
    return at;
  }

 private:
  static size_t Align(size_t n) { return (n + 7) & ~size_t(7); }
  size_t head_, size_;
  size_t next_ = 0;
  char* base_ = nullptr;
};

// The bytes a tag adds to a Block, and the tag filled from them.
void ReserveTag(Block* b, const cairn::Tag& t);
void FillTag(Block* b, const cairn::Tag& t, cairn_tag_t* out);

}  // namespace cairn_capi
