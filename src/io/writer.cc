#include "io/writer.h"

#include <algorithm>
#include <cstring>

#include "format/checksum.h"

namespace cairn {

Writer::Writer(File* file, uint32_t subfile, ExtentAllocator alloc, size_t buffer_size,
               uint64_t extent_size, uint64_t chunk_size, IoQueue* queue)
    : file_(file), subfile_(subfile), alloc_(std::move(alloc)), extent_size_(extent_size),
      chunk_size_(chunk_size), buf_cap_(buffer_size), queue_(queue) {
  if (!queue_) buf_.reserve(buf_cap_);
}

Writer::~Writer() {
  if (queue_ && buf_.capacity() > 0) queue_->Release(std::move(buf_));
}

void Writer::SetFreeRuns(std::vector<std::pair<uint64_t, uint64_t>> runs) {
  // Adjacent runs are joined: an asynchronous commit gives the rank its new
  // share beside what is left of its old list (ApplyCommitSpace's
  // keep_free), and without joining them the list fell apart into
  // one-extent pieces, commit after commit, that no value needing a longer
  // run could take.
  std::sort(runs.begin(), runs.end());
  free_.clear();
  for (const auto& r : runs) {
    if (r.second == 0) continue;
    if (!free_.empty() && free_.back().first + free_.back().second == r.first)
      free_.back().second += r.second;
    else
      free_.push_back(r);
  }
}

uint64_t Writer::free_bytes() const {
  uint64_t n = 0;
  for (const auto& f : free_) n += f.second;
  return n;
}

Status Writer::NewRun(uint64_t min_bytes, bool split_ok) {
  Status s = Flush();
  if (!s.ok()) return s;
  uint64_t bytes = std::max<uint64_t>(extent_size_, (min_bytes + extent_size_ - 1) / extent_size_ * extent_size_);
  uint64_t off = 0;
  // First fit from the free list; failing that, with split_ok, the
  // largest free run (the value continues in the next run).
  size_t pick = free_.size();
  for (size_t i = 0; i < free_.size(); i++) {
    if (free_[i].second >= bytes) { pick = i; break; }
  }
  if (pick == free_.size() && split_ok && !free_.empty()) {
    pick = 0;
    for (size_t i = 1; i < free_.size(); i++)
      if (free_[i].second > free_[pick].second) pick = i;
    bytes = free_[pick].second;
  }
  if (pick < free_.size()) {
    off = free_[pick].first;
    free_[pick].first += bytes;
    free_[pick].second -= bytes;
    if (free_[pick].second == 0) free_.erase(free_.begin() + ptrdiff_t(pick));
  } else {
    s = alloc_(bytes, &off);
    if (!s.ok()) return s;
    max_end_ = std::max(max_end_, off + bytes);
  }
  taken_ += bytes;
  pos_ = buf_start_ = run_start_ = off;
  run_end_ = off + bytes;
  return Status::OK();
}

Status Writer::Emit(const char* p, uint64_t n) {
  // Invariant: buffered bytes end at pos_.
  while (n > 0) {
    if (!queue_ && buf_.empty() && n >= buf_cap_) {
      // Large: straight to the file, no copy.
      Status s = file_->PWrite(pos_, p, n);
      if (!s.ok()) return s;
      Written(pos_, n);
      pos_ += n;
      buf_start_ = pos_;
      return Status::OK();
    }
    if (buf_.empty()) buf_start_ = pos_;
    if (queue_ && buf_.capacity() < buf_cap_) buf_ = queue_->Acquire(buf_cap_);
    uint64_t take = std::min<uint64_t>(n, buf_cap_ - buf_.size());
    buf_.append(p, take);
    pos_ += take;
    p += take;
    n -= take;
    if (buf_.size() == buf_cap_) {
      Status s = Flush();
      if (!s.ok()) return s;
    }
  }
  return Status::OK();
}

Status Writer::Flush() {
  if (queue_) {
    if (!buf_.empty()) {
      uint64_t start = buf_start_;
      uint64_t n = buf_.size();
      // On std::bad_alloc nothing is queued and buf_ keeps its bytes (bytes
      // of values put before, in their entries already): a later Flush
      // hands them again. (Advanced before, they were lost.)
      queue_->SubmitWrite(file_, start, std::move(buf_));
      buf_start_ += n;
      buf_ = std::string();  // the next Emit acquires a fresh one
      Written(start, n);
    }
    return queue_->error();
  }
  if (buf_.empty()) return Status::OK();
  Status s = file_->PWrite(buf_start_, buf_.data(), buf_.size());
  if (!s.ok()) return s;  // keep the bytes: a later Flush may retry
  Written(buf_start_, buf_.size());
  buf_start_ += buf_.size();
  buf_.clear();
  return Status::OK();
}

Status Writer::EmitFrom(const char* p, uint64_t n) {
  // What is buffered lies below pos_: it leaves first, then the caller's
  // bytes follow it in the same run.
  Status s = Flush();
  if (!s.ok()) return s;
  queue_->SubmitWriteFrom(file_, pos_, p, n);
  Written(pos_, n);
  pos_ += n;
  buf_start_ = pos_;
  return Status::OK();
}

void Writer::Written(uint64_t off, uint64_t n) {
  if (writeback_bytes_ == 0 || n == 0) return;
  if (off != wb_end_ || wb_end_ == wb_start_) wb_start_ = off;  // a new range (the old one: the fsync's)
  wb_end_ = off + n;
  if (wb_end_ - wb_start_ < writeback_bytes_) return;
  uint64_t start = wb_start_, len = wb_end_ - wb_start_;
  wb_start_ = wb_end_;
  BehindWrites([f = file_, start, len] {
    f->StartWriteback(start, len);
    return Status::OK();
  });
}

Status Writer::BehindWrites(std::function<Status()> job) {
  if (!queue_) return job();
  queue_->Submit(std::move(job));
  return Status::OK();
}

void Writer::DropWritten(uint64_t from, uint64_t to) {
  if (to <= from) return;
  BehindWrites([f = file_, from, to] {
    f->DropCache(from, to - from);
    return Status::OK();
  });
}

Status Writer::WriteBackAndDrop(uint64_t from, uint64_t to) {
  if (to <= from) return Status::OK();
  return BehindWrites([f = file_, from, to] {
    Status s = f->WaitWriteback(from, to - from);
    if (s.ok()) f->DropCache(from, to - from);
    return s;
  });
}

Status Writer::Append(std::string_view data, std::vector<ChunkRef>* chunks, uint64_t grain) {
  return AppendWith(data, chunks, false, grain);
}

Status Writer::AppendZeroCopy(std::string_view data, std::vector<ChunkRef>* chunks, uint64_t grain) {
  return AppendWith(data, chunks, queue_ != nullptr, grain);
}

Status Writer::AppendWith(std::string_view data, std::vector<ChunkRef>* chunks, bool zero_copy,
                          uint64_t grain) {
  if (grain >= chunk_size_) grain = 0;
  const char* p = data.data();
  uint64_t left = data.size();
  while (left > 0) {
    if (pos_ == run_end_) {
      // One run for everything that is left keeps a large value contiguous.
      Status s = NewRun(left, /*split_ok=*/true);
      if (!s.ok()) return s;
    }
    // All that fits in this run goes out in one Emit (so a large value
    // bypasses the buffer), cut into chunks of at most chunk_size.
    uint64_t span = std::min<uint64_t>(left, run_end_ - pos_);
    size_t first = chunks->size();
    for (uint64_t done = 0; done < span;) {
      uint64_t n = grain ? grain - (pos_ + done) % grain : chunk_size_;
      n = std::min<uint64_t>(n, span - done);
      ChunkRef c;
      c.subfile = subfile_;
      c.offset = pos_ + done;
      c.length = c.raw_length = n;
      c.checksum = Checksum(p + done, n);
      chunks->push_back(c);
      done += n;
    }
    Status s = zero_copy ? EmitFrom(p, span) : Emit(p, span);
    if (!s.ok()) {
      chunks->resize(first);
      return s;
    }
    p += span;
    left -= span;
  }
  return Status::OK();
}

void Writer::CloseChunk(OpenChunk* oc, std::vector<ChunkRef>* done) {
  if (!oc->open) return;
  oc->ref.checksum = oc->checksum.Digest();
  if (oc->ref.length > 0) done->push_back(oc->ref);
  oc->open = false;
}

Status Writer::AppendPiece(std::string_view data, OpenChunk* oc, std::vector<ChunkRef>* done) {
  const char* p = data.data();
  uint64_t left = data.size();
  while (left > 0) {
    bool follows = oc->open && oc->ref.offset + oc->ref.length == pos_;
    if (!follows || oc->ref.length == chunk_size_ || pos_ == run_end_) {
      CloseChunk(oc, done);
      if (pos_ == run_end_) {
        // As for a put: no free run long enough for the rest of this piece,
        // then the largest one (the chunk ends at the run's end), rather
        // than new space at the end of the file while free runs wait.
        Status s = NewRun(left, /*split_ok=*/true);
        if (!s.ok()) return s;
      }
      oc->open = true;
      oc->ref = ChunkRef();
      oc->ref.subfile = subfile_;
      oc->ref.offset = pos_;
      oc->checksum.Reset();
    }
    uint64_t take = std::min({left, chunk_size_ - oc->ref.length, run_end_ - pos_});
    Status s = Emit(p, take);
    if (!s.ok()) return s;
    oc->checksum.Update(p, take);
    oc->ref.length += take;
    oc->ref.raw_length = oc->ref.length;
    p += take;
    left -= take;
  }
  return Status::OK();
}

Status Writer::AppendContiguous(std::string_view data, uint64_t* offset) {
  Status s = ReserveContiguous(data.size(), offset);
  return s.ok() ? Emit(data.data(), data.size()) : s;
}

Status Writer::ReserveContiguous(uint64_t n, uint64_t* offset) {
  if (run_end_ - pos_ < n) {
    Status s = NewRun(n);
    if (!s.ok()) return s;
  }
  *offset = pos_;
  return Status::OK();
}

}  // namespace cairn
