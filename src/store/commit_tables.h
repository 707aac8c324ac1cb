// A namespace's index table for the revision being committed: built from
// its state, or, when nothing in the namespace changed since the revision
// the view is at (nothing put or deleted, or only objects put back byte for
// byte as they were), that revision's table reused as it lies (same bytes, same
// place, same descriptor): nothing is encoded, gathered to rank 0, written
// or synced for it. doc/design.md, "Commit, step by step".
//
// A large table of entries that were all put since the base (a namespace
// saved whole, as a checkpoint does) is not built in memory at all: it is
// "streamed", written to the file in pieces from the entries where they
// lie (WriteStreamedTable), and the parsed table that becomes the next
// base views them in the state's arena. Building it in a fresh buffer the
// size of the table cost most of a large commit (the kernel zero-fills
// every new page), and the base then held a second copy of the entries.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "format/index_format.h"
#include "format/manifest_format.h"
#include "store/namespace_state.h"

namespace cairn {

class Writer;

// The pieces a streamed table is written in (or the write buffer, if larger).
constexpr size_t kStreamTablePiece = 4u << 20;
// A streamed table's clean pages are dropped from the page cache once this
// many bytes of it follow them, each time as many more were written
// (WriteStreamedTable): a table under twice this size stays cached.
constexpr uint64_t kStreamDropLag = 16u << 20;
// Pages this far behind the table's end are written back and waited for
// before they are dropped, whatever the device's speed: at most about
// this + 2 x kStreamDropLag of a table stays cached.
constexpr uint64_t kStreamWaitLag = 64u << 20;

struct NextTable {
  bool reused = false;
  bool streamed = false;                    // to be written by WriteStreamedTable
  std::string bytes;                        // built: the new table
  std::shared_ptr<const IndexTable> table;  // reused: the previous table, parsed; streamed: the new one
  bool chunked = true;                      // built: false if no entry holds a chunked value
  NamespaceDesc desc;  // reused: the whole descriptor; built: objects, value_bytes, length, checksum;
                       // streamed: objects, value_bytes, length (checksum: WriteStreamedTable)
};

// The table of namespace `ns` (state `st`) for revision `rev`. `previous`
// is the descriptor of the namespace in the revision the view is at (null
// if it has none); st's base table must be the one it describes (Open,
// Adopt and DiscardPending keep it so). A table longer than
// `stream_above` bytes with no entry from the base is streamed.
NextTable MakeNextTable(const NamespaceState& st, uint32_t ns, uint64_t rev,
                        const NamespaceDesc* previous, uint64_t stream_above = UINT64_MAX);

// Writes a streamed table through `w` in one contiguous run, in pieces of
// `piece` bytes; sets t->desc.offset and t->desc.checksum.
Status WriteStreamedTable(NextTable* t, Writer* w, size_t piece);
// Writes a built table (t.bytes) through `w` in one contiguous run, in
// pieces of `piece` bytes, dropping its pages behind as WriteStreamedTable
// does; sets *offset.
Status WriteBuiltTable(const NextTable& t, Writer* w, size_t piece, uint64_t* offset);

// The parsed table of `t` for the commit plan: the reused or streamed one
// as it is, or the built bytes parsed (`where` names it in errors).
Status AdoptNextTable(NextTable t, const std::string& where, std::shared_ptr<const IndexTable>* out);

}  // namespace cairn
