#include "format/index_format.h"

#include <algorithm>
#include <cstring>

#include "format/checksum.h"
#include "format/coding.h"

namespace cairn {

void EncodeEntryBody(std::string_view key, ValueKind kind, uint64_t size,
                     std::string_view inline_value, const std::vector<ChunkRef>& chunks,
                     std::string_view tags, std::string* out) {
  PutLengthPrefixed(out, key);
  out->push_back(char(kind));
  PutVarint64(out, size);
  if (kind == ValueKind::kInline) {
    out->append(inline_value);
  } else {
    PutVarint64(out, chunks.size());
    for (const ChunkRef& c : chunks) {
      PutVarint32(out, c.subfile);
      PutVarint64(out, c.offset);
      PutVarint64(out, c.length);
      out->push_back(char(c.codec));
      if (c.codec != uint8_t(Codec::kNone)) PutVarint64(out, c.raw_length);
      PutFixed64(out, c.checksum);
    }
  }
  out->append(tags);
}

std::string_view EntryKey(std::string_view body) {
  Decoder d(body);
  std::string_view k = d.LengthPrefixed();
  return d.failed() ? std::string_view() : k;
}

bool EntryChunked(std::string_view body) {
  Decoder d(body);
  d.LengthPrefixed();
  uint8_t kind = d.U8();
  return !d.failed() && kind == uint8_t(ValueKind::kChunked);
}

Status DecodeEntryBody(std::string_view body, EntryView* e) {
  Decoder d(body);
  e->key = d.LengthPrefixed();
  uint8_t kind = d.U8();
  e->size = d.Varint64();
  if (d.failed()) return Status::Corruption("index entry truncated");
  e->chunks.clear();
  if (kind == uint8_t(ValueKind::kInline)) {
    e->kind = ValueKind::kInline;
    e->inline_value = d.Bytes(e->size);
  } else if (kind == uint8_t(ValueKind::kChunked)) {
    e->kind = ValueKind::kChunked;
    uint64_t n = d.Varint64();
    // Each chunk takes at least 12 encoded bytes: bound n before allocating.
    if (d.failed() || n > d.remaining() / 12) return Status::Corruption("index entry chunk count damaged");
    e->chunks.resize(n);
    uint64_t total = 0;
    for (ChunkRef& c : e->chunks) {
      c.subfile = d.Varint32();
      c.offset = d.Varint64();
      c.length = d.Varint64();
      c.codec = d.U8();
      if (c.codec != uint8_t(Codec::kNone))
        return Status::NotSupported("chunk codec " + std::to_string(c.codec) + " unknown to this cairn");
      c.raw_length = c.length;
      c.checksum = d.U64();
      if (c.length > UINT64_MAX - c.offset)
        return Status::Corruption("index entry has a chunk that ends past 2^64");
      if (c.raw_length > e->size - total)  // also guards the sum against wrapping
        return Status::Corruption("index entry chunks are longer than the value");
      total += c.raw_length;
    }
    if (!d.failed() && total != e->size)
      return Status::Corruption("index entry chunk lengths do not add up to the value size");
  } else {
    // A kind this version does not know: written by a newer cairn.
    return Status::NotSupported("index entry has value kind " + std::to_string(kind) +
                                ", unknown to this cairn (written by a newer version?)");
  }
  if (d.failed()) return Status::Corruption("index entry truncated");
  e->tags = std::string_view(d.pos(), d.remaining());
  return Status::OK();
}

ptrdiff_t IndexTable::Find(std::string_view key) const {
  auto it = std::lower_bound(keys.begin(), keys.end(), key);
  if (it == keys.end() || *it != key) return -1;
  return it - keys.begin();
}

namespace {

// Appends a table's header and name dictionary to *out (the same bytes for
// a table built whole and one streamed in pieces).
void AppendTableHead(std::string* out, uint32_t ns, uint64_t revision, uint64_t entry_count,
                     const std::vector<std::string>& names) {
  out->append(kIndexMagic, 8);
  PutFixed16(out, kIndexFormatVersion);
  PutFixed16(out, 0);  // flags
  PutFixed32(out, ns);
  PutFixed64(out, revision);
  PutFixed64(out, entry_count);
  PutFixed64(out, names.size());
  PutFixed64(out, 0);  // reserved
  for (const auto& n : names) PutLengthPrefixed(out, n);
}

}  // namespace

void IndexTableBuilder::Begin(uint32_t ns, uint64_t revision, uint64_t entry_count,
                              const std::vector<std::string>& names, uint64_t body_bytes) {
  out_.clear();
  size_t name_bytes = 0;
  for (const auto& n : names) name_bytes += n.size() + 3;
  out_.reserve(kIndexHeaderSize + name_bytes + body_bytes + entry_count * 5 + 8);
  AppendTableHead(&out_, ns, revision, entry_count, names);
  expected_ = entry_count;
  added_ = 0;
}

void IndexTableBuilder::Add(std::string_view entry_body) {
  PutLengthPrefixed(&out_, entry_body);
  added_++;
}

std::string IndexTableBuilder::Finish() {
  PutFixed64(&out_, Checksum(out_));
  return std::move(out_);
}

uint64_t IndexTableSize(const std::vector<std::string>& names, const std::vector<std::string_view>& bodies) {
  uint64_t n = kIndexHeaderSize + 8;
  for (const auto& s : names) n += VarintLength(s.size()) + s.size();
  for (std::string_view b : bodies) n += VarintLength(b.size()) + b.size();
  return n;
}

Status StreamIndexTable(uint32_t ns, uint64_t revision, const std::vector<std::string>& names,
                        const std::vector<std::string_view>& bodies, size_t piece,
                        const std::function<Status(std::string_view)>& sink, uint64_t* whole_checksum) {
  std::string buf;
  AppendTableHead(&buf, ns, revision, bodies.size(), names);
  piece = std::max(piece, buf.size());
  buf.reserve(piece);
  StreamingChecksum sum;
  auto flush = [&]() {
    sum.Update(buf.data(), buf.size());
    Status s = sink(buf);
    buf.clear();
    return s;
  };
  char len[10];
  for (std::string_view b : bodies) {
    size_t nl = size_t(EncodeVarint(len, b.size()) - len);
    if (buf.size() + nl + b.size() > piece) {
      Status s = flush();
      if (!s.ok()) return s;
    }
    if (nl + b.size() > piece) {  // larger than a piece: handed over as it lies
      buf.append(len, nl);
      Status s = flush();
      if (!s.ok()) return s;
      sum.Update(b.data(), b.size());
      s = sink(b);
      if (!s.ok()) return s;
      continue;
    }
    buf.append(len, nl);
    buf.append(b);
  }
  // The trailing checksum covers everything before it, the buffered
  // bytes included.
  sum.Update(buf.data(), buf.size());
  uint64_t table_sum = sum.Digest();
  if (buf.size() + 8 > piece) {
    Status s = sink(buf);
    if (!s.ok()) return s;
    buf.clear();
  }
  size_t at = buf.size();
  PutFixed64(&buf, table_sum);
  sum.Update(buf.data() + at, 8);
  *whole_checksum = sum.Digest();
  return sink(buf);
}

namespace {

// Checks and parses t->bytes (already set) into t.
Status ParseInto(IndexTable* t, const std::string& where, bool checksum_verified) {
  auto corrupt = [&](const std::string& what) { return Status::Corruption(where + ": " + what); };
  std::string_view bytes = t->bytes;
  if (bytes.size() < kIndexHeaderSize + 8) return corrupt("index table truncated");
  const char* p = bytes.data();
  if (std::memcmp(p, kIndexMagic, 8) != 0) return corrupt("index table has a bad magic number");
  uint16_t version = DecodeFixed16(p + 8);
  if (version > kIndexFormatVersion)
    return Status::NotSupported(where + ": index table format version " + std::to_string(version) +
                                " is newer than this cairn supports");
  if (!checksum_verified && DecodeFixed64(p + bytes.size() - 8) != Checksum(p, bytes.size() - 8))
    return corrupt("index table checksum mismatch");
  t->ns = DecodeFixed32(p + 12);
  t->revision = DecodeFixed64(p + 16);
  uint64_t count = DecodeFixed64(p + 24);
  uint64_t nnames = DecodeFixed64(p + 32);
  size_t body_len = bytes.size() - 8 - kIndexHeaderSize;
  // Every name and entry takes at least one byte: bound the counts first.
  if (count > body_len || nnames > body_len) return corrupt("index table counts exceed its size");
  Decoder d(std::string_view(p + kIndexHeaderSize, body_len));
  t->names.Reserve(nnames);
  for (uint64_t i = 0; i < nnames; i++) {
    std::string_view n = d.LengthPrefixed();
    if (d.failed()) return corrupt("index table name dictionary truncated");
    if (n.empty() || n.size() > kMaxTagNameLength)
      return corrupt("index table tag name " + std::to_string(i) + " is not 1 to 65535 bytes");
    if (t->names.Intern(n) != i) return corrupt("index table name dictionary has a duplicate");
  }
  t->entries.reserve(count);
  t->keys.reserve(count);
  bool chunked = false;
  for (uint64_t i = 0; i < count; i++) {
    std::string_view body = d.LengthPrefixed();
    std::string_view key = EntryKey(body);
    if (d.failed() || key.empty()) return corrupt("index entry " + std::to_string(i) + " truncated");
    if (key.size() > kMaxKeyLength) return corrupt("index entry " + std::to_string(i) + " has a key over 65535 bytes");
    if (!t->keys.empty() && !(t->keys.back() < key))
      return corrupt("index entries out of key order at entry " + std::to_string(i));
    if (!chunked && EntryChunked(body)) chunked = true;
    t->entries.push_back(body);
    t->keys.push_back(key);
  }
  if (d.remaining() != 0) return corrupt("bytes after the last index entry");
  t->chunked = chunked;
  t->length = bytes.size();
  return Status::OK();
}

}  // namespace

Status ParseIndexTable(std::string bytes, const std::string& where,
                       std::shared_ptr<IndexTable>* out, bool checksum_verified) {
  auto t = std::make_shared<IndexTable>();
  t->owned = std::move(bytes);
  t->bytes = t->owned;
  Status s = ParseInto(t.get(), where, checksum_verified);
  if (s.ok()) *out = std::move(t);
  return s;
}

Status ParseIndexTable(std::unique_ptr<char[]> buf, size_t size, const std::string& where,
                       std::shared_ptr<IndexTable>* out, bool checksum_verified) {
  auto t = std::make_shared<IndexTable>();
  t->raw = std::move(buf);
  t->bytes = std::string_view(t->raw.get(), size);
  Status s = ParseInto(t.get(), where, checksum_verified);
  if (s.ok()) *out = std::move(t);
  return s;
}

}  // namespace cairn
