// What a writable open accepts as a store directory, so that a wrong path
// (say --store $HOME) is refused instead of filled with cairn's files.
#pragma once

#include <string>

#include "cairn/status.h"
#include "cairn/store.h"

namespace cairn {

// OK when the existing directory `dir` is empty, holds only names cairn
// makes (MANIFEST, LOCK, data.NNNNN: a store whose creation was cut short,
// or its lock alone), or has a MANIFEST that starts with the manifest magic
// (a store, whatever else lies beside it). Otherwise InvalidArgument naming
// the directory and the first entries that are not cairn's.
Status CheckStoreDirectory(const std::string& dir, IoStats* stats);

}  // namespace cairn
