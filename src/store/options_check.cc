#include "store/options_check.h"

#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "format/coding.h"

namespace cairn {

namespace {

using Named = std::vector<std::pair<std::string, std::string>>;

// The options every rank must share, by name, as text. Local tuning
// (write_buffer_size, chunk_size, inline_value_limit, writeback_bytes) may
// differ.
Named Collective(const Options& o, const std::string& path) {
  auto u = [](uint64_t v) { return std::to_string(v); };
  auto b = [](bool v) { return std::string(v ? "true" : "false"); };
  char t[32];
  std::snprintf(t, sizeof t, "%g", o.collective_timeout_s);
  return {{"store path", "'" + path + "'"},
          {"read_only", b(o.read_only)},
          {"create_if_missing", b(o.create_if_missing)},
          {"error_if_exists", b(o.error_if_exists)},
          {"revision", u(o.revision)},
          {"sync", b(o.sync)},
          {"staging_bytes", u(o.staging_bytes)},
          {"extent_size", u(o.extent_size)},
          {"subfiles", std::to_string(o.subfiles)},
          {"keep_revisions", u(o.keep_revisions)},
          {"compact_index_limit", u(o.compact_index_limit)},
          {"collective_timeout_s", t},
          {"require_writer_lock", b(o.require_writer_lock)}};
}

std::string Encode(const Named& n) {
  std::string o;
  for (const auto& [name, value] : n) {
    PutLengthPrefixed(&o, name);
    PutLengthPrefixed(&o, value);
  }
  return o;
}

Named Decode(const std::string& bytes) {
  Named n;
  Decoder d(bytes);
  while (d.remaining() > 0 && !d.failed()) {
    std::string name(d.LengthPrefixed());
    std::string value(d.LengthPrefixed());
    n.emplace_back(std::move(name), std::move(value));
  }
  return n;
}

bool IsPow2(uint64_t v) { return v && !(v & (v - 1)); }

// This node's memory in bytes (0 if unknown).
uint64_t NodeMemory() {
  long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
  return pages > 0 && page > 0 ? uint64_t(pages) * uint64_t(page) : 0;
}

}  // namespace

Status ValidateOptions(const Options& o) {
  const std::pair<const char*, uint64_t> sizes[] = {
      {"extent_size", o.extent_size},
      {"chunk_size", o.chunk_size},
      {"write_buffer_size", o.write_buffer_size},
      {"writeback_bytes", o.writeback_bytes},
      {"inline_value_limit", o.inline_value_limit},
      {"compact_index_limit", o.compact_index_limit},
      {"staging_bytes", o.staging_bytes},
  };
  for (const auto& [name, v] : sizes)
    if (v >> 63)
      return Status::InvalidArgument(std::string(name) + " is " + std::to_string(v) + " (" +
                                     std::to_string(int64_t(v)) +
                                     " as a signed 64-bit integer): a byte size must be below 2^63");
  if (!IsPow2(o.extent_size) || o.extent_size < 4096)
    return Status::InvalidArgument("extent_size must be a power of two >= 4096");
  if (!IsPow2(o.chunk_size) || o.chunk_size < 4096)
    return Status::InvalidArgument("chunk_size must be a power of two >= 4096");
  if (o.write_buffer_size < 4096) return Status::InvalidArgument("write_buffer_size must be >= 4096");
  if (o.inline_value_limit > (1u << 20)) return Status::InvalidArgument("inline_value_limit must be <= 1 MiB");
  if (o.compact_index_limit > (256u << 20)) return Status::InvalidArgument("compact_index_limit must be <= 256 MiB");
  if (o.subfiles < 0) return Status::InvalidArgument("subfiles must be >= 0");
  if (!(o.collective_timeout_s >= 0)) return Status::InvalidArgument("collective_timeout_s must be >= 0");
  if (o.staging_bytes != 0 && o.staging_bytes < o.write_buffer_size)
    return Status::InvalidArgument("staging_bytes must be 0 or at least write_buffer_size");
  // A writable open allocates the write buffer and prefaults the staging
  // budget: past the node's memory that would throw std::bad_alloc out of
  // Open, or wake the OOM killer, instead of returning a Status.
  if (!o.read_only) {
    const uint64_t mem = NodeMemory();
    for (const auto& [name, v] : {std::pair<const char*, uint64_t>{"write_buffer_size", o.write_buffer_size},
                                  {"staging_bytes", o.staging_bytes}})
      if (mem && v > mem)
        return Status::InvalidArgument(std::string(name) + " is " + std::to_string(v) +
                                       " bytes, more than this node's memory (" + std::to_string(mem) +
                                       " bytes); a writable open allocates it");
  }
  return Status::OK();
}

std::string EncodeCollectiveOptions(const Options& o, const std::string& path) {
  return Encode(Collective(o, path));
}

Status CheckSameOptions(Comm* comm, const Options& o, const std::string& path) {
  if (comm->size() == 1) return Status::OK();
  std::string root = comm->rank() == 0 ? EncodeCollectiveOptions(o, path) : std::string();
  comm->Bcast(&root, 0);
  return ExplainOptionDifference(comm, o, path, root);
}

Status ExplainOptionDifference(Comm* comm, const Options& o, const std::string& path,
                               const std::string& root) {
  int rank = comm->rank();
  Named mine = Collective(o, path);
  Named want = Decode(root);
  // Each rank: the names (in order) and values of its differing options.
  Named diff;
  for (size_t i = 0; i < mine.size(); i++)
    if (i >= want.size() || want[i] != mine[i]) diff.push_back(mine[i]);
  std::vector<std::string> all;
  comm->Gather(Encode(diff), &all, 0);
  std::string verdict;
  if (rank == 0) {
    // The first option (in the order above) that some rank differs on,
    // with every rank that differs on it; other differing names after it.
    std::map<std::string, size_t> order;
    for (size_t i = 0; i < mine.size(); i++) order[mine[i].first] = i;
    size_t first = mine.size();
    std::vector<Named> per_rank(all.size());
    for (size_t r = 0; r < all.size(); r++) {
      per_rank[r] = Decode(all[r]);
      for (const auto& [name, value] : per_rank[r]) {
        auto it = order.find(name);
        if (it != order.end() && it->second < first) first = it->second;
      }
    }
    if (first < mine.size()) {
      const std::string& name = mine[first].first;
      std::string msg = "Options differ across the ranks opening the store (collective options and the path "
                        "must be the same on every rank): " + name + " is " + mine[first].second + " on rank 0";
      std::set<size_t> others;
      for (size_t r = 0; r < per_rank.size(); r++) {
        for (const auto& [n, v] : per_rank[r]) {
          if (n == name) msg += ", " + v + " on rank " + std::to_string(r);
          else if (order.count(n)) others.insert(order[n]);
        }
      }
      std::string also;
      for (size_t i : others) also += (also.empty() ? "" : ", ") + mine[i].first;
      if (!also.empty()) msg += " (these differ too: " + also + ")";
      verdict = msg;
    }
  }
  comm->Bcast(&verdict, 0);
  if (verdict.empty()) return Status::OK();
  return Status::InvalidArgument(verdict);
}

}  // namespace cairn
