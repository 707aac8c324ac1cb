// A namespace's index table for the revision being committed: built from
// its state, or, when nothing in the namespace changed since the revision
// the view is at, that revision's table reused as it lies (same bytes, same
// place, same descriptor): nothing is encoded, gathered to rank 0, written
// or synced for it. doc/design.md, "Commit, step by step".
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "format/index_format.h"
#include "format/manifest_format.h"
#include "store/namespace_state.h"

namespace cairn {

struct NextTable {
  bool reused = false;
  std::string bytes;                        // built: the new table
  std::shared_ptr<const IndexTable> table;  // reused: the previous table, parsed
  NamespaceDesc desc;  // reused: the whole descriptor; built: objects, value_bytes, length, checksum
  // The table's bytes either way.
  std::string_view view() const { return reused ? std::string_view(table->bytes) : std::string_view(bytes); }
};

// The table of namespace `ns` (state `st`) for revision `rev`. `previous`
// is the descriptor of the namespace in the revision the view is at (null
// if it has none); st's base table must be the one it describes (Open,
// Adopt and DiscardPending keep it so).
NextTable MakeNextTable(const NamespaceState& st, uint32_t ns, uint64_t rev,
                        const NamespaceDesc* previous);

// The parsed table of `t` for the commit plan: the reused one as it is, or
// the built bytes parsed (`where` names it in errors).
Status AdoptNextTable(NextTable t, const std::string& where, std::shared_ptr<const IndexTable>* out);

}  // namespace cairn
