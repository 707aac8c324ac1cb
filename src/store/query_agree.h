// QueryAll's conditions, agreed: rank 0's travel to every rank, so a rank
// that passed other conditions is found before any rank answers its own.
#pragma once

#include <vector>

#include "cairn/status.h"
#include "cairn/store.h"
#include "comm/comm.h"

namespace cairn {

// Collective (one broadcast). OK when this rank's conditions are rank 0's,
// byte for byte; else InvalidArgument naming rank 0's and this rank's.
// Every rank must call it; the caller agrees the result with its others.
Status CheckConditionsMatchRank0(Comm* comm, const std::vector<TagQuery>& all_of);

}  // namespace cairn
