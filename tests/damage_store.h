// A small reference store for the damage tests (corruption_test,
// truncation_test): built once, copied per trial, then damaged. Every value
// and tag is known (Expected), and every byte of the files is classified by
// what it holds (Regions), so a test can tell a missed detection from a flip
// in bytes that nothing reads.
#pragma once

#include <cstdlib>
#include <filesystem>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "cairn/store.h"
#include "format/coding.h"
#include "format/index_format.h"
#include "format/manifest_format.h"
#include "store/inspect.h"
#include "test_util.h"

namespace cairn::test {

// The revision contents: key -> (value, tags), per namespace.
struct Object {
  std::string value;
  TagList tags;
};
using Namespace = std::map<std::string, Object>;
struct RevisionModel {
  Namespace own, shared;
};

inline Options DamageOptions() {
  Options o;
  o.extent_size = 64 * 1024;
  o.chunk_size = 16 * 1024;
  o.write_buffer_size = 32 * 1024;
  o.inline_value_limit = 100;
  o.sync = false;  // the damage tests never crash; fsyncs would only cost time
  return o;
}

// Kinds of bytes in a store, for reporting per kind.
enum Kind { kManifestHeader, kManifestRecord, kManifestLastRecord, kDataHeader, kIndexTable,
            kValueChunk, kDataUnused, kKinds };
inline const char* KindName(int k) {
  static const char* names[] = {"manifest header", "manifest record", "manifest newest record",
                                "data header", "index table", "value chunk", "data unused"};
  return names[k];
}

struct Range {
  std::string file;  // MANIFEST or data.NNNNN
  uint64_t begin, end;
};

// Builds the reference store at `path` (3 revisions of one rank plus the
// shared namespace) and returns the model of each revision (index = rev).
inline std::vector<RevisionModel> BuildReferenceStore(const std::string& path) {
  std::vector<RevisionModel> revs(1);
  std::unique_ptr<Store> s;
  Status st = Store::Open(DamageOptions(), path, &s);
  if (!st.ok()) { fprintf(stderr, "%s\n", st.ToString().c_str()); std::abort(); }
  RevisionModel cur;
  auto put = [&](const std::string& k, std::string v, TagList tags) {
    if (!s->Put(k, v, tags).ok()) std::abort();
    cur.own[k] = Object{std::move(v), std::move(tags)};
  };
  const size_t sizes[] = {0, 10, 90, 300, 20000, 40000};
  int32_t arr[3] = {1, -2, 3};
  for (uint64_t rev = 1; rev <= 3; rev++) {
    for (int i = 0; i < 6; i++) {
      // Revision 2 rewrites half of the objects, revision 3 the other half:
      // later revisions carry older chunks and entries.
      if (rev > 1 && (i % 2) != int(rev % 2)) continue;
      TagList tags = {{"rev", TagValue::UInt(rev)},
                      {"name", TagValue::String("k" + std::to_string(i))},
                      {"t", TagValue::Float64(rev * 0.5)}};
      if (i == 4) tags.push_back({"arr", TagValue::Array(TagType::kInt32, arr, 3)});
      put("k" + std::to_string(i), Pattern(rev * 100 + i, sizes[i]), tags);
    }
    if (rev == 2) {
      if (!s->Delete("k1").ok()) std::abort();
      cur.own.erase("k1");
    }
    if (rev == 3) put("k6", Pattern(777, 5000), {});
    std::string meta = "shared value of revision " + std::to_string(rev) + std::string(rev * 60, 'x');
    TagList mt = {{"rev", TagValue::Int(int64_t(rev), TagType::kInt16)}};
    if (!s->PutShared("meta", meta, mt).ok()) std::abort();
    cur.shared["meta"] = Object{meta, mt};
    uint64_t got = 0;
    st = s->Commit(&got);
    if (!st.ok() || got != rev) { fprintf(stderr, "%s\n", st.ToString().c_str()); std::abort(); }
    revs.push_back(cur);
  }
  s->Close();
  return revs;
}

inline std::string ReadWhole(const std::string& path) {
  std::string s(std::filesystem::file_size(path), '\0');
  FILE* f = fopen(path.c_str(), "rb");
  if (!f || fread(s.data(), 1, s.size(), f) != s.size()) std::abort();
  fclose(f);
  return s;
}

// Classifies every byte of the reference store, from its own bytes.
inline std::vector<std::vector<Range>> ClassifyStore(const std::string& path) {
  std::vector<std::vector<Range>> kinds(kKinds);
  std::string man = ReadWhole(path + "/MANIFEST");
  ParsedManifest pm;
  if (!ParseManifest(man, &pm).ok() || pm.revisions.empty()) std::abort();
  kinds[kManifestHeader].push_back({"MANIFEST", 0, kManifestHeaderSize});
  // Record boundaries: each record is 16 bytes of framing plus its payload.
  uint64_t off = kManifestHeaderSize;
  for (size_t i = 0; i < pm.revisions.size(); i++) {
    uint64_t len = DecodeFixed32(man.data() + off) + kRecordOverhead;
    kinds[i + 1 == pm.revisions.size() ? kManifestLastRecord : kManifestRecord].push_back(
        {"MANIFEST", off, off + len});
    off += len;
  }
  std::string data = ReadWhole(path + "/data.00000");
  std::vector<char> used(data.size(), 0);
  auto mark = [&](int kind, uint64_t b, uint64_t e) {
    kinds[kind].push_back({"data.00000", b, e});
    for (uint64_t i = b; i < e && i < used.size(); i++) used[i] = 1;
  };
  mark(kDataHeader, 0, 48);
  for (const RevisionRecord& r : pm.revisions) {
    for (size_t n = 0; n < r.namespaces.size(); n++) {
      const NamespaceDesc& d = r.namespaces[n];
      if (d.length == 0) continue;
      mark(kIndexTable, d.offset, d.offset + d.length);
      std::shared_ptr<IndexTable> t;
      if (!ParseIndexTable(data.substr(d.offset, d.length), "ref", &t).ok()) std::abort();
      for (std::string_view body : t->entries) {
        EntryView e;
        if (!DecodeEntryBody(body, &e).ok()) std::abort();
        for (const ChunkRef& c : e.chunks) mark(kValueChunk, c.offset, c.offset + c.length);
      }
    }
  }
  // Everything else in the data file: padding after the header, unused
  // space in extents. Merged into runs.
  for (uint64_t i = 0; i < used.size();) {
    if (used[i]) { i++; continue; }
    uint64_t j = i;
    while (j < used.size() && !used[j]) j++;
    kinds[kDataUnused].push_back({"data.00000", i, j});
    i = j;
  }
  return kinds;
}

// A uniformly chosen byte of the union of `ranges`.
inline std::pair<std::string, uint64_t> PickByte(const std::vector<Range>& ranges, std::mt19937_64& g) {
  uint64_t total = 0;
  for (const Range& r : ranges) total += r.end - r.begin;
  uint64_t k = std::uniform_int_distribution<uint64_t>(0, total - 1)(g);
  for (const Range& r : ranges) {
    if (k < r.end - r.begin) return {r.file, r.begin + k};
    k -= r.end - r.begin;
  }
  std::abort();
}

// Copies the reference store's files into a fresh `dst` directory.
inline void CopyStore(const std::string& src, const std::string& dst) {
  std::filesystem::remove_all(dst);
  std::filesystem::copy(src, dst);
}

// The long form of a test runs when CAIRN_LONG_TESTS is set (non-empty, not 0).
inline bool LongTests() {
  const char* v = std::getenv("CAIRN_LONG_TESTS");
  return v && *v && std::string(v) != "0";
}

}  // namespace cairn::test
