// Store::Rep: the state behind a Store handle on one rank. Internal; shared
// by store.cc (the API) and inspect.cc (what the command-line tool reads).
#pragma once

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "cairn/store.h"
#include "comm/comm.h"
#include "format/index_format.h"
#include "format/manifest_format.h"
#include "io/file.h"
#include "io/writer.h"
#include "store/manifest.h"
#include "store/namespace_state.h"

namespace cairn {

struct Store::Rep {
  Options opt;
  std::string path;
  IoStats stats;
  std::unique_ptr<Comm> comm;      // all ranks of the store
  std::unique_ptr<Comm> sub_comm;  // the ranks sharing my data file (writable opens)
  bool subfile_on_one_node = true; // its ranks share a node: the leader's fsync covers all
  bool closed = false;
  Status poisoned;  // not ok after a failed fsync: no more commits (see CheckWritable)
  std::string scratch, scratch_tags;  // reused encoding buffers of the put path
  // Directory entries created by this open, synced by the first commit
  // (rank 0) before its manifest record.
  bool sync_store_dir = false;
  bool sync_parent_dir = false;

  std::string store_id;
  std::unique_ptr<Manifest> manifest;       // rank 0 only
  RevisionRecord current;                   // the revision this view is at (revision 0: none)
  std::vector<uint64_t> newest_high_water;  // allocation floor per data file
  uint64_t newest_revision = 0;             // newest committed revision in the store
  std::vector<RevisionInfo> revisions;      // all ranks: the list, oldest first

  // Writing (writable opens).
  uint32_t my_subfile = 0;
  std::unique_ptr<File> my_file;
  std::unique_ptr<Writer> writer;

  // Reading.
  std::map<uint32_t, std::unique_ptr<File>> read_files;  // data files opened on demand
  NamespaceState own;     // my namespace (rank r of the revision)
  NamespaceState shared;  // the shared namespace (rank 0)
  std::map<uint32_t, std::shared_ptr<const IndexTable>> tables;  // other namespaces, loaded on demand

  Status CheckWritable() const;
  // Opens (or returns) the data file of id `subfile` for reading.
  Status DataFile(uint32_t subfile, File** file);
  // The table of namespace `ns` of the current revision (loads it on demand).
  Status Table(uint32_t ns, std::shared_ptr<const IndexTable>* table);
  // Reads and verifies a table given its descriptor.
  Status ReadTable(uint32_t ns, const NamespaceDesc& d, std::shared_ptr<const IndexTable>* out);
  // Resolves ReadOptions::rank to an entry body and the dictionary of its tags.
  Status Resolve(std::string_view key, const ReadOptions& ro, std::string_view* body,
                 const NameDict** dict);
  // For a value claiming more than 1 GiB: every chunk must lie inside its
  // data file, checked before a buffer of that size is allocated.
  Status CheckHugeValue(const EntryView& e);
  // Resolve, then decode the entry.
  Status Find(std::string_view key, const ReadOptions& ro, EntryView* e, const NameDict** dict);
  // Reads [offset, offset+len) of a decoded entry's value into dest.
  Status ReadValue(const EntryView& e, uint64_t offset, uint64_t len, char* dest,
                   const ReadOptions& ro);
  // Encodes and stores an entry for a value in namespace `ns`.
  Status PutInto(NamespaceState* ns, std::string_view key, std::string_view value,
                 const TagList& tags);
  // Re-encodes an entry with new tags, keeping its value.
  Status RetagInto(NamespaceState* ns, std::string_view key, const TagList& tags);
  std::string Where(uint32_t ns) const;
};

RevisionInfo InfoOf(const RevisionRecord& r);
std::string DataFileName(uint32_t subfile);

}  // namespace cairn
