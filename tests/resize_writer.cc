// The MPI program of the rank-count tests (tests/resize_test.sh): one store
// written and reopened read-write by jobs of different sizes. Namespace k of
// revision R holds values whose bytes depend only on (k, R), so any later
// job, on any number of ranks, checks a revision without remembering
// anything:
//   v0, v1, v2  Value(k, R, i), tags rev = R, ns = k
//   log         a text stream, tags rev = R, ns = k
//   born        put once, by the first revision B whose rank k found no
//               "born" in its namespace: Value(k, B, 99), tag born = B;
//               then carried, while the rank count stays above k
//   shared meta "revision R ranks N"
//
//   resize_writer STORE write R [BASE]
//       commits revision R on this job's rank count from revision BASE
//       (default R - 1; another BASE is a rollback, opened by
//       Options::revision). Before it puts anything, every rank checks
//       every namespace of BASE (writer_ranks() of them, whatever the job's
//       size) through Get, GetTags, List, Query, streams and QueryAll, and
//       that it starts from namespace `rank` of BASE (empty if BASE has no
//       such namespace). Before the commit, QueryAll must show the new
//       values of the job's ranks and the old ones of namespaces no rank
//       owns; after it, exactly size() namespaces.
//   resize_writer STORE check R N
//       opens revision R read-only: it must have N namespaces, all intact.
//   resize_writer STORE array-put R
//       commits revision R with array "field" (every rank one block of a
//       16 x 5 int32 array) besides the objects of `write`.
//   resize_writer STORE array-stale R
//       on fewer ranks than wrote "field": a commit that neither puts nor
//       deletes it must fail with InvalidArgument naming it; then every
//       rank reads its new rows with GetArray and puts them, and that
//       commit (revision R) succeeds with the array's blocks on this job's
//       ranks only.
// Environment: CAIRN_TEST_KEEP=K opens with keep_revisions = K;
// CAIRN_TEST_ASYNC=1 stages puts and commits with CommitAsync;
// CAIRN_TEST_SUBFILES=K opens with subfiles = K.
#include <mpi.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <set>
#include <string>
#include <vector>

#include "cairn/store.h"
#include "cairn/stream.h"
#include "test_util.h"

using cairn::ReadOptions;
using cairn::Status;
using cairn::TagQuery;
using cairn::TagValue;
using cairn::test::Pattern;

namespace {

int g_rank = 0;
int g_bad = 0;

void Fail(const std::string& what) {
  std::fprintf(stderr, "rank %d: %s\n", g_rank, what.c_str());
  g_bad = 1;
}
bool Ok(const Status& s, const std::string& what) {
  if (!s.ok()) Fail(what + ": " + s.ToString());
  return s.ok();
}

std::string Value(int ns, uint64_t rev, int i) {
  return Pattern(uint64_t(ns) * 1000003ull + rev * 101 + uint64_t(i), size_t(3000 + 150000 * (i % 3)));
}
std::string LogText(int ns, uint64_t rev) {
  std::string t;
  for (int i = 0; i < 2000; i++) t += "ns " + std::to_string(ns) + " rev " + std::to_string(rev) + " line " + std::to_string(i) + "\n";
  return t;
}
std::string Meta(uint64_t rev, int ranks) {
  return "revision " + std::to_string(rev) + " ranks " + std::to_string(ranks);
}
const std::vector<std::string> kKeys = {"born", "log", "v0", "v1", "v2"};

int64_t TagInt(const cairn::TagList& tags, const std::string& name) {
  for (const auto& t : tags)
    if (t.name == name) return int64_t(t.value.as_double());  // any numeric type
  return -1;
}

// Every check of namespace `ns` of revision `rev`, read through ro.rank.
void CheckNamespace(cairn::Store* s, int ns, uint64_t rev) {
  std::string where = "namespace " + std::to_string(ns) + " of revision " + std::to_string(rev);
  ReadOptions ro;
  ro.rank = ns;
  std::vector<cairn::ObjectInfo> objs;
  if (!Ok(s->List(&objs, ro), "List " + where)) return;
  std::vector<std::string> keys;
  for (const auto& o : objs) keys.push_back(o.key);
  if (keys != kKeys) {
    std::string got;
    for (const auto& k : keys) got += k + " ";
    return Fail("List " + where + ": keys " + got);
  }
  for (int i = 0; i < 3; i++) {
    std::string k = "v" + std::to_string(i), v;
    cairn::TagList tags;
    if (Ok(s->Get(k, &v, ro), "Get " + k + " " + where) && v != Value(ns, rev, i)) Fail(k + " of " + where + " differs");
    if (Ok(s->GetTags(k, &tags, ro), "GetTags " + where) &&
        (TagInt(tags, "rev") != int64_t(rev) || TagInt(tags, "ns") != ns))
      Fail("tags of " + k + " of " + where);
  }
  cairn::TagList tags;
  std::string v;
  if (Ok(s->GetTags("born", &tags, ro), "GetTags born " + where)) {
    int64_t b = TagInt(tags, "born");
    if (b < 1 || uint64_t(b) > rev) Fail("born of " + where + " has born=" + std::to_string(b));
    else if (Ok(s->Get("born", &v, ro), "Get born " + where) && v != Value(ns, uint64_t(b), 99))
      Fail("born of " + where + " differs");
  }
  std::unique_ptr<cairn::StreamReader> r;
  if (Ok(s->OpenReadStream("log", &r, ro), "OpenReadStream " + where)) {
    std::string text(r->Size(), '\0');
    size_t got = 0;
    if (Ok(r->Read(text.data(), text.size(), &got), "stream read " + where) &&
        (got != text.size() || text != LogText(ns, rev)))
      Fail("stream log of " + where + " differs");
  }
  std::vector<std::string> hits;
  if (Ok(s->Query({TagQuery::Equal("ns", TagValue::Int(ns))}, &hits, ro), "Query " + where) &&
      hits != std::vector<std::string>({"log", "v0", "v1", "v2"}))
    Fail("Query of " + where + ": " + std::to_string(hits.size()) + " hits");
}

// QueryAll for tag rev == `rev` must give exactly namespaces `want`, each
// with log, v0, v1, v2.
void CheckQueryAll(cairn::Store* s, uint64_t rev, const std::vector<int>& want, const std::string& when) {
  std::vector<cairn::QueryHit> hits;
  if (!Ok(s->QueryAll({TagQuery::Equal("rev", TagValue::UInt(rev))}, &hits), "QueryAll " + when)) return;
  std::vector<cairn::QueryHit> expect;
  for (int ns : want)
    for (const char* k : {"log", "v0", "v1", "v2"}) expect.push_back(cairn::QueryHit{ns, k});
  if (hits != expect) {
    std::string got;
    for (const auto& h : hits) got += std::to_string(h.rank) + ":" + h.key + " ";
    Fail("QueryAll rev=" + std::to_string(rev) + " " + when + ": got " + got);
  }
}

std::vector<int> Range(int from, int to) {
  std::vector<int> v;
  for (int i = from; i < to; i++) v.push_back(i);
  return v;
}

// The puts of revision `rev` by this rank (namespace `me`).
void PutRevision(cairn::Store* s, int me, int size, uint64_t rev) {
  cairn::TagList tags = {{"rev", TagValue::UInt(rev)}, {"ns", TagValue::Int(me)}};
  std::string buf;
  for (int i = 0; i < 3; i++) {
    buf = Value(me, rev, i);
    Ok(s->Put("v" + std::to_string(i), buf, tags), "Put");
    buf.assign(buf.size(), 'x');  // with staging the revision holds what was put
  }
  std::unique_ptr<cairn::StreamWriter> w;
  if (Ok(s->OpenWriteStream("log", tags, &w), "OpenWriteStream")) {
    std::string t = LogText(me, rev);
    for (size_t at = 0; at < t.size(); at += 7000) Ok(w->Write(std::string_view(t).substr(at, 7000)), "stream write");
    Ok(w->Close(), "stream close");
  }
  uint64_t bytes = 0;
  if (s->GetSize("born", &bytes).IsNotFound())
    Ok(s->Put("born", Value(me, rev, 99), {{"born", TagValue::UInt(rev)}}), "Put born");
  if (me == 0) Ok(s->PutShared("meta", Meta(rev, size)), "PutShared");
}

Status CommitNow(cairn::Store* s, bool async, uint64_t* got) {
  if (!async) return s->Commit(got);
  cairn::AsyncCommit h;
  Status st = s->CommitAsync(&h);
  if (!st.ok()) return st;
  // Something to do while it is in flight: read the revision it replaces.
  std::string v;
  (void)s->Get("v1", &v);
  return h.Wait(got);
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &g_rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (argc < 4) {
    if (g_rank == 0) std::fprintf(stderr, "usage: resize_writer STORE write|check|array-put|array-stale R [BASE|N]\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  std::string path = argv[1], mode = argv[2];
  uint64_t rev = std::strtoull(argv[3], nullptr, 10);
  cairn::Options o;
  o.extent_size = 64 << 10;
  o.write_buffer_size = 64 << 10;
  if (const char* k = std::getenv("CAIRN_TEST_KEEP")) o.keep_revisions = std::strtoull(k, nullptr, 10);
  if (const char* k = std::getenv("CAIRN_TEST_SUBFILES")) o.subfiles = std::atoi(k);
  const char* a = std::getenv("CAIRN_TEST_ASYNC");
  bool async = a && *a == '1';
  if (async) o.staging_bytes = 1 << 20;
  std::unique_ptr<cairn::Store> s;

  if (mode == "check") {
    int n = argc > 4 ? std::atoi(argv[4]) : -1;
    o.read_only = true;
    o.revision = rev;
    if (Ok(cairn::Store::Open(o, path, MPI_COMM_WORLD, &s), "open read-only at " + std::to_string(rev))) {
      if (s->revision() != rev) Fail("opened revision " + std::to_string(s->revision()));
      if (s->writer_ranks() != n) Fail("writer_ranks() " + std::to_string(s->writer_ranks()) + ", expected " + std::to_string(n));
      for (int ns = 0; ns < n; ns++) CheckNamespace(s.get(), ns, rev);
      std::string meta;
      if (Ok(s->GetShared("meta", &meta), "GetShared") && meta != Meta(rev, n)) Fail("meta is '" + meta + "'");
      CheckQueryAll(s.get(), rev, Range(0, n), "read-only");
    }
  } else if (mode == "write" || mode == "array-put" || mode == "array-stale") {
    uint64_t base = argc > 4 ? std::strtoull(argv[4], nullptr, 10) : rev - 1;
    if (base != rev - 1) o.revision = base;  // a rollback
    if (Ok(cairn::Store::Open(o, path, MPI_COMM_WORLD, &s), "open read-write")) {
      if (s->revision() != base) Fail("store at revision " + std::to_string(s->revision()) + ", expected " + std::to_string(base));
      int n = s->writer_ranks();
      std::vector<cairn::RevisionInfo> revs;
      s->ListRevisions(&revs);
      if (base == 0 && n != size) Fail("writer_ranks() of an empty store is " + std::to_string(n));
      if (base > 0) {
        auto it = std::find_if(revs.begin(), revs.end(), [&](const cairn::RevisionInfo& i) { return i.revision == base; });
        if (it == revs.end() || int(it->ranks) != n) Fail("ListRevisions does not show revision " + std::to_string(base) + " with " + std::to_string(n) + " ranks");
        // Every namespace of the base, by every rank, whatever the size.
        for (int ns = 0; ns < n; ns++) CheckNamespace(s.get(), ns, base);
        // Rank r starts from namespace r of the base, or empty.
        std::vector<cairn::ObjectInfo> own;
        Ok(s->List(&own), "List own");
        if (g_rank < n && own.size() != kKeys.size()) Fail("own namespace has " + std::to_string(own.size()) + " objects, expected those of namespace " + std::to_string(g_rank));
        if (g_rank >= n && !own.empty()) Fail("own namespace of a rank the base did not have is not empty");
        std::string v;
        if (g_rank < n && Ok(s->Get("v2", &v), "Get own v2") && v != Value(g_rank, base, 2)) Fail("own v2 is not namespace " + std::to_string(g_rank) + "'s");
        ReadOptions ro;
        ro.rank = n;
        std::vector<cairn::ObjectInfo> none;
        if (n != g_rank && !s->List(&none, ro).IsInvalidArgument()) Fail("List of namespace " + std::to_string(n) + " is not InvalidArgument");
        CheckQueryAll(s.get(), base, Range(0, n), "after open");
      }
      if (mode == "array-stale") {
        // The commit that forgets the array must fail, naming it.
        PutRevision(s.get(), g_rank, size, rev);
        uint64_t got = 0;
        Status st = CommitNow(s.get(), async, &got);
        // Both arrays left behind are named by the one failed commit.
        // Each is named with the namespace its dropped blocks are in (the
        // last writer's: both arrays have rows on every writer rank).
        std::string in_last = " (namespace " + std::to_string(size) + ")";
        if (!st.IsInvalidArgument() || st.message().find("'field'" + in_last) == std::string::npos ||
            st.message().find("'field2'" + in_last) == std::string::npos ||
            st.message().find("a commit on " + std::to_string(size) + " ranks") == std::string::npos)
          Fail("a commit on " + std::to_string(size) + " ranks that puts neither array 'field' nor 'field2' again: " + st.ToString());
        // 'field2' is deleted (by one rank: enough), 'field' put again below.
        if (g_rank == 0) Ok(s->DeleteArray("field2"), "DeleteArray field2");
      }
      PutRevision(s.get(), g_rank, size, rev);
      if (mode == "array-put" || mode == "array-stale") {
        // A 16 x 5 int32 array, rows split over the ranks; its element
        // (i, j) is 100 i + j. array-stale reads its rows back first.
        uint64_t r0 = uint64_t(16 * g_rank / size), r1 = uint64_t(16 * (g_rank + 1) / size);
        std::vector<int32_t> rows((r1 - r0) * 5), want(rows.size());
        for (uint64_t i = r0; i < r1; i++)
          for (uint64_t j = 0; j < 5; j++) want[(i - r0) * 5 + j] = int32_t(100 * i + j);
        if (mode == "array-stale") {
          if (Ok(s->GetArray("field", {r0, 0}, {r1 - r0, 5}, rows.data()), "GetArray") && rows != want)
            Fail("GetArray of rows " + std::to_string(r0) + ".." + std::to_string(r1) + " differs");
        } else {
          rows = want;
        }
        Ok(s->PutArray("field", cairn::DType::kInt32, {16, 5}, {r0, 0}, {r1 - r0, 5}, rows.data()), "PutArray");
        // A second array, 'field2' (the same rows flattened), left behind
        // by array-stale with 'field'.
        if (mode == "array-put")
          Ok(s->PutArray("field2", cairn::DType::kInt32, {80}, {r0 * 5}, {(r1 - r0) * 5}, rows.data()), "PutArray field2");
      }
      // Pending: the job's ranks show their new values, namespaces no
      // rank owns (a restart on fewer ranks) still the base's.
      CheckQueryAll(s.get(), rev, Range(0, size), "before the commit");
      if (base > 0) CheckQueryAll(s.get(), base, Range(size, n), "before the commit");
      uint64_t got = 0;
      if (Ok(CommitNow(s.get(), async, &got), "commit") && got != rev) Fail("committed as " + std::to_string(got));
      if (s->writer_ranks() != size) Fail("after the commit writer_ranks() is " + std::to_string(s->writer_ranks()));
      s->ListRevisions(&revs);
      if (revs.empty() || revs.back().revision != rev || int(revs.back().ranks) != size || revs.back().parent != base)
        Fail("ListRevisions does not end with revision " + std::to_string(rev) + " (parent " + std::to_string(base) + ", " + std::to_string(size) + " ranks)");
      ReadOptions ro;
      ro.rank = size;
      std::vector<cairn::ObjectInfo> none;
      if (!s->List(&none, ro).IsInvalidArgument()) Fail("after the commit, namespace " + std::to_string(size) + " is listed");
      CheckQueryAll(s.get(), rev, Range(0, size), "after the commit");
      for (int ns = 0; ns < size; ns++) CheckNamespace(s.get(), ns, rev);
      if (mode == "array-stale") {
        cairn::ArrayInfo gone;
        if (!s->GetArrayInfo("field2", &gone).IsNotFound()) Fail("deleted array 'field2' is still in the new revision");
      }
      if (mode == "array-put" || mode == "array-stale") {
        cairn::ArrayInfo info;
        if (Ok(s->GetArrayInfo("field", &info, true), "GetArrayInfo")) {
          std::set<int> ranks;
          for (const auto& b : info.blocks) ranks.insert(b.rank);
          if (info.blocks.empty() || *ranks.rbegin() >= size) Fail("array 'field' has a block outside namespaces 0.." + std::to_string(size - 1));
        }
        std::vector<int32_t> all(80);
        if (Ok(s->GetArray("field", {0, 0}, {16, 5}, all.data()), "GetArray all"))
          for (int i = 0; i < 80; i++)
            if (all[size_t(i)] != int32_t(100 * (i / 5) + i % 5)) {
              Fail("array element " + std::to_string(i) + " differs");
              break;
            }
      }
    }
  } else {
    Fail("unknown mode " + mode);
  }
  if (s) Ok(s->Close(), "close");
  int worst = 0;
  MPI_Allreduce(&g_bad, &worst, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  MPI_Finalize();
  return worst;
}
