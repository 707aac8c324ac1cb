// The streams of one store handle on one rank (internal; stream.cc).
//
// Every stream holds the hub (shared ownership); Store::Close cuts its link
// to the store, so a stream that outlives its store returns "store ... is
// closed" instead of touching freed memory. The hub also lists the open
// streams: the chunks of an open write stream lie in no committed revision
// yet, and a reader's may belong to a revision a later commit expires, so
// every commit reports their extents as held and retention never hands them
// out as free space (RankSpaceReport, retention.cc).
#pragma once

#include <functional>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "cairn/stream.h"
#include "format/manifest_format.h"

namespace cairn {

struct StreamHub {
  Store::Rep* rep = nullptr;  // null once the store is closed or destroyed
  std::string path;           // the store's, for messages
  // Open write streams by key: at most one per key (OpenWriteStream refuses
  // a second).
  std::map<std::string, StreamWriter::Impl*, std::less<>> writers;
  std::set<StreamReader::Impl*> readers;  // open read streams

  // The error of a stream operation once the store is gone.
  Status Closed(const std::string& key, bool writer) const;
  // A commit with staging failed and dropped the puts since the last
  // revision (Rep::DiscardPending): the bytes of every open write stream
  // that has reached the store went through the same failed queue, so each
  // such stream fails from now on with an error saying so (its key keeps
  // its previous object), and its chunks are no longer held.
  void LoseWriters();
  // Adds the extents (rounded out to whole extents of `extent` bytes)
  // holding the chunks of every open stream, writers and readers, to *out.
  void AddHeldExtents(uint64_t extent, std::vector<ExtentRange>* out) const;
};

// The hub of a store handle, made on first use.
std::shared_ptr<StreamHub> HubOf(Store::Rep* r);
// Store::Close: every stream of the handle fails from now on.
void DetachStreams(Store::Rep* r);

}  // namespace cairn
