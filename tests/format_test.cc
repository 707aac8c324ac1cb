// Unit tests of every on-disk encoding: round trips, and rejection of
// truncated, bit-flipped and malformed input.
#include <gtest/gtest.h>

#include <random>
#include <set>

#include "format/checksum.h"
#include "format/coding.h"
#include "format/index_format.h"
#include "format/manifest_format.h"
#include "format/subfile_header.h"
#include "format/tag_codec.h"
#include "store/store_rep.h"

namespace cairn {
namespace {

TEST(Coding, VarintRoundTripAndBounds) {
  std::vector<uint64_t> vals = {0, 1, 127, 128, 300, 1ull << 32, UINT64_MAX};
  std::string s;
  for (uint64_t v : vals) PutVarint64(&s, v);
  Decoder d(s);
  for (uint64_t v : vals) EXPECT_EQ(d.Varint64(), v);
  EXPECT_FALSE(d.failed());
  EXPECT_EQ(d.remaining(), 0u);
  d.Varint64();
  EXPECT_TRUE(d.failed());  // read past the end
  std::string bad(11, char(0xff));  // never terminates within 64 bits
  Decoder d2(bad);
  d2.Varint64();
  EXPECT_TRUE(d2.failed());
  for (int64_t v : std::vector<int64_t>{0, -1, 1, INT64_MIN, INT64_MAX}) EXPECT_EQ(UnZigZag(ZigZag(v)), v);
}

TEST(Coding, FixedLittleEndian) {
  std::string s;
  PutFixed32(&s, 0x01020304);
  ASSERT_EQ(s.size(), 4u);
  EXPECT_EQ(s[0], 0x04);
  EXPECT_EQ(s[3], 0x01);
  PutFixed64(&s, 0x0102030405060708ull);
  EXPECT_EQ(DecodeFixed64(s.data() + 4), 0x0102030405060708ull);
}

TEST(Checksum, IsXxh3Of64Bits) {
  // Test vector: XXH3_64bits("") with seed 0 is 0x2d06800538d394c2.
  EXPECT_EQ(Checksum("", 0), 0x2d06800538d394c2ull);
}

TEST(SubfileHeader, RoundTripAndCorruption) {
  SubfileHeader h;
  h.subfile_id = 7;
  h.store_id = std::string(16, 'x');
  std::string b = EncodeSubfileHeader(h);
  ASSERT_EQ(b.size(), kSubfileHeaderSize);
  SubfileHeader g;
  ASSERT_TRUE(DecodeSubfileHeader(b, &g).ok());
  EXPECT_EQ(g.subfile_id, 7u);
  EXPECT_EQ(g.store_id, h.store_id);
  for (size_t i = 0; i < b.size(); i++) {
    std::string c = b;
    c[i] ^= 0x10;
    EXPECT_FALSE(DecodeSubfileHeader(c, &g).ok()) << "flip at " << i;
  }
  EXPECT_TRUE(DecodeSubfileHeader(b.substr(0, 20), &g).IsCorruption());
}

RevisionRecord SampleRecord(uint64_t rev, uint32_t nranks) {
  RevisionRecord r;
  r.revision = rev;
  r.parent = rev - 1;
  r.time_ns = 123456789;
  r.nranks = nranks;
  r.high_water = {1ull << 24, 1ull << 25};
  for (uint32_t i = 0; i <= nranks; i++)
    r.namespaces.push_back(NamespaceDesc{i % 2, 4096ull * i, 100 + i, 0xabcdef00ull + i, i, 1000ull * i});
  return r;
}

TEST(Manifest, HeaderRoundTripAndNewerVersion) {
  ManifestHeader h;
  h.store_id = std::string(16, 'q');
  h.created_ns = 42;
  std::string b = EncodeManifestHeader(h);
  ASSERT_EQ(b.size(), kManifestHeaderSize);
  ManifestHeader g;
  ASSERT_TRUE(DecodeManifestHeader(b, &g).ok());
  EXPECT_EQ(g.created_ns, 42u);
  h.version = kManifestFormatVersion + 1;
  EXPECT_TRUE(DecodeManifestHeader(EncodeManifestHeader(h), &g).IsNotSupported());
  b[0] = 'X';
  EXPECT_TRUE(DecodeManifestHeader(b, &g).IsCorruption());
}

std::string SampleManifest(int n) {
  ManifestHeader h;
  h.store_id = std::string(16, 's');
  std::string f = EncodeManifestHeader(h);
  for (int i = 1; i <= n; i++) f += FrameRecord(RecordType::kRevision, EncodeRevisionPayload(SampleRecord(i, 3)));
  return f;
}

TEST(Manifest, RecordsRoundTrip) {
  std::string f = SampleManifest(3);
  ParsedManifest pm;
  ASSERT_TRUE(ParseManifest(f, &pm).ok());
  ASSERT_EQ(pm.revisions.size(), 3u);
  EXPECT_EQ(pm.torn_bytes, 0u);
  EXPECT_EQ(pm.valid_end, f.size());
  const RevisionRecord& r = pm.revisions[2];
  RevisionRecord want = SampleRecord(3, 3);
  EXPECT_EQ(r.revision, 3u);
  EXPECT_EQ(r.high_water, want.high_water);
  ASSERT_EQ(r.namespaces.size(), 4u);
  EXPECT_EQ(r.namespaces[2].checksum, want.namespaces[2].checksum);
  EXPECT_EQ(r.shared().value_bytes, want.shared().value_bytes);
}

TEST(Manifest, TornTailIsNotCorruption) {
  std::string f = SampleManifest(3);
  std::string two = SampleManifest(2);
  for (size_t cut = two.size() + 1; cut < f.size(); cut += 7) {
    ParsedManifest pm;
    ASSERT_TRUE(ParseManifest(f.substr(0, cut), &pm).ok()) << cut;
    EXPECT_EQ(pm.revisions.size(), 2u);
    EXPECT_EQ(pm.valid_end, two.size());
    EXPECT_EQ(pm.torn_bytes, cut - two.size());
  }
}

TEST(Manifest, TornAndDamagedTailsAreToldApart) {
  std::string f = SampleManifest(3);
  std::string two = SampleManifest(2);
  ParsedManifest pm;
  ASSERT_TRUE(ParseManifest(f.substr(0, f.size() - 5), &pm).ok());  // cut short: torn
  EXPECT_FALSE(pm.damaged_tail);
  std::string zeros = two + std::string(f.size() - two.size(), '\0');  // extended, never filled
  ASSERT_TRUE(ParseManifest(zeros, &pm).ok());
  EXPECT_FALSE(pm.damaged_tail);
  std::string flipped = f;
  flipped[f.size() - 20] ^= 1;  // whole but damaged: maybe a committed record
  ASSERT_TRUE(ParseManifest(flipped, &pm).ok());
  EXPECT_TRUE(pm.damaged_tail);
  EXPECT_EQ(pm.revisions.size(), 2u);
}

TEST(Manifest, EveryFlippedByteIsDetected) {
  std::string f = SampleManifest(3);
  ParsedManifest clean;
  ASSERT_TRUE(ParseManifest(f, &clean).ok());
  for (size_t i = 0; i < f.size(); i++) {
    std::string c = f;
    c[i] ^= 0x01;
    ParsedManifest pm;
    Status s = ParseManifest(c, &pm);
    // Either an error, or the damaged record is dropped (as a damaged
    // record between intact ones, or at the tail): never a record with
    // different content.
    if (s.ok()) {
      ASSERT_LT(pm.revisions.size(), 3u) << "flip at " << i << " went unnoticed";
      EXPECT_TRUE(pm.torn_bytes > 0 || !pm.damaged.empty()) << i;
    }
  }
}

// A damaged record between intact ones is skipped: the records after it
// are read, the damage is listed, and writers (Manifest::Open) refuse.
TEST(Manifest, DamagedMiddleRecordIsSkipped) {
  std::string f = SampleManifest(3);
  size_t rec = (f.size() - kManifestHeaderSize) / 3;
  size_t second = kManifestHeaderSize + rec;
  f[second + 20] ^= 0x40;  // inside record 2's payload
  ParsedManifest pm;
  ASSERT_TRUE(ParseManifest(f, &pm).ok());
  ASSERT_EQ(pm.revisions.size(), 2u);
  EXPECT_EQ(pm.revisions[0].revision, 1u);
  EXPECT_EQ(pm.revisions[1].revision, 3u);
  ASSERT_EQ(pm.damaged.size(), 1u);
  EXPECT_EQ(pm.damaged[0].offset, second);
  EXPECT_EQ(pm.damaged[0].length, rec);
  EXPECT_EQ(pm.damaged[0].prev_revision, 1u);
  EXPECT_EQ(pm.damaged[0].next_revision, 3u);
  EXPECT_EQ(pm.doubtful, std::set<uint64_t>{1});
  EXPECT_EQ(pm.torn_bytes, 0u);
}

TEST(Manifest, DamagedLengthOfACommittedRecordIsNeverATornTail) {
  std::string f = SampleManifest(3);
  for (size_t i = 0; i < 4; i++) {  // every byte of the first record's length
    for (uint8_t mask : {0x01, 0x80}) {
      std::string c = f;
      c[kManifestHeaderSize + i] ^= char(mask);
      ParsedManifest pm;
      // Resynchronized by the scan: revisions 2 and 3 are read.
      ASSERT_TRUE(ParseManifest(c, &pm).ok()) << "byte " << i << " mask " << int(mask);
      EXPECT_EQ(pm.revisions.size(), 2u) << "byte " << i << " mask " << int(mask);
      ASSERT_EQ(pm.damaged.size(), 1u) << "byte " << i << " mask " << int(mask);
      EXPECT_EQ(pm.damaged[0].offset, kManifestHeaderSize);
      EXPECT_EQ(pm.torn_bytes, 0u);
    }
  }
}

TEST(Manifest, PayloadWithWrongCountsIsRejected) {
  std::string p = EncodeRevisionPayload(SampleRecord(1, 3));
  RevisionRecord r;
  EXPECT_TRUE(DecodeRevisionPayload(p.substr(0, p.size() - 1), &r).IsCorruption());
  EXPECT_TRUE(DecodeRevisionPayload(p + "x", &r).IsCorruption());
}

TEST(Tags, AllTypesRoundTrip) {
  double xs[3] = {1.5, -2, 3};
  int32_t is[2] = {-7, 9};
  TagList tags = {
      {"i8", TagValue::Int(-128, TagType::kInt8)},
      {"i16", TagValue::Int(-300, TagType::kInt16)},
      {"i32", TagValue::Int(-70000, TagType::kInt32)},
      {"i64", TagValue::Int(INT64_MIN)},
      {"u8", TagValue::UInt(255, TagType::kUInt8)},
      {"u16", TagValue::UInt(65535, TagType::kUInt16)},
      {"u32", TagValue::UInt(4000000000u, TagType::kUInt32)},
      {"u64", TagValue::UInt(UINT64_MAX)},
      {"f32", TagValue::Float32(0.25f)},
      {"f64", TagValue::Float64(-1e300)},
      {"s", TagValue::String("hello")},
      {"b", TagValue::Bytes(std::string("\0\1\2", 3))},
      {"af", TagValue::Array(TagType::kFloat64, xs, 3)},
      {"ai", TagValue::Array(TagType::kInt32, is, 2)},
  };
  ASSERT_TRUE(ValidateTags(tags).ok());
  NameDict dict;
  std::string enc;
  ASSERT_TRUE(EncodeTags(tags, &dict, &enc).ok());
  TagList back;
  ASSERT_TRUE(DecodeTags(enc, dict, &back).ok());
  EXPECT_EQ(back, tags);
  EXPECT_EQ(back[12].value.array_size(), 3u);
  EXPECT_EQ(back[12].value.ToString(), "[1.5, -2, 3]");
}

// EncodeTags writes through a pointer with fast paths per type; its bytes
// must be exactly the documented layout (id, code, EncodeTagPayload), and
// DecodeTags, which reuses the caller's list in place, must leave exactly
// the decoded tags whatever the list held before.
TEST(Tags, FastPathsMatchTheGeneralCodec) {
  double xs[] = {1.5, -2, 3};
  TagList tags = {{"i32", TagValue::Int(-70000, TagType::kInt32)}, {"u64", TagValue::UInt(UINT64_MAX)},
                  {"f32", TagValue::Float32(0.25f)}, {"f64", TagValue::Float64(-1e300)},
                  {"s", TagValue::String(std::string(300, 'z'))}, {"b", TagValue::Bytes(std::string("\0\1", 2))},
                  {"af", TagValue::Array(TagType::kFloat64, xs, 3)}, {"i64", TagValue::Int(INT64_MIN)}};
  for (int i = 0; i < 40; i++) tags.push_back({"n" + std::to_string(i), TagValue::String(std::string(i * 7, 'q'))});
  NameDict dict;
  std::string enc = "head";
  ASSERT_TRUE(EncodeTags(tags, &dict, &enc).ok());
  std::string want = "head";
  PutVarint64(&want, tags.size());
  for (size_t i = 0; i < tags.size(); i++) {
    PutVarint64(&want, i);  // names numbered in order of first use
    want.push_back(char(tags[i].value.type_code()));
    EncodeTagPayload(tags[i].value, &want);
  }
  EXPECT_EQ(enc, want);
  // Decoding into a list that held longer and different tags.
  TagList back(60, Tag{"old-name-long-enough-to-allocate", TagValue::String(std::string(100, 'o'))});
  ASSERT_TRUE(DecodeTags(std::string_view(enc).substr(4), dict, &back).ok());
  EXPECT_EQ(back, tags);
  std::string one;
  ASSERT_TRUE(EncodeTags({{"i32", TagValue::Int(5, TagType::kInt32)}}, &dict, &one).ok());
  ASSERT_TRUE(DecodeTags(one, dict, &back).ok());
  ASSERT_EQ(back.size(), 1u);
  EXPECT_EQ(back[0], (Tag{"i32", TagValue::Int(5, TagType::kInt32)}));
  // An int32 tag whose encoded value does not fit 32 bits is corruption.
  std::string big;
  PutVarint64(&big, 1);
  PutVarint64(&big, 0);
  big.push_back(char(TagType::kInt32));
  PutVarint64(&big, ZigZag(int64_t(1) << 40));
  EXPECT_TRUE(DecodeTags(big, dict, &back).IsCorruption());
}

TEST(Tags, BadTagsAreRejected) {
  EXPECT_TRUE(ValidateTags({{"", TagValue::Int(1)}}).IsInvalidArgument());
  NameDict dict;
  std::string out = "keep";
  EXPECT_TRUE(EncodeTags({{"a", TagValue::Int(1)}, {"b", TagValue::Int(1)}, {"a", TagValue::Int(2)}}, &dict, &out)
                  .IsInvalidArgument());
  EXPECT_EQ(out, "keep");  // nothing appended on failure
  EXPECT_TRUE(EncodeTags({{"a", TagValue::Int(1)}, {"b", TagValue::Int(2)}}, &dict, &out).ok());  // new list: no false duplicate
  EXPECT_TRUE(ValidateTags({{"a", TagValue::Int(200, TagType::kInt8)}}).IsInvalidArgument());
  EXPECT_TRUE(ValidateTags({{"a", TagValue::UInt(70000, TagType::kUInt16)}}).IsInvalidArgument());
  EXPECT_TRUE(ValidateTags({{std::string(70000, 'n'), TagValue::Int(1)}}).IsInvalidArgument());
}

TEST(Tags, MalformedEncodingIsCorruption) {
  NameDict dict;
  std::string enc;
  EncodeTags({{"a", TagValue::String("xyz")}}, &dict, &enc);
  TagList t;
  EXPECT_TRUE(DecodeTags(enc.substr(0, enc.size() - 1), dict, &t).IsCorruption());
  NameDict empty;
  EXPECT_TRUE(DecodeTags(enc, empty, &t).IsCorruption());  // name id unknown
  std::string bad = enc;
  bad[2] = char(13);  // a type code from the future
  EXPECT_TRUE(DecodeTags(bad, dict, &t).IsNotSupported());
  bad[2] = char(0x40 | 11);  // an array of strings: never valid
  EXPECT_TRUE(DecodeTags(bad, dict, &t).IsCorruption());
}

std::string SampleTable(int n, NameDict* dict) {
  std::vector<std::string> bodies;
  for (int i = 0; i < n; i++) {
    std::string key = "key" + std::to_string(1000 + i);
    std::string tags;
    EncodeTags({{"step", TagValue::Int(i)}, {"name", TagValue::String(key)}}, dict, &tags);
    std::string body;
    if (i % 2) {
      EncodeEntryBody(key, ValueKind::kInline, 3, "abc", {}, tags, &body);
    } else {
      std::vector<ChunkRef> chunks = {{0, 4096, 10, 0, 10, 111}, {1, 8192, 5, 0, 5, 222}};
      EncodeEntryBody(key, ValueKind::kChunked, 15, "", chunks, tags, &body);
    }
    bodies.push_back(body);
  }
  uint64_t total = 0;
  for (auto& b : bodies) total += b.size();
  IndexTableBuilder b;
  b.Begin(3, 9, bodies.size(), dict->names(), total);
  for (auto& body : bodies) b.Add(body);
  return b.Finish();
}

TEST(IndexTable, RoundTrip) {
  NameDict dict;
  std::string t = SampleTable(50, &dict);
  std::shared_ptr<IndexTable> table;
  ASSERT_TRUE(ParseIndexTable(t, "test", &table).ok());
  EXPECT_EQ(table->ns, 3u);
  EXPECT_EQ(table->revision, 9u);
  ASSERT_EQ(table->entries.size(), 50u);
  ptrdiff_t i = table->Find("key1010");
  ASSERT_EQ(i, 10);
  EntryView e;
  ASSERT_TRUE(DecodeEntryBody(table->entries[size_t(i)], &e).ok());
  EXPECT_EQ(e.kind, ValueKind::kChunked);
  EXPECT_EQ(e.size, 15u);
  ASSERT_EQ(e.chunks.size(), 2u);
  EXPECT_EQ(e.chunks[1].offset, 8192u);
  EXPECT_EQ(e.chunks[1].checksum, 222u);
  TagList tags;
  ASSERT_TRUE(DecodeTags(e.tags, table->names, &tags).ok());
  EXPECT_EQ(tags[1].value.bytes(), "key1010");
  ASSERT_TRUE(DecodeEntryBody(table->entries[11], &e).ok());
  EXPECT_EQ(e.inline_value, "abc");
  EXPECT_EQ(table->Find("nope"), -1);
}

TEST(IndexTable, StreamedInPiecesIsTheBuiltTable) {
  // Entries of several sizes, one larger than the small pieces; every
  // piece size writes the builder's bytes, and the whole-table checksum.
  NameDict dict;
  std::vector<std::string> bodies;
  for (int i = 0; i < 40; i++) {
    std::string key = "key" + std::to_string(1000 + i);
    TagList tags = {{"step", TagValue::Int(i)}};
    std::string enc;
    ASSERT_TRUE(EncodeTags(tags, &dict, &enc).ok());
    std::string body;
    std::string value(i == 7 ? 300 : i % 5, 'v');
    EncodeEntryBody(key, ValueKind::kInline, value.size(), value, {}, enc, &body);
    bodies.push_back(body);
  }
  std::vector<std::string_view> views(bodies.begin(), bodies.end());
  uint64_t total = 0;
  for (auto& b : bodies) total += b.size();
  IndexTableBuilder b;
  b.Begin(3, 9, bodies.size(), dict.names(), total);
  for (auto& body : bodies) b.Add(body);
  std::string built = b.Finish();
  EXPECT_EQ(IndexTableSize(dict.names(), views), built.size());
  for (size_t piece : {1, 7, 64, 100, 333, 4096}) {
    std::string got;
    size_t calls = 0;
    uint64_t sum = 0;
    Status s = StreamIndexTable(3, 9, dict.names(), views, piece, [&](std::string_view p) {
      got.append(p);
      calls++;
      return Status::OK();
    }, &sum);
    ASSERT_TRUE(s.ok());
    EXPECT_EQ(got, built) << "piece " << piece;
    EXPECT_EQ(sum, Checksum(built)) << "piece " << piece;
    if (piece == 4096) {
      EXPECT_EQ(calls, 1u);
    }
    if (piece == 64) {
      EXPECT_GT(calls, 10u);
    }
  }
  // The sink's first error ends the stream.
  size_t calls = 0;
  uint64_t sum = 0;
  Status s = StreamIndexTable(3, 9, dict.names(), views, 64, [&](std::string_view) {
    calls++;
    return Status::IOError("disk full");
  }, &sum);
  EXPECT_TRUE(s.IsIOError());
  EXPECT_EQ(calls, 1u);
}

TEST(IndexTable, EveryFlippedByteAndTruncationIsDetected) {
  NameDict dict;
  std::string t = SampleTable(5, &dict);
  for (size_t i = 0; i < t.size(); i++) {
    std::string c = t;
    c[i] ^= 0x08;
    std::shared_ptr<IndexTable> table;
    EXPECT_FALSE(ParseIndexTable(c, "test", &table).ok()) << "flip at " << i;
  }
  for (size_t n = 0; n < t.size(); n += 3) {
    std::shared_ptr<IndexTable> table;
    EXPECT_FALSE(ParseIndexTable(t.substr(0, n), "test", &table).ok()) << "cut at " << n;
  }
}

TEST(IndexTable, UnsortedEntriesAreRejectedEvenWithValidChecksum) {
  std::string b1, b2;
  EncodeEntryBody("b", ValueKind::kInline, 0, "", {}, std::string(1, '\0'), &b1);
  EncodeEntryBody("a", ValueKind::kInline, 0, "", {}, std::string(1, '\0'), &b2);
  IndexTableBuilder b;
  b.Begin(0, 1, 2, {}, b1.size() + b2.size());
  b.Add(b1);
  b.Add(b2);
  std::shared_ptr<IndexTable> table;
  Status s = ParseIndexTable(b.Finish(), "test", &table);
  EXPECT_TRUE(s.IsCorruption());
  EXPECT_NE(s.message().find("order"), std::string::npos);
}

TEST(IndexEntry, ChunkLengthsCannotWrapAroundTheSize) {
  std::string body;
  std::vector<ChunkRef> chunks = {{0, 4096, UINT64_MAX - 4, 0, UINT64_MAX - 4, 1}, {0, 8192, 20, 0, 20, 2}};
  EncodeEntryBody("k", ValueKind::kChunked, 15, "", chunks, std::string(1, '\0'), &body);
  EntryView e;
  EXPECT_TRUE(DecodeEntryBody(body, &e).IsCorruption());
}

TEST(IndexEntry, ChunkSizesMustAddUp) {
  std::string body;
  std::vector<ChunkRef> chunks = {{0, 4096, 10, 0, 10, 1}};
  EncodeEntryBody("k", ValueKind::kChunked, 11, "", chunks, std::string(1, '\0'), &body);
  EntryView e;
  EXPECT_TRUE(DecodeEntryBody(body, &e).IsCorruption());
}

// What the planned extensions of doc/design.md ("The later features") rely
// on from readers of today: a compressed chunk, a new value kind and a new
// manifest record type are refused as NotSupported, never read as
// something else.
TEST(FutureExtensions, ACompressedChunkIsNotSupported) {
  std::string body;
  std::vector<ChunkRef> chunks = {{0, 4096, 7, 1, 10, 1}};  // codec 1 (zstd, planned), 10 raw bytes
  EncodeEntryBody("k", ValueKind::kChunked, 10, "", chunks, std::string(1, '\0'), &body);
  EntryView e;
  Status s = DecodeEntryBody(body, &e);
  EXPECT_TRUE(s.IsNotSupported()) << s.ToString();
  EXPECT_NE(s.message().find("codec 1"), std::string::npos) << s.ToString();
}

TEST(FutureExtensions, AnUnknownValueKindIsNotSupported) {
  std::string body;
  EncodeEntryBody("k", ValueKind::kInline, 3, "abc", {}, std::string(1, '\0'), &body);
  size_t kind_at = 2;  // after the key: varint length 1, then 'k'
  ASSERT_EQ(body[kind_at - 1], 'k');
  for (char kind : {char(2), char(3), char(255)}) {  // 2, 3: planned (doc/format.md)
    body[kind_at] = kind;
    EntryView e;
    EXPECT_TRUE(DecodeEntryBody(body, &e).IsNotSupported()) << int(uint8_t(kind));
  }
}

TEST(FutureExtensions, AFilePlacementRecordIsNotSupported) {
  std::string f = SampleManifest(2);
  f += FrameRecord(RecordType(6), std::string(16, 'p'));  // type 6: "file placement" (planned)
  ParsedManifest pm;
  Status s = ParseManifest(f, &pm);
  EXPECT_TRUE(s.IsNotSupported()) << s.ToString();
}

TEST(FutureExtensions, AVersion2IndexTableIsNotSupported) {  // a delta table (planned)
  NameDict dict;
  std::string t = SampleTable(3, &dict);
  t[8] = 2;  // the version, u16 little-endian
  t[9] = 0;
  EncodeFixed64(&t[t.size() - 8], Checksum(t.data(), t.size() - 8));
  std::shared_ptr<IndexTable> table;
  Status s = ParseIndexTable(t, "test", &table);
  EXPECT_TRUE(s.IsNotSupported()) << s.ToString();
}

// A query that meets a newer writer's entry (a compressed chunk) reports
// NotSupported, as a Get of it does, not a damaged entry.
TEST(FutureExtensions, AQueryMeetingACompressedChunkIsNotSupported) {
  NameDict dict;
  std::string tags;
  EncodeTags({{"step", TagValue::Int(1)}}, &dict, &tags);
  std::string body;
  std::vector<ChunkRef> chunks = {{0, 4096, 7, 1, 10, 1}};
  EncodeEntryBody("k", ValueKind::kChunked, 10, "", chunks, tags, &body);
  IndexTableBuilder b;
  b.Begin(0, 1, 1, dict.names(), body.size());
  b.Add(body);
  std::shared_ptr<IndexTable> table;
  ASSERT_TRUE(ParseIndexTable(b.Finish(), "test", &table).ok());
  std::vector<std::string> keys;
  Status s = QueryTableKeys(*table, {TagQuery::Equal("step", TagValue::Int(1))}, "", &keys);
  EXPECT_TRUE(s.IsNotSupported()) << s.ToString();
  EXPECT_TRUE(keys.empty());
}

// After a damaged record, the log goes on at the next intact record of any
// type: a newer writer's record there stops the parse with NotSupported,
// instead of being folded into the damage (which repair would drop).
TEST(FutureExtensions, AnUnknownRecordAfterDamageIsNotSupported) {
  std::string f = SampleManifest(1);
  std::string damaged = FrameRecord(RecordType::kRevision, EncodeRevisionPayload(SampleRecord(2, 3)));
  damaged[12] ^= 0x40;  // inside its payload: the record's checksum fails
  f += damaged;
  f += FrameRecord(RecordType(6), std::string(16, 'p'));
  f += FrameRecord(RecordType::kRevision, EncodeRevisionPayload(SampleRecord(3, 3)));
  ParsedManifest pm;
  Status s = ParseManifest(f, &pm);
  EXPECT_TRUE(s.IsNotSupported()) << s.ToString();
}

}  // namespace
}  // namespace cairn
