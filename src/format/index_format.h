// Encoding of index entries and index tables. A table is one namespace's
// complete, sorted list of objects in one revision: header, tag-name
// dictionary, entries, checksum. Byte layout: doc/format.md, "Index tables".
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "cairn/status.h"
#include "format/tag_codec.h"

namespace cairn {

constexpr char kIndexMagic[8] = {'C', 'A', 'I', 'R', 'N', 'I', 'D', 'X'};
constexpr uint16_t kIndexFormatVersion = 1;
constexpr size_t kIndexHeaderSize = 48;
constexpr uint32_t kSharedNamespace = 0xffffffffu;
constexpr size_t kMaxKeyLength = 65535;

enum class ValueKind : uint8_t { kInline = 0, kChunked = 1 };
// Codec of a chunk's stored bytes. Only kNone is written today; the byte is
// there for compression (a later version).
enum class Codec : uint8_t { kNone = 0 };

// One stored piece of a value: where it lies and its checksum.
struct ChunkRef {
  uint32_t subfile = 0;
  uint64_t offset = 0;      // byte offset in data.<subfile>
  uint64_t length = 0;      // stored bytes
  uint8_t codec = 0;        // Codec
  uint64_t raw_length = 0;  // bytes after decoding (== length for kNone)
  uint64_t checksum = 0;    // XXH3-64 of the stored bytes
};

// A decoded entry. Views point into the encoded bytes, which must outlive it.
struct EntryView {
  std::string_view key;
  ValueKind kind = ValueKind::kInline;
  uint64_t size = 0;
  std::string_view inline_value;  // kInline
  std::vector<ChunkRef> chunks;   // kChunked, in value order
  std::string_view tags;          // encoded tag list (see tag_codec.h)
};

// Encodes one entry (without its length prefix) into *out. `tags` is an
// already encoded tag list.
void EncodeEntryBody(std::string_view key, ValueKind kind, uint64_t size,
                     std::string_view inline_value, const std::vector<ChunkRef>& chunks,
                     std::string_view tags, std::string* out);
// Decodes an entry body; checks that chunk lengths add up to the size.
Status DecodeEntryBody(std::string_view body, EntryView* e);
// Decodes only the key of an entry body (fast path for scans).
std::string_view EntryKey(std::string_view body);
// Whether an entry body holds a chunked value (false if damaged).
bool EntryChunked(std::string_view body);

// A parsed table: owns its bytes; entries are views into them. A table
// this process wrote in pieces (StreamIndexTable) has no `bytes`: its
// entries are views into memory `keep` holds alive (the arena its entries
// were put into), and `length` is what it takes on disk.
struct IndexTable {
  std::string_view bytes;  // the whole table as stored (in `owned` or `raw`); empty if streamed
  std::string owned;              // the bytes, when given as a string
  std::unique_ptr<char[]> raw;    // the bytes, when read into a raw buffer
  std::shared_ptr<const void> keep;  // streamed: owner of the entries' memory
  uint64_t length = 0;            // bytes of the table as stored
  bool chunked = true;            // false: no entry holds a chunked value
  uint32_t ns = 0;
  uint64_t revision = 0;
  NameDict names;
  // Entry bodies in key order (views into `bytes`).
  std::vector<std::string_view> entries;
  std::vector<std::string_view> keys;

  // Index of `key` in entries, or -1.
  ptrdiff_t Find(std::string_view key) const;
};

// Builds a table. Call Begin with counts, Add each entry body in strictly
// ascending key order, then Finish, which appends the checksum.
class IndexTableBuilder {
 public:
  // `body_bytes` is the sum of entry body sizes (for one allocation).
  void Begin(uint32_t ns, uint64_t revision, uint64_t entry_count,
             const std::vector<std::string>& names, uint64_t body_bytes);
  void Add(std::string_view entry_body);
  // Returns the table bytes; the builder is then empty.
  std::string Finish();

 private:
  std::string out_;
  uint64_t expected_ = 0;
  uint64_t added_ = 0;
};

// The stored size of the table of `bodies` with tag names `names`.
uint64_t IndexTableSize(const std::vector<std::string>& names, const std::vector<std::string_view>& bodies);
// Encodes the same bytes as IndexTableBuilder, handing them to `sink` in
// pieces of up to `piece` bytes (one buffer of that size, reused) instead
// of building the whole table in memory. *whole_checksum is set to the
// checksum of the whole table, trailing checksum included (what a
// descriptor records). Stops at the sink's first error.
Status StreamIndexTable(uint32_t ns, uint64_t revision, const std::vector<std::string>& names,
                        const std::vector<std::string_view>& bodies, size_t piece,
                        const std::function<Status(std::string_view)>& sink, uint64_t* whole_checksum);

// Parses and verifies a table (checksum first, then structure and order).
// `where` names the table in error messages. checksum_verified: the caller
// has already checked a checksum over all of `bytes` (the manifest's, in
// the table's descriptor), so the table's own trailing checksum, which
// that one covers, is not hashed a second time.
Status ParseIndexTable(std::string bytes, const std::string& where,
                       std::shared_ptr<IndexTable>* table, bool checksum_verified = false);
// The same for `size` bytes in a buffer the table takes over (a read
// straight from the file into memory that was never zero-filled).
Status ParseIndexTable(std::unique_ptr<char[]> buf, size_t size, const std::string& where,
                       std::shared_ptr<IndexTable>* table, bool checksum_verified = false);

}  // namespace cairn
