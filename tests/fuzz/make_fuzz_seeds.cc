// Writes the fuzzers' seed corpora from real encodings, made by the same
// encoders the store writes with: make_fuzz_seeds OUTDIR makes
// OUTDIR/<target>/seed-N for each fuzz target.
#include <sys/stat.h>

#include <cstdio>
#include <string>
#include <vector>

#include "array/array_meta.h"
#include "format/index_format.h"
#include "format/manifest_format.h"
#include "format/subfile_header.h"
#include "format/tag_codec.h"

using namespace cairn;

static std::string out_dir;
static void Write(const std::string& target, int n, const std::string& bytes) {
  std::string dir = out_dir + "/" + target;
  mkdir(dir.c_str(), 0755);
  std::string path = dir + "/seed-" + std::to_string(n);
  FILE* f = fopen(path.c_str(), "wb");
  if (!f || fwrite(bytes.data(), 1, bytes.size(), f) != bytes.size()) abort();
  fclose(f);
}

// A tag list with every type, as the store encodes it.
static TagList AllTags() {
  int32_t a32[3] = {1, -2, 3};
  double af[2] = {0.5, -1e300};
  return {{"i8", TagValue::Int(-5, TagType::kInt8)},     {"i64", TagValue::Int(-123456789012)},
          {"u16", TagValue::UInt(65535, TagType::kUInt16)}, {"u64", TagValue::UInt(~0ull)},
          {"f32", TagValue::Float32(1.5f)},              {"f64", TagValue::Float64(-2.25)},
          {"s", TagValue::String("hello")},              {"b", TagValue::Bytes(std::string("\0\1\2", 3))},
          {"a32", TagValue::Array(TagType::kInt32, a32, 3)}, {"af", TagValue::Array(TagType::kFloat64, af, 2)},
          {"empty", TagValue::Array(TagType::kUInt8, nullptr, 0)}};
}

int main(int argc, char** argv) {
  if (argc != 2) return 2;
  out_dir = argv[1];
  mkdir(out_dir.c_str(), 0755);
  // Tags and entry bodies.
  NameDict dict;
  std::string tags;
  if (!EncodeTags(AllTags(), &dict, &tags).ok()) abort();
  Write("tags", 0, std::string(1, char(dict.size())) + tags);
  std::string few;
  EncodeTags({{"i8", TagValue::Int(1, TagType::kInt8)}}, &dict, &few);
  Write("tags", 1, std::string(1, char(dict.size())) + few);
  std::vector<std::string> bodies;
  bodies.emplace_back();
  EncodeEntryBody("alpha", ValueKind::kInline, 5, "hello", {}, tags, &bodies.back());
  std::vector<ChunkRef> chunks(3);
  for (size_t i = 0; i < chunks.size(); i++) {
    chunks[i].subfile = uint32_t(i % 2);
    chunks[i].offset = 65536 + i * 16384;
    chunks[i].length = chunks[i].raw_length = i == 2 ? 100 : 16384;
    chunks[i].checksum = 0x1234567890abcdefull * (i + 1);
  }
  bodies.emplace_back();
  EncodeEntryBody("beta", ValueKind::kChunked, 16384 * 2 + 100, {}, chunks, few, &bodies.back());
  bodies.emplace_back();
  EncodeEntryBody("gamma", ValueKind::kInline, 0, "", {}, std::string(1, '\0'), &bodies.back());
  for (size_t i = 0; i < bodies.size(); i++) Write("entry_body", int(i), bodies[i]);
  // Index tables: one with entries, one empty; mode byte 0 (as written).
  IndexTableBuilder b;
  uint64_t body_bytes = 0;
  for (auto& x : bodies) body_bytes += x.size();
  b.Begin(3, 7, bodies.size(), dict.names(), body_bytes);
  for (auto& x : bodies) b.Add(x);
  std::string table = b.Finish();
  Write("index_table", 0, std::string(1, '\0') + table);
  b.Begin(kSharedNamespace, 1, 0, {}, 0);
  Write("index_table", 1, std::string(1, '\0') + b.Finish());
  // Data file header.
  SubfileHeader sh;
  sh.subfile_id = 3;
  sh.store_id = std::string(16, 'S');
  Write("subfile_header", 0, std::string(1, '\0') + EncodeSubfileHeader(sh));
  // Manifests: a header, then 1 to 3 revision records of 1, 2 and 4 ranks,
  // and a torn final append.
  ManifestHeader mh;
  mh.store_id = std::string(16, 'M');
  mh.created_ns = 1700000000000000000ull;
  std::string man = EncodeManifestHeader(mh);
  Write("manifest", 0, std::string(1, '\0') + man);
  uint32_t ranks[] = {1, 2, 4};
  for (int r = 0; r < 3; r++) {
    RevisionRecord rec;
    rec.revision = r + 1;
    rec.parent = r;
    rec.time_ns = mh.created_ns + r;
    rec.nranks = ranks[r];
    rec.high_water = std::vector<uint64_t>(r + 1, (r + 2) << 20);
    rec.namespaces.resize(ranks[r] + 1);
    for (size_t n = 0; n < rec.namespaces.size(); n++)
      rec.namespaces[n] = NamespaceDesc{uint32_t(n % (r + 1)), 65536 + n * 100, 100, 42 + n, n, n * 1000};
    man += FrameRecord(RecordType::kRevision, EncodeRevisionPayload(rec));
    Write("manifest", r + 1, std::string(1, '\0') + man);
  }
  Write("manifest", 4, std::string(1, '\0') + man.substr(0, man.size() - 30));
  // Array descriptors: irregular with statistics, a regular grid with
  // identity placement, and one placed otherwise.
  {
    ArrayMeta irr;
    irr.shape = {10, 12};
    irr.nblocks = 2;
    irr.max_ns = 3;
    irr.ns = {0, 3};
    irr.seq = {0, 1};
    irr.starts = {0, 0, 5, 0};
    irr.counts = {5, 12, 5, 12};
    irr.stats = true;
    irr.minmax = {1, 2, 3, 4};
    ArrayMeta reg;
    reg.shape = {7, 8, 9};
    reg.regular = reg.identity = true;
    reg.block_shape = {7, 4, 9};
    reg.nblocks = 2;
    reg.max_ns = 1;
    ArrayMeta placed = reg;
    placed.identity = false;
    placed.ns = {1, 0};
    placed.seq = {0, 0};
    Write("array_meta", 0, EncodeArrayMeta(irr));
    Write("array_meta", 1, EncodeArrayMeta(reg));
    Write("array_meta", 2, EncodeArrayMeta(placed));
  }
  return 0;
}
