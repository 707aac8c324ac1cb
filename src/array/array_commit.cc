// The commit step of global arrays (array_commit.h; doc/design.md "Global
// arrays"): what the ranks put is combined on rank 0, checked, and written
// as descriptors into the shared namespace, before any table of the commit
// is encoded, so the arrays are part of the same atomic revision.
#include "array/array_commit.h"

#include <algorithm>
#include <cstring>
#include <set>

#include "array/array_state.h"
#include "format/coding.h"
#include "store/crash_point.h"
#include "store/out_of_memory.h"

namespace cairn {

namespace {

constexpr uint64_t kOkBit = 1ull << 62;        // this rank's status is ok ...
constexpr uint64_t kNoArraysBit = 1ull << 61;  // ... and it touched no array

void PutTags(std::string* o, const TagList& tags) {
  PutVarint64(o, tags.size());
  for (const Tag& t : tags) {
    PutLengthPrefixed(o, t.name);
    o->push_back(char(t.value.type_code()));
    EncodeTagPayload(t.value, o);
  }
}

bool GetTags(Decoder* d, TagList* tags) {
  uint64_t n = d->Varint64();
  for (uint64_t i = 0; i < n && !d->failed(); i++) {
    Tag t;
    t.name = std::string(d->LengthPrefixed());
    uint8_t code = d->U8();
    if (d->failed() || !DecodeTagPayload(code, d, &t.value).ok()) return false;
    tags->push_back(std::move(t));
  }
  return !d->failed();
}

// This rank's array changes of the round.
std::string EncodeRound(const ArrayState& a) {
  std::string o;
  PutVarint64(&o, a.puts.size());
  for (const auto& [name, p] : a.puts) {
    PutLengthPrefixed(&o, name);
    o.push_back(char(p.dtype));
    o.push_back(char(p.shape.size()));
    for (uint64_t x : p.shape) PutFixed64(&o, x);
    PutTags(&o, p.tags);
    PutVarint64(&o, p.blocks.size());
    for (const PendingBlock& b : p.blocks) {
      PutFixed32(&o, b.seq);
      o.push_back(b.stats ? 1 : 0);
      for (uint64_t x : b.start) PutFixed64(&o, x);
      for (uint64_t x : b.count) PutFixed64(&o, x);
      if (b.stats) {
        PutFixed64(&o, b.min);
        PutFixed64(&o, b.max);
      }
    }
  }
  PutVarint64(&o, a.deletes.size());
  for (const auto& name : a.deletes) PutLengthPrefixed(&o, name);
  return o;
}

std::string Shape(const std::vector<uint64_t>& v) {
  std::string s = "[";
  for (size_t i = 0; i < v.size(); i++) s += (i ? ", " : "") + std::to_string(v[i]);
  return s + "]";
}

// Rank 0: one array of the round, merged over the ranks.
struct Merged {
  ArrayMeta meta;  // dtype, shape and the blocks as listed (irregular form)
  TagList tags;    // lowest rank's value per name
  int first_rank = -1;
  std::vector<uint8_t> has_stats;
  bool deleted = false;
  int deleted_by = -1;
};

// Where blocks a and b (of m's irregular lists) overlap: true if they do.
bool Overlap(const ArrayMeta& m, uint64_t a, uint64_t b) {
  size_t nd = m.ndims();
  for (size_t d = 0; d < nd; d++) {
    uint64_t sa = m.starts[a * nd + d], ca = m.counts[a * nd + d];
    uint64_t sb = m.starts[b * nd + d], cb = m.counts[b * nd + d];
    if (!(sa < sb + cb && sb < sa + ca)) return false;
  }
  return true;
}

std::string BlockText(const ArrayMeta& m, uint64_t i) {
  size_t nd = m.ndims();
  std::vector<uint64_t> s(m.starts.begin() + i * nd, m.starts.begin() + (i + 1) * nd);
  std::vector<uint64_t> c(m.counts.begin() + i * nd, m.counts.begin() + (i + 1) * nd);
  return "rank " + std::to_string(m.ns[i]) + " block at " + Shape(s) + " of " + Shape(c);
}

// Makes `m` regular (O(1) bytes of geometry) if its blocks tile a grid of
// equal cells, each cell exactly once; then they cannot overlap.
bool MakeRegular(ArrayMeta* m) {
  size_t nd = m->ndims();
  uint64_t nb = m->nblocks;
  if (nb == 0) return false;
  // The cell shape is the count of the block at the origin.
  uint64_t origin = nb;
  for (uint64_t i = 0; i < nb && origin == nb; i++) {
    bool zero = true;
    for (size_t d = 0; d < nd && zero; d++) zero = m->starts[i * nd + d] == 0;
    if (zero) origin = i;
  }
  if (origin == nb) return false;
  std::vector<uint64_t> bs(m->counts.begin() + origin * nd, m->counts.begin() + (origin + 1) * nd);
  std::vector<uint64_t> grid(nd);
  uint64_t cells = 1;
  for (size_t d = 0; d < nd; d++) {
    if (bs[d] == 0) return false;
    grid[d] = m->shape[d] / bs[d] + (m->shape[d] % bs[d] != 0);
    if (cells > UINT64_MAX / grid[d]) return false;
    cells *= grid[d];
  }
  if (cells != nb) return false;
  std::vector<uint64_t> at(nb, UINT64_MAX);  // cell -> block
  for (uint64_t i = 0; i < nb; i++) {
    uint64_t cell = 0;
    for (size_t d = 0; d < nd; d++) {
      uint64_t s = m->starts[i * nd + d], c = m->counts[i * nd + d];
      if (s % bs[d] != 0 || c != std::min(bs[d], m->shape[d] - s)) return false;
      cell = cell * grid[d] + s / bs[d];
    }
    if (at[cell] != UINT64_MAX) return false;  // two blocks in one cell: the sweep reports it
    at[cell] = i;
  }
  // Blocks renumbered in grid order.
  std::vector<uint32_t> ns(nb), seq(nb);
  std::vector<uint64_t> mm(m->stats ? 2 * nb : 0);
  bool identity = true;
  for (uint64_t c = 0; c < nb; c++) {
    ns[c] = m->ns[at[c]];
    seq[c] = m->seq[at[c]];
    identity = identity && ns[c] == c && seq[c] == 0;
    if (m->stats) {
      mm[2 * c] = m->minmax[2 * at[c]];
      mm[2 * c + 1] = m->minmax[2 * at[c] + 1];
    }
  }
  m->regular = true;
  m->identity = identity;
  m->block_shape = bs;
  m->grid = grid;
  m->starts.clear();
  m->counts.clear();
  if (identity) {
    m->ns.clear();
    m->seq.clear();
  } else {
    m->ns = std::move(ns);
    m->seq = std::move(seq);
  }
  m->minmax = std::move(mm);
  return true;
}

// Irregular blocks: a sweep along the dimension with the most distinct
// starts; each block is compared only with the blocks still open there.
Status CheckNoOverlap(const std::string& name, const ArrayMeta& m) {
  size_t nd = m.ndims();
  uint64_t nb = m.nblocks;
  size_t dim = 0;
  uint64_t best = 0;
  std::vector<uint64_t> v(nb);
  for (size_t d = 0; d < nd; d++) {
    for (uint64_t i = 0; i < nb; i++) v[i] = m.starts[i * nd + d];
    std::sort(v.begin(), v.end());
    uint64_t distinct = uint64_t(std::unique(v.begin(), v.end()) - v.begin());
    if (distinct > best) best = distinct, dim = d;
  }
  std::vector<uint64_t> order(nb);
  for (uint64_t i = 0; i < nb; i++) order[i] = i;
  std::sort(order.begin(), order.end(),
            [&](uint64_t a, uint64_t b) { return m.starts[a * nd + dim] < m.starts[b * nd + dim]; });
  std::vector<uint64_t> open;
  for (uint64_t b : order) {
    uint64_t s = m.starts[b * nd + dim];
    open.erase(std::remove_if(open.begin(), open.end(),
                              [&](uint64_t o) { return m.starts[o * nd + dim] + m.counts[o * nd + dim] <= s; }),
               open.end());
    for (uint64_t o : open)
      if (Overlap(m, o, b))
        return Status::InvalidArgument("array '" + name + "': blocks overlap: " + BlockText(m, o) + " and " +
                                       BlockText(m, b));
    open.push_back(b);
  }
  return Status::OK();
}

// Rank 0: combines the ranks' rounds, checks them, and builds the
// descriptors; *descs gets (name, encoded descriptor, tags) to put, *gone
// the arrays deleted. Nothing is changed here.
struct Desc {
  std::string name, bytes;
  TagList tags;
};
Status CombineRounds(Store::Rep* r, const std::vector<std::string>& rounds, std::vector<Desc>* descs,
                     std::vector<std::string>* gone) {
  std::map<std::string, Merged> all;
  for (size_t rank = 0; rank < rounds.size(); rank++) {
    Decoder d(rounds[rank]);
    uint64_t nputs = d.Varint64();
    for (uint64_t k = 0; k < nputs && !d.failed(); k++) {
      std::string name(d.LengthPrefixed());
      DType dtype = DType(d.U8());
      size_t nd = d.U8();
      if (nd == 0 || nd > size_t(kMaxArrayDims)) d.Fail();
      std::vector<uint64_t> shape(d.failed() ? 0 : nd);
      for (auto& x : shape) x = d.U64();
      TagList tags;
      if (!GetTags(&d, &tags)) break;
      Merged& g = all[name];
      if (g.first_rank < 0) {
        g.first_rank = int(rank);
        g.meta.dtype = dtype;
        g.meta.shape = shape;
      } else if (g.meta.dtype != dtype || g.meta.shape != shape) {
        return Status::InvalidArgument("array '" + name + "': rank " + std::to_string(g.first_rank) + " puts " +
                                       DTypeName(g.meta.dtype) + " " + Shape(g.meta.shape) + " but rank " +
                                       std::to_string(rank) + " puts " + DTypeName(dtype) + " " + Shape(shape));
      }
      for (Tag& t : tags) {  // ranks come in order: the lowest rank's value stays
        bool have = false;
        for (const Tag& o : g.tags) have = have || o.name == t.name;
        if (!have) g.tags.push_back(std::move(t));
      }
      uint64_t nb = d.Varint64();
      if (nb > d.remaining()) d.Fail();
      for (uint64_t i = 0; i < nb && !d.failed(); i++) {
        g.meta.ns.push_back(uint32_t(rank));
        g.meta.seq.push_back(d.U32());
        bool st = d.U8() != 0;
        for (size_t x = 0; x < nd; x++) g.meta.starts.push_back(d.U64());
        for (size_t x = 0; x < nd; x++) g.meta.counts.push_back(d.U64());
        g.has_stats.push_back(st);
        g.meta.minmax.push_back(st ? d.U64() : 0);
        g.meta.minmax.push_back(st ? d.U64() : 0);
        g.meta.nblocks++;
      }
    }
    uint64_t ndel = d.Varint64();
    for (uint64_t k = 0; k < ndel && !d.failed(); k++) {
      std::string name(d.LengthPrefixed());
      Merged& g = all[name];
      if (!g.deleted) g.deleted_by = int(rank);
      g.deleted = true;
    }
    if (d.failed()) return Status::Corruption("array changes of rank " + std::to_string(rank) + " are malformed (internal error)");
  }
  for (auto& [name, g] : all) {
    if (g.deleted && g.first_rank >= 0)
      return Status::InvalidArgument("array '" + name + "' is put by rank " + std::to_string(g.first_rank) +
                                     " and deleted by rank " + std::to_string(g.deleted_by) + " in the same commit");
    if (g.deleted) {
      gone->push_back(name);
      continue;
    }
    ArrayMeta& m = g.meta;
    // Kept when any block has them (a put with statistics on some ranks
    // only lost them all); the others get the "none" pair.
    m.stats = m.nblocks > 0 && std::any_of(g.has_stats.begin(), g.has_stats.end(), [](uint8_t x) { return x != 0; });
    if (!m.stats) m.minmax.clear();
    for (uint64_t i = 0; m.stats && i < m.nblocks; i++)
      if (!g.has_stats[i]) NoBlockStatistics(m.dtype, &m.minmax[2 * i], &m.minmax[2 * i + 1]);
    for (uint32_t n : m.ns) m.max_ns = std::max(m.max_ns, n);
    if (!MakeRegular(&m)) {
      Status s = CheckNoOverlap(name, m);
      if (!s.ok()) return s;
    }
    descs->push_back(Desc{name, EncodeArrayMeta(m), std::move(g.tags)});
  }
  // A revision of N ranks continued on M < N: the namespaces M..N-1 are not
  // carried, so an array not put again must not have blocks there.
  uint32_t m_ranks = uint32_t(r->comm->size());
  std::vector<std::string> left;  // arrays the commit cannot carry
  if (r->current.revision != 0 && r->current.nranks > m_ranks) {
    std::shared_ptr<const IndexTable> t;
    Status s = r->Table(kSharedNamespace, &t);
    if (!s.ok()) return s;
    if (t) {
      auto it = std::lower_bound(t->keys.begin(), t->keys.end(), kArrayDescPrefix);
      for (; it != t->keys.end() && it->substr(0, 2) == kArrayDescPrefix; ++it) {
        std::string name(it->substr(2));
        if (all.count(name)) continue;
        EntryView e;
        s = DecodeEntryBody(t->entries[size_t(it - t->keys.begin())], &e);
        std::string bytes(e.size, '\0');
        if (s.ok()) s = r->ReadValue(e, 0, e.size, bytes.data(), ReadOptions());
        ArrayMeta m;
        if (s.ok()) s = DecodeArrayMeta(bytes, r->Where(kSharedNamespace) + " array '" + name + "'", &m);
        if (!s.ok()) return s;
        if (m.nblocks > 0 && m.max_ns >= m_ranks) {
          // Named with the namespaces its dropped blocks are in (the
          // first few): where they are, not the whole dropped range.
          std::set<uint32_t> where;
          for (uint64_t b = 0; b < m.nblocks; b++)
            if (m.BlockNs(b) >= m_ranks) where.insert(m.BlockNs(b));
          std::string list;
          size_t shown = 0;
          for (uint32_t ns : where) {
            if (shown == 8) {
              list += " and " + std::to_string(where.size() - shown) + " more";
              break;
            }
            list += (shown++ ? ", " : "") + std::to_string(ns);
          }
          left.push_back("'" + name + "' (namespace" + (where.size() == 1 ? " " : "s ") + list + ")");
        }
      }
    }
  }
  // Every such array is named at once, so that one failed commit tells the
  // user all they must put again or delete.
  if (!left.empty()) {
    std::string names;
    for (size_t i = 0; i < left.size() && i < 20; i++) names += (i ? ", " : "") + left[i];
    if (left.size() > 20) names += " and " + std::to_string(left.size() - 20) + " more";
    return Status::InvalidArgument(
        std::string(left.size() == 1 ? "array " : "arrays ") + names + (left.size() == 1 ? " has" : " have") +
        " blocks in revision " + std::to_string(r->current.revision) + " (written on " +
        std::to_string(r->current.nranks) + " ranks) that a commit on " + std::to_string(m_ranks) +
        (m_ranks == 1 ? " rank" : " ranks") + " does not carry: put " + (left.size() == 1 ? "it" : "each") +
        " again (read it with GetArray first) or delete it");
  }
  return Status::OK();
}

// This rank's block keys of `name` in its committed table, calling fn(key, seq).
void ForEachCommittedBlock(Store::Rep* r, const std::string& name,
                           const std::function<void(std::string_view, uint32_t)>& fn) {
  uint32_t me = uint32_t(r->comm->rank());
  if (r->current.revision == 0 || me >= r->current.nranks) return;
  std::shared_ptr<const IndexTable> t;
  if (!r->Table(me, &t).ok() || !t) return;
  std::string prefix = ArrayBlockPrefix(name);
  auto it = std::lower_bound(t->keys.begin(), t->keys.end(), std::string_view(prefix));
  for (; it != t->keys.end() && it->substr(0, prefix.size()) == prefix; ++it) {
    uint32_t seq;
    if (ParseArrayBlockKey(*it, name, &seq)) fn(*it, seq);
  }
}

// The end of the message of an array step that ran out of memory.
constexpr char kArrayStepFailed[] = " (its array step); no revision was made";
// The first byte of rank 0's reply, which every rank reads even without
// room for the rest (Comm::Bcast's `first`): the step succeeded (then the
// names of the arrays put and deleted follow) or failed (then its status;
// or nothing: kNoRoomForOutcome, rank 0 could not even encode it).
constexpr char kStepOk = '+';
constexpr char kStepFailed = '-';
constexpr char kNoRoomForOutcome = '!';
// The end of the message of a rank that could not take in or apply a reply
// that said the step succeeded: the arrays stay pending (rank 0's
// descriptors list this rank's blocks too) and the next commit commits them.
constexpr char kReplyLost[] = " (rank 0's reply to its array step); no revision was made";

// "rank R: " + s, or s alone if there is no memory for the longer message.
Status OfRank(int rank, Status s) noexcept {
  try {
    return Status(s.code(), "rank " + std::to_string(rank) + ": " + s.message());
  } catch (...) {
    return s;
  }
}

// The round failed: this rank's new block objects go back to what the
// committed revision holds under their keys.
void RevertRound(Store::Rep* r, ArrayState* a) {
  uint32_t me = uint32_t(r->comm->rank());
  std::shared_ptr<const IndexTable> t;
  if (r->current.revision != 0 && me < r->current.nranks) (void)r->Table(me, &t);
  for (const auto& [name, p] : a->puts) {
    for (const PendingBlock& b : p.blocks) {
      std::string key = ArrayBlockKey(name, b.seq);
      // The key is pending (this round put it), so neither can fail.
      ptrdiff_t i = t ? t->Find(key) : -1;
      if (i >= 0) (void)r->own.Put(key, t->entries[size_t(i)]);
      else (void)r->own.Delete(key);
    }
  }
  a->puts.clear();
  a->deletes.clear();
}

// Rank 0's part of CommitArrays: the rounds combined into descriptors put
// into the shared namespace's pending changes (or, on failure, none), and
// the reply when they are (*out: ok, then the names of the arrays put or
// deleted). *out_of_memory: it failed for want of memory.
Status CombineOnRoot(Store::Rep* r, const std::vector<std::string>& rounds, std::string* out,
                     bool* out_of_memory) {
  Status s;
  // The descriptors go into the shared namespace's pending changes; if
  // one cannot be written, those already put are taken back.
  std::vector<std::string> done;
  try {
    TestBadAllocPoint("array_combine", 0);
    std::vector<Desc> descs;
    std::vector<std::string> gone;
    s = CombineRounds(r, rounds, &descs, &gone);
    if (s.ok()) {  // (the reply first: nothing is put if it cannot be made)
      out->push_back(kStepOk);
      PutVarint64(out, descs.size());  // the names put, then those deleted
      for (const Desc& d : descs) PutLengthPrefixed(out, d.name);
      for (const std::string& n : gone) PutLengthPrefixed(out, n);
    }
    done.reserve(descs.size() + gone.size());  // (no key put and not listed)
    for (size_t i = 0; i < descs.size() && s.ok(); i++) {
      std::string key = ArrayDescKey(descs[i].name);
      s = r->PutInto(&r->shared, key, descs[i].bytes, descs[i].tags);
      if (s.ok()) done.push_back(std::move(key));
      if (s.ok() && i == 0) TestBadAllocPoint("array_rollback", 0);  // tests: the next put ran out
    }
    for (size_t i = 0; i < gone.size() && s.ok(); i++) {
      std::string key = ArrayDescKey(gone[i]);
      std::string_view old;
      if (r->shared.Lookup(key, &old)) {  // (not there: deleted by a failed earlier round)
        s = r->shared.Delete(key);
        if (s.ok()) done.push_back(std::move(key));
      }
    }
  } catch (const std::bad_alloc&) {
    *out_of_memory = true;
  } catch (const std::length_error&) {
    *out_of_memory = true;
  }
  if (*out_of_memory) s = OutOfMemoryError("commit of", r->path, kArrayStepFailed);
  if (!s.ok()) {
    // Taking them back can itself need memory (a base entry larger than
    // the pending slot, the arena's compaction). If it cannot, the shared
    // namespace may keep a descriptor of blocks the round is about to
    // discard, which a later commit would save: the handle takes no more
    // commits (reopen), and the reply still goes out, so no rank waits.
    Status back = UnlessOutOfMemoryThen("commit of", r->path, kArrayStepFailed, [&] {
      std::shared_ptr<const IndexTable> t;
      (void)r->Table(kSharedNamespace, &t);
      TestBadAllocPoint("array_rollback", 0);
      for (const std::string& key : done) {
        ptrdiff_t i = t ? t->Find(key) : -1;
        Status u = i >= 0 ? r->shared.Put(key, t->entries[size_t(i)]) : r->shared.Delete(key);
        if (!u.ok()) return u;
      }
      return Status::OK();
    });
    if (!back.ok()) r->poisoned = std::move(back);  // (moved: no allocation)
  }
  return s;
}

void ApplyReply(Store::Rep* r, ArrayState* a, std::string_view reply);

Status CommitArrays(Store::Rep* r, ArrayState* a) {
  Comm* c = r->comm.get();
  int rank = c->rank();
  // Out of memory for a rank's round sends an empty one (an encoded round
  // never is), and rank 0 out of memory for the rounds or their
  // descriptors fails the round: either way rank 0's status below says
  // so, every rank returns it, and no collective step is left or added.
  auto guarded = [&](auto&& f) { return UnlessOutOfMemoryThen("commit of", r->path, kArrayStepFailed, f); };
  std::string round;
  Status mine = guarded([&] {
    TestBadAllocPoint("array_round", rank);
    round = EncodeRound(*a);
    return Status::OK();
  });
  if (!mine.ok()) round = std::string();
  std::vector<std::string> rounds;
  // (Rank 0 without room for the rounds throws after every rank left the
  // gather: Comm::Gather.)
  Status gathered = guarded([&] {
    c->Gather(round, &rounds, 0);
    return Status::OK();
  });
  round = std::string();
  std::string out;  // kStepOk and the names of the arrays put or deleted, or kStepFailed and a status
  if (rank == 0) {
    Status s = gathered;
    int failed = s.ok() ? -1 : 0;  // the rank that ran out of memory
    for (size_t i = 0; i < rounds.size() && s.ok(); i++)
      if (rounds[i].empty()) {
        failed = int(i);
        s = OutOfMemoryError("commit of", r->path, kArrayStepFailed);
      }
    bool out_of_memory = false;
    if (s.ok()) s = CombineOnRoot(r, rounds, &out, &out_of_memory);
    if (out_of_memory) failed = 0;
    rounds = std::vector<std::string>();
    if (!s.ok()) {
      out = std::string();
      try {
        if (failed >= 0) s = Status(s.code(), "rank " + std::to_string(failed) + ": " + s.message());
        out.push_back(kStepFailed);
        PutLengthPrefixed(&out, EncodeStatus(s));
      } catch (const std::bad_alloc&) {
        out = std::string(1, kNoRoomForOutcome);  // (short: no allocation)
      } catch (const std::length_error&) {
        out = std::string(1, kNoRoomForOutcome);
      }
    }
  }
  // A rank without room for the reply still has its first byte, which
  // says whether the step failed on rank 0: every rank takes the same way
  // (before, such a rank threw out of the commit, and when the step had
  // succeeded the others waited for it in the commit's gather).
  char lead = 0;
  Status took = UnlessOutOfMemoryThen("commit of", r->path, kReplyLost, [&] {
    c->Bcast(&out, 0, "array_outcome", false, &lead);
    return Status::OK();
  });
  if (lead != kStepOk) {
    // Rank 0's failure; a rank that cannot read it fails with its own.
    Status s = !took.ok() ? OfRank(rank, std::move(took)) : guarded([&] {
      if (out.size() <= 1) return OfRank(0, OutOfMemoryError("commit of", r->path, kArrayStepFailed));
      Decoder d(std::string_view(out).substr(1));
      return DecodeStatus(std::string(d.LengthPrefixed()));
    });
    if (s.ok()) s = Status::IOError("commit of '" + r->path + "': rank 0's array step failed without a status");  // (cannot be)
    RevertRound(r, a);
    return Status(s.code(), s.message() + " (the array puts and deletes since revision " +
                                std::to_string(r->current.revision) + " were discarded: put them again)");
  }
  // Every array put or deleted: this rank's block objects the new
  // revision does not list are deleted (retention then frees their space).
  // Out of memory here, or for the reply, fails this rank's next step of
  // the commit (TakeArrayStepFailure); the round is rank 0's descriptors
  // now, and stays pending, as after any commit that fails after its
  // array step (a block key deleted here stays deleted: the descriptors do
  // not list it).
  a->committing_puts.clear();
  a->committing_deletes.clear();
  Status applied = !took.ok() ? std::move(took) : UnlessOutOfMemoryThen("commit of", r->path, kReplyLost, [&] {
    ApplyReply(r, a, std::string_view(out).substr(1));
    return Status::OK();
  });
  a->puts.clear();
  a->deletes.clear();
  if (!applied.ok()) {
    a->committing_puts.clear();
    a->committing_deletes.clear();
    a->lost_reply = std::move(applied);
  }
  return Status::OK();
}

// Rank 0's reply to a step that succeeded (after kStepOk: the number of
// names put, then the names put and deleted), applied to this rank.
void ApplyReply(Store::Rep* r, ArrayState* a, std::string_view reply) {
  Decoder d(reply);
  TestBadAllocPoint("array_apply", r->comm->rank());
  uint64_t put_names = d.Varint64();
  for (uint64_t i = 0; d.remaining() > 0 && !d.failed(); i++) {
    std::string name(d.LengthPrefixed());
    (i < put_names ? a->committing_puts : a->committing_deletes).insert(name);
    auto p = a->puts.find(name);
    uint32_t keep = p == a->puts.end() ? 0 : p->second.next_seq;
    std::vector<std::string> stale;
    ForEachCommittedBlock(r, name, [&](std::string_view key, uint32_t seq) {
      if (seq >= keep) stale.emplace_back(key);
    });
    // A delete fails only past the pending limit (NamespaceState::Delete),
    // and only for a committed block: it stays in the revision, where no
    // read uses a block its descriptor does not list, and the next commit
    // of the array finds it again (ForEachCommittedBlock) and deletes it.
    for (const std::string& key : stale) (void)r->own.Delete(key);
    auto o = a->overlay_seqs.find(name);
    if (o != a->overlay_seqs.end()) {
      for (uint32_t seq = keep; seq < o->second; seq++) (void)r->own.Delete(ArrayBlockKey(name, seq));
      if (keep == 0) a->overlay_seqs.erase(o);
      else o->second = keep;
    }
  }
}

}  // namespace

Status AgreeCommittableWithArrays(Store::Rep* r, const Status& local) {
  Comm* c = r->comm.get();
  ArrayState* a = ArraysOf(r);
  a->committing_puts.clear();  // this commit's (CommitArrays), if it has an array step
  a->committing_deletes.clear();
  // One reduction, as AgreeStatus makes: the lowest failing rank, or (all
  // ok) whether any rank touched an array.
  uint64_t v = local.ok() ? (kOkBit | (a->touched() ? 0 : kNoArraysBit)) : uint64_t(c->rank());
  uint64_t m = c->size() == 1 ? v : c->AllreduceMin(v);
  if (m < kOkBit) {
    if (c->size() == 1) return local;
    std::string bytes;
    if (uint64_t(c->rank()) == m) bytes = EncodeStatus(local);
    c->Bcast(&bytes, int(m));
    Status s = DecodeStatus(bytes);
    return Status(s.code(), "rank " + std::to_string(m) + ": " + s.message());
  }
  bool any = (m & kNoArraysBit) == 0;
  bool shrunk = r->current.revision != 0 && r->current.nranks > uint32_t(c->size());
  if (!any && !shrunk) return Status::OK();
  return CommitArrays(r, a);
}

Status TakeArrayStepFailure(Store::Rep* r) {
  if (!r->arrays) return Status::OK();
  Status s = std::move(r->arrays->lost_reply);
  r->arrays->lost_reply = Status::OK();
  return s;
}

void DiscardPendingArrays(Store::Rep* r) {
  if (!r->arrays) return;
  r->arrays->puts.clear();
  r->arrays->deletes.clear();
}

}  // namespace cairn
