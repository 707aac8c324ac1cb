#include "store/commit_tables.h"

#include <cstdlib>

#include "format/checksum.h"
#include "io/writer.h"

namespace cairn {

NextTable MakeNextTable(const NamespaceState& st, uint32_t ns, uint64_t rev,
                        const NamespaceDesc* previous, uint64_t stream_above) {
  NextTable t;
  // Reuse needs the base to be the table `previous` names: same length
  // (a cheap guard; Open, Adopt and DiscardPending keep them paired).
  auto reusable = [&] {
    return previous && st.base() && st.base()->ns == ns && previous->length == st.base()->length;
  };
  auto reuse = [&] {
    t.reused = true;
    t.table = st.base();
    t.desc = *previous;
    return t;
  };
  if (st.unchanged() && reusable()) return reuse();
  NamespaceState::Entries e;
  st.CollectEntries(&e);
  // Objects put again as they were (a program that saves all its state at
  // every checkpoint) leave the namespace as the base: nothing to write.
  if (!e.changed && reusable()) return reuse();
  uint64_t length = IndexTableSize(st.dict().names(), e.bodies);
  t.desc.objects = e.bodies.size();
  t.desc.value_bytes = e.value_bytes;
  t.desc.length = length;
  t.chunked = e.chunked;
  if (length > stream_above && !e.from_base) {
    t.streamed = true;
    t.table = st.ViewTable(ns, rev, std::move(e), length);
    return t;
  }
  uint64_t body_bytes = 0;
  for (std::string_view body : e.bodies) body_bytes += body.size();
  IndexTableBuilder b;
  b.Begin(ns, rev, e.bodies.size(), st.dict().names(), body_bytes);
  for (std::string_view body : e.bodies) b.Add(body);
  t.bytes = b.Finish();
  t.desc.checksum = Checksum(t.bytes);
  return t;
}

namespace {

// The two lags DropBehind works with: kStreamDropLag and kStreamWaitLag,
// or, for tests only, CAIRN_TEST_TABLE_DROP_LAG bytes (a multiple of 4096)
// and four times that, so that a power-loss test reaches the drop and the
// wait for writeback with tables of a few MiB (power_loss_drop_test).
struct Lags {
  uint64_t drop, wait;
};
const Lags& DropLags() {
  static const Lags lags = [] {
    const char* e = std::getenv("CAIRN_TEST_TABLE_DROP_LAG");
    uint64_t v = e ? std::strtoull(e, nullptr, 10) : 0;
    if (v < 4096 || v % 4096 != 0) return Lags{kStreamDropLag, kStreamWaitLag};
    return Lags{v, 4 * v};
  }();
  return lags;
}

// Drops a contiguous run's pages from the page cache behind its writing
// (WriteStreamedTable says when and why); Handed() after each piece.
class DropBehind {
 public:
  DropBehind(Writer* w, uint64_t start) : w_(w), hinted_(start), waited_(start) {}
  Status Handed() {
    Status s;
    const uint64_t handed = w_->handed_end(), drop_lag = DropLags().drop, wait_lag = DropLags().wait;
    if (handed >= waited_ + wait_lag + drop_lag) {
      s = w_->WriteBackAndDrop(waited_, handed - wait_lag);
      waited_ = handed - wait_lag;
    }
    if (s.ok() && handed >= hinted_ + drop_lag && handed >= waited_ + 2 * drop_lag) {
      w_->DropWritten(waited_, handed - drop_lag);
      hinted_ = handed;
    }
    return s;
  }

 private:
  Writer* w_;
  uint64_t hinted_, waited_;
};

}  // namespace

Status WriteStreamedTable(NextTable* t, Writer* w, size_t piece) {
  Status s = w->ReserveContiguous(t->desc.length, &t->desc.offset);
  if (!s.ok()) return s;
  const IndexTable& tb = *t->table;
  // The table is written once and not read back through the page cache
  // (the new base views its entries in the arena), so its pages are
  // dropped as it goes, and the next pieces reuse them instead of memory
  // the process never touched (the copy into such pages was 70 % of a
  // 1M-object commit's CPU on the benchmark VM, bench/catalogue/README.md):
  // - each time another kStreamDropLag bytes have been handed to the
  //   file, the clean pages up to kStreamDropLag before its end are dropped
  //   (a hint: early writeback has started them; those still dirty or
  //   under writeback stay, and go at a later drop);
  // - the pages more than kStreamWaitLag behind its end are written back,
  //   waited for and dropped, so that on a device slower than the
  //   encoding no more than about kStreamWaitLag + 2 x kStreamDropLag
  //   stay. That wait rarely blocks on a device that keeps up: waiting
  //   for the pages 16 MiB behind cost a 1M-object commit 16 % of its
  //   time here (bench/catalogue/README.md).
  // Nothing is durable before the commit's fsync; a writeback error the
  // wait returns fails the commit (the kernel reports it only once).
  DropBehind drop(w, t->desc.offset);
  return StreamIndexTable(tb.ns, tb.revision, tb.names.names(), tb.entries, piece,
                          [w, &drop](std::string_view p) {
                            Status s = w->ContinueContiguous(p);
                            return s.ok() ? drop.Handed() : s;
                          },
                          &t->desc.checksum);
}

Status WriteBuiltTable(const NextTable& t, Writer* w, size_t piece, uint64_t* offset) {
  // Built in memory (entries of the base among them), written in pieces
  // so that its pages are dropped as it goes, as a streamed table's are:
  // one large pwrite would take a page-cache page the process never
  // touched for every byte of it, commit after commit.
  Status s = w->ReserveContiguous(t.bytes.size(), offset);
  if (!s.ok()) return s;
  DropBehind drop(w, *offset);
  std::string_view rest = t.bytes;
  while (!rest.empty() && s.ok()) {
    std::string_view p = rest.substr(0, piece);
    rest.remove_prefix(p.size());
    s = w->ContinueContiguous(p);
    if (s.ok()) s = drop.Handed();
  }
  return s;
}

Status AdoptNextTable(NextTable t, const std::string& where, std::shared_ptr<const IndexTable>* out) {
  if (t.reused || t.streamed) {
    *out = std::move(t.table);
    return Status::OK();
  }
  std::shared_ptr<IndexTable> parsed;
  // The bytes were built here and t.desc.checksum hashed from them: their
  // trailing checksum needs no second pass.
  Status s = ParseIndexTable(std::move(t.bytes), where, &parsed, true);
  *out = std::move(parsed);
  return s;
}

}  // namespace cairn
