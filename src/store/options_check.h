// Open's checks of its options: each rank's values on their own
// (ValidateOptions), and that every rank asked for the same store: the
// path, and the options that change what the ranks do together (a
// difference would give mismatched collective calls, and a hang, later).
#pragma once

#include <string>

#include "cairn/options.h"
#include "cairn/status.h"
#include "comm/comm.h"

namespace cairn {

// Local, no communication: InvalidArgument naming the first of this rank's
// options whose value is refused, else ok. Every byte size (extent_size,
// chunk_size, write_buffer_size, writeback_bytes, inline_value_limit,
// compact_index_limit, staging_bytes) must be below 2^63: a negative
// 64-bit size from C or Fortran becomes one at least that large (the
// message shows it read as signed too). Open runs it on every rank before
// rank 0's first broadcast (only the communicator's duplication comes
// earlier) and agrees on its result in the step that compares the ranks'
// options, so a value refused on one rank fails the open on every rank.
Status ValidateOptions(const Options& o);

// Collective. Every rank returns the same status: ok if every rank's path
// and collective options equal rank 0's; else InvalidArgument naming the
// first option that differs, rank 0's value, and each differing rank with
// its value.
Status CheckSameOptions(Comm* comm, const Options& o, const std::string& path);

// Local: the path and collective options, encoded; two ranks asked for the
// same store alike exactly when their encodings are equal. Open sends rank
// 0's in its first message and agrees on a difference with its other
// checks, one step in all (store.cc).
std::string EncodeCollectiveOptions(const Options& o, const std::string& path);
// Collective, once every rank knows that some rank's encoding differs from
// rank 0's (`root`): every rank returns CheckSameOptions' InvalidArgument.
Status ExplainOptionDifference(Comm* comm, const Options& o, const std::string& path,
                               const std::string& root);

}  // namespace cairn
