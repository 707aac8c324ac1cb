// Reads a damaged copy of the reference store (damage_store.h) every way a
// user can — read-only opens of every revision, Get, GetTags, List, the
// verification behind `cairn verify`, and a writable open that commits —
// and records what was reported and whether anything came back wrong.
#pragma once

#include <set>
#include <string>
#include <vector>

#include "damage_store.h"

namespace cairn::test {

struct Outcome {
  std::vector<std::string> wrong;  // data or behaviour that must never happen
  bool newest_reported = false;    // opening the newest revision or reading it failed
  bool reads_reported = false;     // some open or read of some revision failed
  bool verify_reported = false;    // verification (or the open before it) found a problem
  bool writer_reported = false;    // a writable open refused the store
  uint64_t newest_seen = 0;        // revision a plain read-only open showed (0: failed or none)
  std::vector<uint64_t> missing;   // revisions an explicit open did not find
  bool writer_committed = false;   // a writable open committed a new revision that reads back
  std::string first_report;        // one message, for the test's log
};

// An error is acceptable when it says the store is damaged, from a newer
// version, or lacks what was asked, and names something.
inline bool ClearError(const Status& s) {
  return (s.IsCorruption() || s.IsNotSupported() || s.IsNotFound()) && !s.message().empty();
}

// A problem line or message names the object, record or file it is about.
inline bool NamesSomething(const std::string& m) {
  for (const char* w : {"key '", "MANIFEST", "manifest", "data.0", "index", "'k", "'meta'"})
    if (m.find(w) != std::string::npos) return true;
  return false;
}

// Checks a read of one namespace of revision `rev` against its model.
inline void CheckNamespace(Store* s, const Namespace& model, int rank, uint64_t rev, Outcome* out,
                           bool* reported) {
  ReadOptions ro;
  ro.rank = rank;
  std::string where = "revision " + std::to_string(rev) + (rank == ReadOptions::kShared ? " shared" : " rank 0");
  auto note = [&](const Status& st, const std::string& what) {
    if (!ClearError(st)) out->wrong.push_back(where + " " + what + ": unclear error " + st.ToString());
    else if (!NamesSomething(st.message())) out->wrong.push_back(where + " " + what + ": names nothing: " + st.ToString());
    *reported = true;
    if (out->first_report.empty()) out->first_report = st.ToString();
  };
  for (const auto& [key, obj] : model) {
    std::string v = "sentinel";
    Status st = s->Get(key, &v, ro);
    if (st.ok() && v != obj.value) out->wrong.push_back(where + " key " + key + ": WRONG VALUE returned");
    if (!st.ok() && st.IsNotFound()) out->wrong.push_back(where + " key " + key + ": silently missing");
    if (!st.ok()) note(st, "get " + key);
    TagList tags;
    st = s->GetTags(key, &tags, ro);
    if (st.ok() && tags != obj.tags) out->wrong.push_back(where + " key " + key + ": WRONG TAGS returned");
    if (!st.ok() && st.IsNotFound()) out->wrong.push_back(where + " key " + key + ": tags silently missing");
    if (!st.ok()) note(st, "tags " + key);
  }
  std::string v;
  Status st = s->Get("absent", &v, ro);
  if (st.ok()) out->wrong.push_back(where + ": a key that does not exist was returned");
  std::vector<ObjectInfo> objs;
  st = s->List(&objs, ro);
  if (st.ok()) {
    std::set<std::string> keys;
    for (const ObjectInfo& o : objs) {
      keys.insert(o.key);
      auto it = model.find(o.key);
      if (it == model.end() || it->second.value.size() != o.size || it->second.tags != o.tags)
        out->wrong.push_back(where + ": List returned a wrong object " + o.key);
    }
    if (keys.size() != model.size()) out->wrong.push_back(where + ": List lost objects");
  } else {
    note(st, "list");
  }
}

inline void CheckStore(const std::string& path, const std::vector<RevisionModel>& revs, bool try_writer,
                       Outcome* out) {
  uint64_t newest = revs.size() - 1;
  for (uint64_t rev = 0; rev <= newest; rev++) {
    Options o = DamageOptions();
    o.read_only = true;
    o.create_if_missing = false;
    o.revision = rev;
    std::unique_ptr<Store> s;
    Status st = Store::Open(o, path, &s);
    if (!st.ok() && rev != 0 && st.IsNotFound()) {
      out->missing.push_back(rev);  // the revision's record is gone (cut off, or taken for a torn tail)
      continue;
    }
    if (!st.ok()) {
      if (!ClearError(st) || !NamesSomething(st.message()))
        out->wrong.push_back("open revision " + std::to_string(rev) + ": unclear error " + st.ToString());
      out->reads_reported = out->verify_reported = true;
      if (rev == 0) out->newest_reported = true;
      if (out->first_report.empty()) out->first_report = st.ToString();
      continue;
    }
    uint64_t got = s->revision();
    if (rev == 0) out->newest_seen = got;
    if ((rev != 0 && got != rev) || got > newest) {
      out->wrong.push_back("open of revision " + std::to_string(rev) + " showed revision " + std::to_string(got));
      continue;
    }
    if (got == 0) continue;  // no revision left: nothing to read
    bool reported = false;
    CheckNamespace(s.get(), revs[got].own, 0, got, out, &reported);
    CheckNamespace(s.get(), revs[got].shared, ReadOptions::kShared, got, out, &reported);
    if (reported) {
      out->reads_reported = true;
      if (rev == 0) out->newest_reported = true;
    }
    VerifyReport rep;
    st = Inspector::Verify(s.get(), &rep);
    if (!st.ok()) out->wrong.push_back("verify could not run: " + st.ToString());
    for (const std::string& p : rep.problems) {
      out->verify_reported = true;
      if (!NamesSomething(p)) out->wrong.push_back("verify problem names nothing: " + p);
    }
    // Whatever the reads reported, verification must report too.
    if (reported && rep.problems.empty())
      out->wrong.push_back("revision " + std::to_string(got) + ": reads failed but verify found nothing");
  }
  if (!try_writer) return;
  Options o = DamageOptions();
  o.create_if_missing = false;
  std::unique_ptr<Store> s;
  Status st = Store::Open(o, path, &s);
  if (!st.ok()) {
    if (!ClearError(st) || !NamesSomething(st.message()))
      out->wrong.push_back("writable open: unclear error " + st.ToString());
    out->writer_reported = true;
    return;
  }
  uint64_t base = s->revision();
  if (base != out->newest_seen)
    out->wrong.push_back("writable open at revision " + std::to_string(base) + ", read-only at " +
                         std::to_string(out->newest_seen));
  std::string fresh = Pattern(base + 999, 30000);
  uint64_t rev = 0;
  st = s->Put("fresh", fresh);
  if (st.ok()) st = s->Commit(&rev);
  s.reset();
  if (!st.ok()) {
    out->wrong.push_back("writable open succeeded but commit failed: " + st.ToString());
    return;
  }
  if (rev != base + 1) out->wrong.push_back("new commit numbered " + std::to_string(rev));
  Options ro = DamageOptions();
  ro.read_only = true;
  st = Store::Open(ro, path, &s);
  std::string v;
  if (st.ok()) st = s->Get("fresh", &v);
  if (!st.ok() || v != fresh || s->revision() != rev)
    out->wrong.push_back("the revision committed after the damage does not read back: " + st.ToString());
  else
    out->writer_committed = true;
}

}  // namespace cairn::test
