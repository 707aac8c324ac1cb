#include "store/finalize_hook.h"

#include <mpi.h>

#include <cstdio>
#include <map>
#include <mutex>
#include <vector>

namespace cairn {
namespace {

std::mutex mu;
std::map<uint64_t, Store*>& Open() {
  static std::map<uint64_t, Store*> open;  // by order of opening
  return open;
}
uint64_t next_seq = 0;
bool hooked = false;

int CloseAtFinalize(MPI_Comm, int, void*, void*) {
  std::vector<Store*> stores;
  {
    std::lock_guard<std::mutex> l(mu);
    for (auto& [seq, st] : Open()) stores.push_back(st);
  }
  for (Store* st : stores) {
    Status s = st->Close();
    if (!s.ok())
      std::fprintf(stderr, "cairn: closing a store at MPI_Finalize (rank %d): %s\n", st->rank(),
                   s.ToString().c_str());
  }
  return MPI_SUCCESS;
}

}  // namespace

void RegisterOpenStore(Store* store) {
  std::lock_guard<std::mutex> l(mu);
  if (!hooked) {
    int keyval = MPI_KEYVAL_INVALID;
    MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, CloseAtFinalize, &keyval, nullptr);
    MPI_Comm_set_attr(MPI_COMM_SELF, keyval, nullptr);
    hooked = true;
  }
  Open()[next_seq++] = store;
}

void UnregisterOpenStore(Store* store) {
  std::lock_guard<std::mutex> l(mu);
  for (auto it = Open().begin(); it != Open().end(); ++it) {
    if (it->second == store) {
      Open().erase(it);
      return;
    }
  }
}

}  // namespace cairn
