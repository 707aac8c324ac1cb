// Direct reads (CAIRN_DIRECT_READ_BYTES) against retention's reuse of
// extents, staging, asynchronous commits and streams: what
// direct_read_mix_test (one process) and mpi_direct_read_mix_test (each
// rank reading another's namespace) share. A revision is kMixKeys values
// of one extent each, so that a commit with keep_revisions 1 frees whole
// extents and the revision after the next puts its values there; every
// read goes into page-aligned memory and checks every byte, and the tests
// count IoStats::direct_read_bytes: all of it where the bytes are only on
// the device, none where the page cache holds them (dirty or clean).
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "cairn/store.h"
#include "format/manifest_format.h"
#include "page_cache.h"
#include "store/inspect.h"
#include "store_test_util.h"
#include "test_util.h"

namespace cairn::test {

constexpr uint64_t kMixExtent = 1ull << 20;
constexpr int kMixKeys = 4;
constexpr uint64_t kMixBytes = kMixKeys * kMixExtent;  // one revision's values
constexpr uint64_t kMixInline = 64;

// CAIRN_DIRECT_READ_BYTES for the life of the object (read by Store::Open).
struct DirectEnv {
  explicit DirectEnv(const char* v = "65536") { setenv("CAIRN_DIRECT_READ_BYTES", v, 1); }
  ~DirectEnv() { unsetenv("CAIRN_DIRECT_READ_BYTES"); }
};

// keep_revisions 1; chunks of a quarter extent; with `staging`, puts are
// copied to staging buffers and written by the I/O thread.
inline Options MixOptions(bool sync, bool staging, int subfiles = 1) {
  Options o;
  o.extent_size = kMixExtent;
  o.chunk_size = kMixExtent / 4;
  o.write_buffer_size = kMixExtent / 4;
  o.inline_value_limit = kMixInline;
  o.keep_revisions = 1;
  o.sync = sync;
  o.staging_bytes = staging ? kMixExtent : 0;
  o.subfiles = subfiles;
  return o;
}

inline std::string MixKey(int i) { return "k" + std::to_string(i); }
inline std::string MixValue(int rank, int rev, int i) {
  return Pattern(uint64_t(rank) * 100000 + uint64_t(rev) * 100 + uint64_t(i), kMixExtent);
}
// Rank `rank`'s values of revision `rev`, by key.
inline std::map<std::string, std::string> MixWant(int rank, int rev) {
  std::map<std::string, std::string> m;
  for (int i = 0; i < kMixKeys; i++) m[MixKey(i)] = MixValue(rank, rev, i);
  return m;
}

// The bytes that end the writer's current run of data file `subfile`
// (0 if it is at an extent boundary): the last commit appended the index
// tables (rank 0's file holds them all) after the values, and the next
// values, packed behind them, would start off the sector that direct
// reads need. A value of these bytes put first ends the run (a pad that
// would be inline gets a whole extent more, and ends the next run).
inline uint64_t MixPad(const Store& s, uint32_t subfile) {
  uint64_t end = 0;
  for (const NamespaceDesc& d : Inspector::Record(s).namespaces)
    if (d.length > 0 && d.subfile == subfile) end = std::max(end, d.offset + d.length);
  uint64_t pad = (kMixExtent - end % kMixExtent) % kMixExtent;
  return pad == 0 || pad > kMixInline ? pad : pad + kMixExtent;
}

// Puts rank `rank`'s values of revision `rev` (after the pad, if any).
inline void PutMix(Store* s, uint32_t subfile, int rank, int rev) {
  uint64_t pad = MixPad(*s, subfile);
  if (pad > 0) {
    ASSERT_TRUE(s->Put("pad", std::string(pad, 'p')).ok());
  }
  for (const auto& [k, v] : MixWant(rank, rev)) ASSERT_TRUE(s->Put(k, v).ok());
}

// Where each value of `want` starts in data file `file` (read through the
// page cache: call it where the bytes are cached anyway, or drop after).
inline std::vector<uint64_t> MixOffsets(const std::string& file, const std::map<std::string, std::string>& want) {
  std::vector<uint64_t> at;
  for (const auto& [k, v] : want) at.push_back(FileOffsetOf(file, v.substr(0, 64)));
  return at;
}

// Bytes read directly by ReadMix: by its reads of one value each, and by
// its MultiGet of them all.
struct MixDirect {
  uint64_t each = 0, all = 0;
};

// Reads every value of `want` (of namespace ro.rank) into page-aligned
// memory, one GetRange per key, then one MultiGet of them all; each read
// must be ok (no Corruption) with exactly the wanted bytes.
inline MixDirect ReadMix(Store* s, const std::map<std::string, std::string>& want, const ReadOptions& ro = {}) {
  MixDirect d;
  uint64_t before = s->stats().direct_read_bytes;
  for (const auto& [k, v] : want) {
    PageArena a(v.size());
    Status st = s->GetRange(k, 0, a.data, v.size(), ro);
    EXPECT_TRUE(st.ok()) << k << ": " << st.ToString();
    EXPECT_EQ(std::memcmp(a.data, v.data(), v.size()), 0) << k << ": not the bytes put";
  }
  d.each = s->stats().direct_read_bytes - before;
  before = s->stats().direct_read_bytes;
  std::vector<std::string> keys;
  std::vector<std::unique_ptr<PageArena>> mem;
  std::vector<Store::ValueBuffer> bufs;
  for (const auto& [k, v] : want) {
    keys.push_back(k);
    mem.push_back(std::make_unique<PageArena>(v.size()));
    bufs.push_back({mem.back()->data, v.size(), 0});
  }
  std::vector<Status> st;
  Status m = s->MultiGet(keys, &bufs, &st, ro);
  EXPECT_TRUE(m.ok()) << m.ToString();
  size_t i = 0;
  for (const auto& [k, v] : want) {
    EXPECT_EQ(bufs[i].size, v.size()) << k;
    EXPECT_EQ(std::memcmp(mem[i]->data, v.data(), v.size()), 0) << k << ": not the bytes put (MultiGet)";
    i++;
  }
  d.all = s->stats().direct_read_bytes - before;
  return d;
}

// Bytes only on the device (`what` says which): every value is read
// directly, alone and by the MultiGet (whose readahead advice skips the
// blocks it may read directly: advised, they came into the cache and only
// the first block was read directly).
inline void ExpectDirect(const MixDirect& d, uint64_t bytes, const std::string& what) {
  EXPECT_EQ(d.each, bytes) << what << ": not read directly";
  EXPECT_EQ(d.all, bytes) << what << ": not read directly (MultiGet)";
}
// Bytes in the page cache, dirty or clean (`what` says which): nothing is
// read directly.
inline void ExpectCached(const MixDirect& d, const std::string& what) {
  EXPECT_EQ(d.each, 0u) << what << ": read directly";
  EXPECT_EQ(d.all, 0u) << what << ": read directly (MultiGet)";
}

}  // namespace cairn::test
