// The commit step of global arrays (array_commit.cc): run inside
// Store::Rep::CheckCommittable, before a commit encodes any table, by
// Commit and CommitAsync alike.
#pragma once

#include "cairn/status.h"
#include "store/store_rep.h"

namespace cairn {

// Collective. Agrees `local` over every rank as AgreeStatus does, and in
// the same reduction whether any rank put or deleted an array. If one did
// (or the revision in view was written by more ranks than the store has
// now), the ranks' array changes are combined: rank 0 checks them, puts
// the descriptors into the shared namespace and every rank deletes its
// blocks that the new revision no longer needs. On failure every rank
// returns the same InvalidArgument, and the array puts and deletes of this
// round are dropped (nothing else is).
Status AgreeCommittableWithArrays(Store::Rep* r, const Status& local);

// This rank's failure in the array step of the commit under way that
// rank 0's reply did not carry (out of memory taking the reply in, or
// applying it, when it said the step succeeded; OK if none), cleared.
// PrepareCommit makes it this rank's failure at its first step, which
// every rank then returns (no collective step added).
Status TakeArrayStepFailure(Store::Rep* r);

// After the pending changes were discarded (a failed commit with staging,
// or a failed asynchronous commit): the array puts go with them.
void DiscardPendingArrays(Store::Rep* r);

}  // namespace cairn
