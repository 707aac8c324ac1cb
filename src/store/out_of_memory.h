// UnlessOutOfMemory: runs a change of one key whose memory grows with what
// the caller gave (its tags' bytes, chiefly). If this process runs out of
// memory, the change is not made (NamespaceState::Put takes its memory
// before it changes anything; a chunked value's bytes may be in the file,
// unreferenced) and the caller gets an IOError naming the key, not an
// exception (doc/design.md "Errors"). `buffers` (the put path's reused
// encoding buffers) are given back after such a failure: else they kept
// the entry's size for the store's life. Used by the puts and tag edits
// (store.cc) and a write stream's Close (stream.cc). UnlessOutOfMemoryThen
// serves calls that change nothing when memory runs out.
#pragma once

#include <initializer_list>
#include <new>
#include <stdexcept>
#include <string>
#include <string_view>

#include "cairn/status.h"
#include "store/key_text.h"

namespace cairn {

// The IOError "<what> '<name>': out of memory<then>". If even its
// message cannot be allocated, "out of memory" alone: short enough for the
// string's inline buffer (at most 15 bytes in libstdc++ and libc++), so
// making it allocates nothing.
inline Status OutOfMemoryError(const char* what, std::string_view name, const char* then) noexcept {
  try {
    return Status::IOError(std::string(what) + " '" + KeyText(name) + "': out of memory" + then);
  } catch (...) {
    return Status(Status::Code::kIOError, "out of memory");
  }
}

template <typename F>
Status UnlessOutOfMemory(const char* what, std::string_view key, F&& change,
                         std::initializer_list<std::string*> buffers = {}) {
  try {
    return change();
  } catch (const std::bad_alloc&) {
  } catch (const std::length_error&) {
  }
  for (std::string* b : buffers) std::string().swap(*b);
  return OutOfMemoryError(what, key,
                          " (the entry and its tags do not fit in this process's memory); the key is unchanged");
}

// The end of the message of a read (or any call that changes nothing)
// that ran out of memory.
inline constexpr char kNothingChanged[] = "; nothing was changed";

// For a call that changes nothing it could not finish (DeleteArray, a
// stream's Flush and Seek, Store::Flush, the reads, queries and lists, and
// each rank's own step of a collective call, whose failure the ranks then
// agree on): std::bad_alloc or
// std::length_error out of `call` becomes OutOfMemoryError(what, name,
// then), `then` saying what is left as it was.
template <typename F>
Status UnlessOutOfMemoryThen(const char* what, std::string_view name, const char* then, F&& call) {
  try {
    return call();
  } catch (const std::bad_alloc&) {
  } catch (const std::length_error&) {
  }
  return OutOfMemoryError(what, name, then);
}

}  // namespace cairn
