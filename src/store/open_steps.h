// The steps of Store::Open shared between its files: rank 0's read of the
// manifest (open_manifest.cc), the read-only open (open_read_only.cc), and
// the writable open with the agreement both end in (open.cc). Internal:
// nothing here is public API. The collective steps are described in
// doc/design.md ("Open (restart), step by step").
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "cairn/options.h"
#include "cairn/status.h"
#include "cairn/store.h"
#include "comm/comm.h"
#include "format/coding.h"
#include "store/store_rep.h"

namespace cairn::open_steps {

// What rank 0 learns at open and broadcasts to everyone.
struct OpenInfo {
  Status status;
  std::string store_id;
  uint64_t newest_revision = 0;
  std::vector<uint64_t> newest_high_water;
  std::string record;  // payload of the opened revision ("" if none)
  std::vector<RevisionInfo> revisions;
  bool per_rank = false;  // subfiles 0: a data file per rank (io/fs_layout.h)
};

// OpenInfo as the bytes of rank 0's broadcast, and back.
std::string EncodeOpenInfo(const OpenInfo& i);
OpenInfo DecodeOpenInfo(const std::string& bytes);

// Rank 0's part of open: directory, writer lock (writable opens only),
// manifest, choice of revision. Its errors are in the result's status.
OpenInfo OpenManifest(Store::Rep* rep);

// The end of the message of an open that ran out of memory.
extern const char kNotOpened[];

// The shared namespace's table: from `bytes` when rank 0 sent it with its
// block (compact tables; checked against the manifest's checksum and
// parsed), else read from the data file.
Status SharedTable(Store::Rep* rep, const NamespaceDesc& d, std::string bytes,
                   std::shared_ptr<const IndexTable>* shared);

// One agreement for every check of an open (one collective step): whether
// some rank's path or collective options differ from rank 0's, the lowest
// rank whose own options are invalid, and the lowest rank that failed
// later (`late`: its index table). Every rank returns the same status, in
// this order: `refused` (this rank's own arguments were refused before the
// open, Store::RefuseOpen: such a rank's options are stand-ins and would
// only "differ"), the difference (CheckSameOptions' message), the invalid
// options ("rank N: ..."), rank 0's `found` (what it found in the
// manifest, the same bytes on every rank), the late failure ("rank N: ...").
Status AgreeOpen(Comm* c, const Options& o, const std::string& path, const std::string& root_opts,
                 bool differs, const Status& local, const Status& found, const Status& late,
                 const Status& refused);

// Index tables rank 0 reads and sends at open: those of at most `limit`
// bytes (Scattered).
inline bool Scattered(const NamespaceDesc& d, uint64_t limit) { return d.length != 0 && d.length <= limit; }

// Rank 0's read at open of the index tables it sends: those of namespaces
// [0, readers) within `limit`, end to end in parts->bytes where they are
// read (sent from there: no second copy to lay them end to end), and the
// shared table into *shared_bytes if `shared` and it is within `limit`.
Status ReadSentTables(Store::Rep* rep, const RevisionRecord& rec, uint32_t readers, uint64_t limit, bool shared,
                      ScatterParts* parts, std::string* shared_bytes);

// This rank's table at open (namespace `rank` of the opened revision):
// parsed from `bytes` rank 0 sent (`sent`), else read from the file. Out
// of memory is this rank's error, agreed by the caller.
Status OwnTableAtOpen(Store::Rep* rep, std::string bytes, bool sent, std::shared_ptr<const IndexTable>* mine);

// Another rank than 0, at open: rank 0's checked copy of the shared table
// (`sb`, empty if none was sent) becomes this view's, unless it arrived
// damaged or does not fit in memory (then it is read on demand).
void AdoptSentSharedTable(Store::Rep* rep, std::string sb);

// Rank 0 of a read-only open, before its first message: reads the manifest
// and, in one coalesced request, the small index tables of every rank (and
// a compact shared table), which it appends to `hello`; keeps what it sends
// in *parts and its own results in *tables and *shared_out.
void StartReadOnlyOpen(Store::Rep* rep, const Status& local, std::string* hello, ScatterParts* parts,
                       Status* tables, std::shared_ptr<const IndexTable>* shared_out);

// The read-only open's part after rank 0's first message (every rank): `d`
// holds the rest of that message, `hello`. One scatter of the small tables
// and one agreement (AgreeOpen); no other collective step.
Status FinishReadOnlyOpen(Store::Rep* rep, std::string* hello, Decoder* d, const std::string& root_opts,
                          bool differs, const Status& local, ScatterParts* parts, Status rank0_tables,
                          std::shared_ptr<const IndexTable> rank0_shared, const Status& refused);

}  // namespace cairn::open_steps
