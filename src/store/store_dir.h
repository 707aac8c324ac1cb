// What a writable open accepts as a store directory, so that a wrong path
// (say --store $HOME) is refused instead of filled with cairn's files.
#pragma once

#include <string>

#include "cairn/status.h"
#include "cairn/store.h"

namespace cairn {

// OK when the existing directory `dir` is empty, has a MANIFEST that
// starts with the manifest magic (a store, whatever else lies beside it),
// or holds only names cairn makes (MANIFEST, LOCK, data.NNNNN) whose bytes
// are what cairn writes there (its magic, a prefix of it, or zeros: a store
// whose creation was cut short). Otherwise InvalidArgument naming the
// directory and what is not cairn's; Corruption when MANIFEST is missing or
// incomplete beside a data file holding data (the manifest was lost).
Status CheckStoreDirectory(const std::string& dir, IoStats* stats);
// For a store whose MANIFEST is missing or incomplete (a creation cut
// short): OK when its LOCK and data.NNNNN files hold what cairn writes there
// and no data file holds data (InvalidArgument for a file that is not
// cairn's; Corruption for data beside a lost manifest).
Status CheckLeftovers(const std::string& dir, IoStats* stats);
// Whether `b` holds only zero bytes (true for an empty string).
bool AllZero(const std::string& b);
// Whether `head`, the first bytes of a file of `size` bytes, is what cairn
// itself can leave in a file of that kind: its magic (or a prefix of it,
// when creation was cut short), or, for a file of at most `max_zero_size`
// bytes read whole, nothing but zeros (a size that reached the disk before
// the data, on file systems that allow it).
bool LooksLikeOurs(const std::string& head, uint64_t size, const char* magic, size_t magic_len,
                   uint64_t max_zero_size);

}  // namespace cairn
