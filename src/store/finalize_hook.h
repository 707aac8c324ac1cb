// Stores opened over MPI and not yet closed, so that MPI_Finalize can close
// them (finishing a commit in flight) instead of leaving a pending revision
// behind or hanging. MPI deletes the attributes of MPI_COMM_SELF first thing
// in MPI_Finalize, while MPI still works: the hook is such an attribute.
#pragma once

#include "cairn/store.h"

namespace cairn {

// Records an open store (called by Store::Open over MPI). Stores are closed
// at finalize in the order they were opened, the same on every rank since
// opens are collective.
void RegisterOpenStore(Store* store);
// Forgets a store (called by Close).
void UnregisterOpenStore(Store* store);

}  // namespace cairn
