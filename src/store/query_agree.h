// QueryAll's conditions, agreed: rank 0's travel to every rank, so a rank
// that passed other conditions is found before any rank answers its own.
#pragma once

#include <string>
#include <vector>

#include "cairn/status.h"
#include "cairn/store.h"
#include "comm/comm.h"

namespace cairn {

// Collective (one broadcast). OK when this rank's conditions are rank 0's,
// byte for byte; else InvalidArgument naming rank 0's and this rank's.
// Every rank must call it; the caller agrees the result with its others.
// A rank out of memory (for its encoding, rank 0's message, or the
// broadcast's bytes) still takes part and returns an IOError naming
// `path`.
Status CheckConditionsMatchRank0(Comm* comm, const std::vector<TagQuery>& all_of, const std::string& path);

}  // namespace cairn
