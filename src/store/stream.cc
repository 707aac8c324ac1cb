// Streams: a writer that appends bytes to the rank's Writer as growing
// chunks of up to chunk_size (rewriting touched chunks elsewhere on
// overwrite), and a reader that serves any byte range from verified chunks, keeping the last
// one read. See include/cairn/stream.h. Streams reach their store through
// its StreamHub (stream_hub.h), which Store::Close cuts off.
#include "cairn/stream.h"

#include <sys/statvfs.h>

#include <algorithm>
#include <cstring>
#include <new>

#include "array/array_meta.h"
#include "store/retention.h"
#include "store/store_rep.h"
#include "store/stream_hub.h"
#include "store/key_text.h"
#include "store/out_of_memory.h"
#include "io/file.h"

namespace cairn {

// ---------------------------------------------------------------- Hub

Status StreamHub::Closed(const std::string& key, bool writer) const {
  return Status::InvalidArgument("store " + path + " is closed: stream '" + key + "' can no longer be " +
                                 (writer ? "written (its data is not committed)" : "read"));
}

std::shared_ptr<StreamHub> HubOf(Store::Rep* r) {
  if (!r->streams) {
    r->streams = std::make_shared<StreamHub>();
    r->streams->rep = r;
    r->streams->path = r->path;
  }
  return r->streams;
}

void DetachStreams(Store::Rep* r) {
  if (r->streams) r->streams->rep = nullptr;
}

// ---------------------------------------------------------------- Writer

struct StreamWriter::Impl {
  std::shared_ptr<StreamHub> hub;
  std::string key;
  TagList tags;
  std::vector<ChunkRef> chunks;  // the ended chunks, in stream order
  std::vector<uint64_t> starts;  // stream offset of each
  uint64_t ended = 0;            // bytes the ended chunks cover
  Writer::OpenChunk open;        // the chunk being appended to, after them
  // The first bytes stay here until the stream outgrows the inline limit:
  // a small stream is stored inline in the index, like a small put.
  std::string head;
  bool spilled = false;
  uint64_t pos = 0;
  bool closed = false;
  Status close_status;
  // Not ok once the stream is broken: a failed staged commit dropped its
  // bytes (StreamHub::LoseWriters), or one of its own writes failed. Every
  // later call returns it, and Close leaves the key's object as it was.
  Status lost;
  // Broken by running out of memory in a write: set first (it allocates
  // nothing), since with no memory the message of `lost` may not be made.
  bool out_of_memory = false;
  bool broken() const { return !lost.ok() || out_of_memory; }
  // (Never throws: with no memory for the message, "out of memory".)
  Status LostStatus() const noexcept {
    try {
      if (!lost.ok()) return lost;
      return Status::IOError("stream '" + KeyText(key) + "' is broken: out of memory while writing; Close reports "
                             "this and the key keeps its previous object: open the stream again and rewrite it");
    } catch (...) {
      return Status(Status::Code::kIOError, "out of memory");
    }
  }

  // The store; null once it is closed (every public call checks first).
  Store::Rep* rep() const { return hub->rep; }
  uint64_t size() const { return spilled ? ended + (open.open ? open.ref.length : 0) : head.size(); }
  // Ends the open chunk: it joins `chunks`.
  void EndChunk();
  Status Append(const char* p, uint64_t n);
  Status Overwrite(uint64_t at, const char* p, uint64_t n);
  Status ReadChunk(size_t i, std::string* out);
  // A write of the stream's bytes failed part way: what reached the store
  // is not what the caller wrote, so the stream is broken for good.
  Status Broken(const Status& s);
  // Records the stream offsets of chunks[first..], just ended.
  void Ended(size_t first);
  // A write of n bytes after a gap of `gap` bytes (a Seek past the end):
  // the gap is written as zeros, so one larger than the free space of the
  // store's file system (asked for gaps of kGapCheckBytes or more) would
  // only fill it (a mistyped seek to 2^63 wrote until the disk was full
  // and left the store unable to commit). IOError then, nothing written.
  Status GapFits(uint64_t gap, uint64_t n);
  static constexpr uint64_t kGapCheckBytes = uint64_t(4) << 20;
};

Status StreamWriter::Impl::GapFits(uint64_t gap, uint64_t n) {
  if (gap < kGapCheckBytes) return Status::OK();
  CountIo(rep()->stats.stats);
  struct statvfs fs;
  if (::statvfs(hub->path.c_str(), &fs) != 0) return Status::OK();  // unknown: the writes will tell
  uint64_t avail = uint64_t(fs.f_bavail) * uint64_t(fs.f_frsize);
  if (gap <= avail && n <= avail - gap) return Status::OK();
  return Status::IOError("stream '" + KeyText(key) + "' of " + hub->path + ": a write of " + std::to_string(n) +
                         " bytes at position " + std::to_string(pos) + " leaves a gap of " + std::to_string(gap) +
                         " bytes after the end (" + std::to_string(size()) + "), which would be written as zeros, "
                         "but the file system has only " + std::to_string(avail) +
                         " bytes free (No space left on device); nothing was written, the stream is unchanged");
}

void StreamWriter::Impl::Ended(size_t first) {
  for (size_t i = first; i < chunks.size(); i++) {
    starts.push_back(ended);
    ended += chunks[i].raw_length;
  }
}

Status StreamWriter::Impl::Broken(const Status& s) {
  lost = Status(s.code(), "stream '" + KeyText(key) + "' of " + hub->path + " is broken: a write failed (" +
                              s.message() + "); Close reports this and key '" + KeyText(key) +
                              "' keeps its previous object: open the stream again and rewrite it");
  return lost;
}

void StreamWriter::Impl::EndChunk() {
  // Room first, for the chunk that ends and its offset: if there is no
  // memory for it, nothing changed (the chunk stays open); past it nothing
  // allocates, so chunks and starts stay paired.
  if (open.open) {
    auto room = [](auto& v) {
      if (v.size() == v.capacity()) v.reserve(v.empty() ? 16 : 2 * v.size());
    };
    room(chunks);
    room(starts);
  }
  size_t first = chunks.size();
  rep()->writer->CloseChunk(&open, &chunks);
  Ended(first);
}

Status StreamWriter::Impl::Append(const char* p, uint64_t n) {
  static const char zeros[4096] = {};
  if (!spilled) {
    if (head.size() + n <= rep()->opt.inline_value_limit) {
      if (p) head.append(p, n); else head.append(n, '\0');
      return Status::OK();
    }
    spilled = true;
    std::string h;
    h.swap(head);
    Status s = Append(h.data(), h.size());
    if (!s.ok()) return s;
  }
  while (n > 0) {
    uint64_t take = p ? n : std::min<uint64_t>(n, sizeof zeros);  // zeros: a gap left by a seek past the end
    size_t before = chunks.size();
    Status s = rep()->writer->AppendPiece(std::string_view(p ? p : zeros, take), &open, &chunks);
    Ended(before);
    if (!s.ok()) return s.WithContext("stream '" + key + "'");
    if (p) p += take;
    n -= take;
  }
  return Status::OK();
}

Status StreamWriter::Impl::ReadChunk(size_t i, std::string* out) {
  EntryView e;
  e.key = key;
  e.kind = ValueKind::kChunked;
  e.size = chunks[i].raw_length;
  e.chunks.push_back(chunks[i]);
  out->resize(e.size);
  return rep()->ReadValue(e, 0, e.size, out->data(), ReadOptions());
}

Status StreamWriter::Impl::Overwrite(uint64_t at, const char* p, uint64_t n) {
  // Each chunk touched is read, patched and written anew (copy on write:
  // the old bytes may belong to a committed revision).
  while (n > 0) {
    size_t i = size_t(std::upper_bound(starts.begin(), starts.end(), at) - starts.begin()) - 1;
    std::string bytes;
    Status s = ReadChunk(i, &bytes);
    if (!s.ok()) return s;
    uint64_t in = at - starts[i];
    uint64_t k = std::min<uint64_t>(n, bytes.size() - in);
    std::memcpy(bytes.data() + in, p, k);
    std::vector<ChunkRef> out;
    s = rep()->writer->Append(bytes, &out);
    if (!s.ok()) return s.WithContext("stream '" + key + "'");
    std::vector<uint64_t> new_starts;
    uint64_t o = starts[i];
    for (const ChunkRef& c : out) {
      new_starts.push_back(o);
      o += c.raw_length;
    }
    chunks.erase(chunks.begin() + ptrdiff_t(i));
    chunks.insert(chunks.begin() + ptrdiff_t(i), out.begin(), out.end());
    starts.erase(starts.begin() + ptrdiff_t(i));
    starts.insert(starts.begin() + ptrdiff_t(i), new_starts.begin(), new_starts.end());
    at += k;
    p += k;
    n -= k;
  }
  return Status::OK();
}

StreamWriter::StreamWriter(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
StreamWriter::~StreamWriter() {
  // Nothing may leave a destructor (std::terminate): out of memory even
  // for Close's message, the stream is closed all the same.
  try {
    Close();
  } catch (...) {
  }
}

void StreamHub::LoseWriters() {
  for (auto it = writers.begin(); it != writers.end();) {
    StreamWriter::Impl* w = it->second;
    if (!w->spilled) {  // all of it is still in the stream's own memory
      ++it;
      continue;
    }
    w->lost = Status::IOError(
        "stream '" + w->key + "' of " + path + ": a commit with staging failed and dropped the puts since "
        "the last revision; this stream's bytes went through the same failed writes, so it is closed and "
        "key '" + w->key + "' keeps its previous object: open the stream again and rewrite it");
    it = writers.erase(it);
  }
}

Status StreamWriter::Write(const void* data, size_t n) try {
  Impl* w = impl_.get();
  if (w->closed) return Status::InvalidArgument("stream '" + w->key + "' is closed");
  if (w->broken()) return w->LostStatus();
  if (!w->rep()) return w->hub->Closed(w->key, true);
  Status s = w->rep()->CheckWritable();
  if (!s.ok()) return s;
  if (n > UINT64_MAX - w->pos)
    return Status::InvalidArgument("stream '" + KeyText(w->key) + "': a write of " + std::to_string(n) +
                                   " bytes at position " + std::to_string(w->pos) +
                                   " would end past 2^64 - 1; nothing was written");
  const char* p = static_cast<const char*>(data);
  if (w->pos > w->size()) {
    s = w->GapFits(w->pos - w->size(), n);
    if (!s.ok()) return s;  // nothing written: the stream stays usable
    s = w->Append(nullptr, w->pos - w->size());
    if (!s.ok()) return w->Broken(s);
  }
  if (n > 0 && w->pos < w->size() && !w->spilled) {
    uint64_t k = std::min<uint64_t>(n, w->head.size() - w->pos);
    std::memcpy(w->head.data() + w->pos, p, k);
    w->pos += k;
    p += k;
    n -= size_t(k);
  }
  if (n > 0 && w->pos < w->size()) {
    // Inside what was written: the open chunk ends first, so that every
    // byte overwritten lies in an ended chunk.
    w->EndChunk();
    uint64_t k = std::min<uint64_t>(n, w->ended - w->pos);
    s = w->Overwrite(w->pos, p, k);
    if (!s.ok()) return w->Broken(s);
    w->pos += k;
    p += k;
    n -= size_t(k);
  }
  if (n > 0) {
    s = w->Append(p, n);
    if (!s.ok()) return w->Broken(s);
    w->pos += n;
  }
  return Status::OK();
} catch (const std::bad_alloc&) {
  // No memory to buffer or queue the bytes (staging), or a size no buffer
  // can hold (std::length_error): the stream is broken, as by a failed
  // write (Close reports it; nothing of it joins the namespace), not an
  // exception out of the API.
  impl_->out_of_memory = true;
  return impl_->LostStatus();
} catch (const std::length_error&) {
  impl_->out_of_memory = true;
  return impl_->LostStatus();
}

Status StreamWriter::Seek(uint64_t pos) {
  // Only the messages allocate: out of memory, the position is unchanged.
  return UnlessOutOfMemoryThen("Seek in stream", impl_->key, "; the position is unchanged", [&] {
    if (impl_->closed) return Status::InvalidArgument("stream '" + impl_->key + "' is closed");
    if (impl_->broken()) return impl_->LostStatus();
    if (!impl_->rep()) return impl_->hub->Closed(impl_->key, true);
    impl_->pos = pos;
    return Status::OK();
  });
}

uint64_t StreamWriter::Tell() const { return impl_->pos; }
uint64_t StreamWriter::Size() const { return impl_->size(); }

Status StreamWriter::Flush() {
  // Out of memory (ending the chunk, queueing the buffer with staging: the
  // writer keeps its bytes), the stream is as it was and a later Flush,
  // Write or Close goes on; only a write that failed breaks it.
  Impl* w = impl_.get();
  return UnlessOutOfMemoryThen(
      "Flush of stream", w->key, "; the stream is unchanged (its bytes stay buffered): flush again or write on",
      [&] {
        if (w->closed) return Status::InvalidArgument("stream '" + w->key + "' is closed");
        if (w->broken()) return w->LostStatus();
        if (!w->rep()) return w->hub->Closed(w->key, true);
        Status s = w->rep()->CheckWritable();
        if (!s.ok()) return s;
        if (!w->spilled) return Status::OK();  // nothing for the store yet: it will be inline
        w->EndChunk();
        s = w->rep()->writer->Flush();
        if (s.ok()) return s;
        w->out_of_memory = true;  // broken even if Broken's message cannot be made
        try {
          return w->Broken(s);
        } catch (...) {
          return s;  // the write's failure itself; the stream is broken all the same
        }
      });
}

Status StreamWriter::Close() {
  Impl* w = impl_.get();
  if (!w || w->closed) return w ? w->close_status : Status::OK();
  w->closed = true;
  // The key is free for another writer; the chunks are no longer held.
  auto it = w->hub->writers.find(w->key);
  if (it != w->hub->writers.end() && it->second == w) w->hub->writers.erase(it);
  if (w->broken()) return w->close_status = w->LostStatus();  // nothing of it joins the namespace
  Store::Rep* rep = w->rep();
  if (!rep) return w->close_status = w->hub->Closed(w->key, true);
  Status s = rep->CheckWritable();
  // The entry (its tags' bytes) may not fit in memory: then, as for a
  // put, an IOError and the key unchanged, not std::bad_alloc out of Close.
  if (s.ok())
    s = UnlessOutOfMemory("Close of stream", w->key, [&] {
      w->EndChunk();
      std::string tag_bytes, body;
      Status e = EncodeTags(w->tags, rep->own.dict(), &tag_bytes);
      if (!e.ok()) return e;
      if (!w->spilled)
        EncodeEntryBody(w->key, ValueKind::kInline, w->head.size(), w->head, {}, tag_bytes, &body);
      else
        EncodeEntryBody(w->key, ValueKind::kChunked, w->ended, "", w->chunks, tag_bytes, &body);
      return rep->own.Put(w->key, body);
    });
  w->close_status = s;
  return s;
}

Status Store::OpenWriteStream(std::string_view key, const TagList& tags,
                              std::unique_ptr<StreamWriter>* writer) try {
  writer->reset();
  Status s = rep_->CheckWritable();
  if (!s.ok()) return s;
  if (key.empty() || key.size() > kMaxKeyLength) return Status::InvalidArgument("key must be 1..65535 bytes");
  s = CheckNotReserved(key, "OpenWriteStream");
  if (!s.ok()) return s;
  // Bad tags fail here rather than at Close.
  NameDict scratch = *rep_->own.dict();
  std::string tag_bytes;
  s = EncodeTags(tags, &scratch, &tag_bytes);
  if (!s.ok()) return s;
  std::shared_ptr<StreamHub> hub = HubOf(rep_.get());
  if (hub->writers.count(key))
    return Status::InvalidArgument("stream '" + KeyText(key) + "' is already open for writing on rank " +
                                   std::to_string(rank()) + " of " + rep_->path + "; close it before opening it again");
  auto impl = std::make_unique<StreamWriter::Impl>();
  impl->hub = hub;
  impl->key = std::string(key);
  impl->tags = tags;
  // Registered last, with every allocation made: a writer destroyed before
  // (std::bad_alloc) is closed already, so it puts no entry of its own.
  StreamWriter::Impl* w = impl.get();
  w->closed = true;
  std::unique_ptr<StreamWriter> made(new StreamWriter(std::move(impl)));
  hub->writers.emplace(w->key, w);
  w->closed = false;
  *writer = std::move(made);
  return Status::OK();
} catch (const std::bad_alloc&) {
  // The stream's tags, chiefly, do not fit in this process's memory
  // (doc/design.md "Errors"): no writer, nothing registered.
  return OutOfMemoryError("OpenWriteStream", key,
                          " (the stream's tags do not fit in this process's memory); no stream was opened");
} catch (const std::length_error&) {
  return OutOfMemoryError("OpenWriteStream", key,
                          " (the stream's tags do not fit in this process's memory); no stream was opened");
}

// ---------------------------------------------------------------- Reader

struct StreamReader::Impl {
  std::shared_ptr<StreamHub> hub;  // hub->rep: the store, null once closed
  ReadOptions ro;
  std::string key, inline_value;
  EntryView e;                   // views point at key and inline_value above
  std::vector<uint64_t> starts;  // stream offset of each chunk
  uint64_t pos = 0;
  std::string cache;             // the last chunk read whole (verified)
  ptrdiff_t cached = -1;

  Status ReadAt(uint64_t off, char* dest, uint64_t n);
};

Status StreamReader::Impl::ReadAt(uint64_t off, char* dest, uint64_t n) {
  if (off > e.size || n > e.size - off)
    return Status::InvalidArgument("range [" + std::to_string(off) + ", +" + std::to_string(n) +
                                   ") passes the end of stream '" + key + "' (" + std::to_string(e.size) + " bytes)");
  if (e.kind == ValueKind::kInline) {
    std::memcpy(dest, inline_value.data() + off, n);
    return Status::OK();
  }
  while (n > 0) {
    size_t i = size_t(std::upper_bound(starts.begin(), starts.end(), off) - starts.begin()) - 1;
    uint64_t cbeg = starts[i], clen = e.chunks[i].raw_length;
    if (ptrdiff_t(i) != cached && off == cbeg && n >= clen) {
      // Whole chunks: straight into the caller's buffer, as one batch.
      size_t j = i;
      uint64_t len = 0;
      while (j < e.chunks.size() && len + e.chunks[j].raw_length <= n) len += e.chunks[j++].raw_length;
      Status s = hub->rep->ReadValue(e, off, len, dest, ro);
      if (!s.ok()) return s;
      off += len;
      dest += len;
      n -= len;
      continue;
    }
    if (ptrdiff_t(i) != cached) {
      cached = -1;
      cache.resize(clen);
      Status s = hub->rep->ReadValue(e, cbeg, clen, cache.data(), ro);
      if (!s.ok()) return s;
      cached = ptrdiff_t(i);
    }
    uint64_t k = std::min<uint64_t>(n, cbeg + clen - off);
    std::memcpy(dest, cache.data() + (off - cbeg), k);
    off += k;
    dest += k;
    n -= k;
  }
  return Status::OK();
}

StreamReader::StreamReader(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
StreamReader::~StreamReader() { impl_->hub->readers.erase(impl_.get()); }

Status StreamReader::Read(void* buf, size_t n, size_t* got) {
  return UnlessOutOfMemoryThen("Read of stream", impl_->e.key, kNothingChanged, [&]() -> Status {
    *got = 0;
    if (!impl_->hub->rep) return impl_->hub->Closed(impl_->key, false);
    uint64_t k = std::min<uint64_t>(n, impl_->e.size - impl_->pos);
    Status s = impl_->ReadAt(impl_->pos, static_cast<char*>(buf), k);
    if (!s.ok()) return s;
    impl_->pos += k;
    *got = size_t(k);
    return Status::OK();
  });
}

Status StreamReader::ReadAt(uint64_t offset, void* buf, size_t n) {
  return UnlessOutOfMemoryThen("ReadAt of stream", impl_->e.key, kNothingChanged, [&]() -> Status {
    if (!impl_->hub->rep) return impl_->hub->Closed(impl_->key, false);
    return impl_->ReadAt(offset, static_cast<char*>(buf), n);
  });
}

Status StreamReader::Seek(uint64_t pos) {
  return UnlessOutOfMemoryThen("Seek in stream", impl_->e.key, kNothingChanged, [&]() -> Status {
    if (!impl_->hub->rep) return impl_->hub->Closed(impl_->key, false);
    if (pos > impl_->e.size)
      return Status::InvalidArgument("seek to " + std::to_string(pos) + " passes the end of stream '" +
                                     impl_->key + "' (" + std::to_string(impl_->e.size) + " bytes)");
    impl_->pos = pos;
    return Status::OK();
  });
}

uint64_t StreamReader::Tell() const { return impl_->pos; }
uint64_t StreamReader::Size() const { return impl_->e.size; }

Status Store::OpenReadStream(std::string_view key, std::unique_ptr<StreamReader>* reader,
                             const ReadOptions& ro) {
  return UnlessOutOfMemoryThen("OpenReadStream of", key, kNothingChanged, [&]() -> Status {
    reader->reset();
    EntryView e;
    const NameDict* dict;
    Status s = rep_->Find(key, ro, &e, &dict);
    if (!s.ok()) return s;
    auto impl = std::make_unique<StreamReader::Impl>();
    impl->hub = HubOf(rep_.get());
    impl->ro = ro;
    impl->key = std::string(e.key);
    impl->inline_value = std::string(e.inline_value);
    impl->e.key = impl->key;
    impl->e.kind = e.kind;
    impl->e.size = e.size;
    impl->e.inline_value = impl->inline_value;
    impl->e.chunks = e.chunks;
    uint64_t at = 0;
    for (const ChunkRef& c : e.chunks) {
      impl->starts.push_back(at);
      at += c.raw_length;
    }
    // The reader first: its destructor unregisters it, so running out of
    // memory in either step leaves nothing registered.
    StreamReader::Impl* raw = impl.get();
    std::unique_ptr<StreamReader> r(new StreamReader(std::move(impl)));
    raw->hub->readers.insert(raw);
    *reader = std::move(r);
    return Status::OK();
  });
}

// ---------------------------------------------------------------- Held space

void StreamHub::AddHeldExtents(uint64_t extent, std::vector<ExtentRange>* out) const {
  auto add = [&](const ChunkRef& c) { AddExtentRange(out, c.subfile, c.offset, c.length, extent); };
  for (const auto& [key, w] : writers) {
    for (const ChunkRef& c : w->chunks) add(c);
    if (w->open.open) add(w->open.ref);  // the chunk being appended to
  }
  for (const StreamReader::Impl* r : readers)
    for (const ChunkRef& c : r->e.chunks) add(c);
}

}  // namespace cairn
