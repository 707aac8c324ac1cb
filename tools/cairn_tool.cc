// cairn: list, inspect, verify and extract the contents of a store (objects,
// and boxes of global arrays as raw bytes or .npy); drop, pin and unpin
// revisions and show the space they hold. Runs in a single
// process (no mpiexec needed); reads open the store read-only, and drop,
// pin and unpin append one record to its manifest under the store's writer
// lock (refused while a job has the store open for writing).
#include <CLI/CLI.hpp>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <cstring>
#include <cstdio>
#include <ctime>
#include <iostream>
#include <memory>
#include <set>
#include <string>

#include "cairn/store.h"
#include "array_select.h"
#include "cairn/version.h"
#include "store/inspect.h"
#include "store/repair.h"
#include "store/retention.h"

namespace {

using cairn::Status;

// The length of the well-formed UTF-8 sequence at s[i] (1-4), or 0 if the
// bytes there are not one (stray continuation, overlong form, surrogate,
// past U+10FFFF, cut short).
size_t Utf8Length(std::string_view s, size_t i) {
  unsigned char c = s[i];
  if (c < 0x80) return 1;
  size_t n = c >= 0xF0 ? 4 : c >= 0xE0 ? 3 : c >= 0xC2 ? 2 : 0;
  if (n == 0 || c > 0xF4 || i + n > s.size()) return 0;
  unsigned char c1 = s[i + 1];
  unsigned char lo = 0x80, hi = 0xBF;
  if (c == 0xE0) lo = 0xA0;
  if (c == 0xED) hi = 0x9F;
  if (c == 0xF0) lo = 0x90;
  if (c == 0xF4) hi = 0x8F;
  if (c1 < lo || c1 > hi) return 0;
  for (size_t k = 2; k < n; k++)
    if ((static_cast<unsigned char>(s[i + k]) & 0xC0) != 0x80) return 0;
  return n;
}

// A JSON string of `s`. Keys, tag names and string tags are bytes, not
// always UTF-8, and JSON text must be UTF-8: a byte that is not part of a
// well-formed UTF-8 sequence is written as the escape \udcXX (XX its value;
// Python's json.loads and then .encode("utf-8", "surrogateescape") give the
// bytes back, as tools/cairn_reader.py writes keys).
std::string JsonString(std::string_view s) {
  std::string o = "\"";
  for (size_t i = 0; i < s.size();) {
    unsigned char c = s[i];
    size_t n = Utf8Length(s, i);
    char b[8];
    if (n == 0) { std::snprintf(b, sizeof b, "\\udc%02x", c); o += b; n = 1; }
    else if (c == '"' || c == '\\') { o += '\\'; o += char(c); }
    else if (c < 0x20) { std::snprintf(b, sizeof b, "\\u%04x", c); o += b; }
    else o.append(s.substr(i, n));
    i += n;
  }
  return o + "\"";
}

std::string Time(uint64_t ns) {
  time_t t = time_t(ns / 1000000000ull);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&t));
  return buf;
}

std::string TagJson(const cairn::TagValue& v) {
  if (v.type() == cairn::TagType::kString && !v.is_array()) return JsonString(v.bytes());
  if (v.is_number() || v.is_array()) {
    std::string s = v.ToString();
    if (s == "nan" || s == "inf" || s == "-inf") return JsonString(s);
    if (v.is_array() && v.is_float()) {
      // "[1.5, nan, inf]": JSON has no literal for the elements that are
      // not finite either: each becomes a string, as a scalar does.
      std::string o = "[";
      size_t b = 1;
      while (b < s.size() - 1) {
        size_t e = s.find(", ", b);
        if (e == std::string::npos) e = s.size() - 1;
        std::string x = s.substr(b, e - b);
        if (o.size() > 1) o += ", ";
        o += (x == "nan" || x == "inf" || x == "-inf") ? JsonString(x) : x;
        b = e + 2;
      }
      return o + "]";
    }
    return s;
  }
  return JsonString(v.ToString());
}

// Under --json, errors too are JSON: {"error": {"code": ..., "message": ...}}
// on standard output (and the exit status is still non-zero).
bool g_json = false;

void JsonError(std::string_view code, std::string_view message) {
  std::printf("{\"error\": {\"code\": %s, \"message\": %s}}\n", JsonString(code).c_str(),
              JsonString(message).c_str());
}

// The exit status of every command (README.md, "The `cairn` tool"): 0 on
// success (verify: intact; repair: repaired or nothing to repair), 2 when
// damage is found (any Corruption, including a store that cannot be opened
// because of it), 1 on any other error (no store, an I/O error, the writer
// lock held).
constexpr int kExitCorrupt = 2;

// Reports a failed command and returns its exit status.
int Fail(const Status& s) {
  int code = s.IsCorruption() ? kExitCorrupt : 1;
  if (g_json) {
    std::string full = s.ToString();
    JsonError(full.substr(0, full.find(':')), s.message());
    return code;
  }
  std::fprintf(stderr, "cairn: %s\n", s.ToString().c_str());
  return code;
}

// The name of a tag's type, e.g. "int16", "float32", "string", "uint8[]".
std::string TagTypeName(const cairn::TagValue& v) {
  static const char* const kNames[] = {"?",      "int8",   "int16",   "int32",   "int64",
                                       "uint8",  "uint16", "uint32",  "uint64",  "float32",
                                       "float64", "string", "bytes"};
  unsigned t = unsigned(v.type());
  std::string name = t < sizeof kNames / sizeof kNames[0] ? kNames[t] : "?";
  return v.is_array() ? name + "[]" : name;
}

Status OpenStore(const std::string& path, uint64_t revision, std::unique_ptr<cairn::Store>* store) {
  cairn::Options o;
  o.read_only = true;
  o.create_if_missing = false;
  o.revision = revision;
  return cairn::Store::Open(o, path, store);
}

// The retained revisions of the store at `path`, as a fresh open sees them.
Status ListNow(const std::string& path, std::vector<cairn::RevisionInfo>* now) {
  std::unique_ptr<cairn::Store> st;
  Status s = OpenStore(path, 0, &st);
  if (s.ok()) return st->ListRevisions(now);
  // The newest revision cannot be opened because it is damaged (its rank-0
  // index table, read at open): the manifest still lists every revision,
  // and the older ones may be intact (before, ls and verify --all stopped
  // here with exit 2, checking nothing).
  if (s.IsCorruption() && cairn::ListRevisionsAt(path, now).ok()) return Status::OK();
  return s;
}

int CmdLs(const std::string& path, bool json) {
  std::vector<cairn::RevisionInfo> revs;
  Status s = ListNow(path, &revs);
  if (!s.ok()) return Fail(s);
  if (json) {
    std::printf("[");
    for (size_t i = 0; i < revs.size(); i++) {
      const auto& r = revs[i];
      std::printf("%s\n {\"revision\": %lu, \"parent\": %lu, \"time\": \"%s\", \"ranks\": %u, "
                  "\"objects\": %lu, \"value_bytes\": %lu, \"index_bytes\": %lu, \"pinned\": %s}",
                  i ? "," : "", r.revision, r.parent, Time(r.time_ns).c_str(), r.ranks, r.objects,
                  r.value_bytes, r.index_bytes, r.pinned ? "true" : "false");
    }
    std::printf("\n]\n");
    return 0;
  }
  std::printf("%-9s %-8s %-21s %6s %10s %14s %12s\n", "revision", "parent", "time (UTC)", "ranks",
              "objects", "value bytes", "index bytes");
  for (const auto& r : revs)
    std::printf("%-9lu %-8lu %-21s %6u %10lu %14lu %12lu%s\n", r.revision, r.parent,
                Time(r.time_ns).c_str(), r.ranks, r.objects, r.value_bytes, r.index_bytes,
                r.pinned ? "  pinned" : "");
  return 0;
}

int CmdInfo(const std::string& path, uint64_t revision, bool json) {
  std::unique_ptr<cairn::Store> st;
  Status s = OpenStore(path, revision, &st);
  if (!s.ok()) return Fail(s);
  const cairn::RevisionRecord& r = cairn::Inspector::Record(*st);
  if (r.revision == 0) {
    std::printf(json ? "{\"revision\": 0}\n" : "store %s has no committed revision\n", path.c_str());
    return 0;
  }
  if (json) {
    std::printf("{\"store\": %s, \"revision\": %lu, \"parent\": %lu, \"time\": \"%s\", \"ranks\": %u,\n"
                " \"data_files\": [", JsonString(path).c_str(), r.revision, r.parent,
                Time(r.time_ns).c_str(), r.nranks);
    for (size_t i = 0; i < r.high_water.size(); i++)
      std::printf("%s{\"id\": %zu, \"high_water\": %lu}", i ? ", " : "", i, r.high_water[i]);
    std::printf("],\n \"namespaces\": [");
    for (size_t i = 0; i < r.namespaces.size(); i++) {
      const auto& d = r.namespaces[i];
      std::string who = i + 1 == r.namespaces.size() ? "\"shared\"" : std::to_string(i);
      std::printf("%s\n  {\"rank\": %s, \"objects\": %lu, \"value_bytes\": %lu, \"index_bytes\": %lu, "
                  "\"index_file\": %u, \"index_offset\": %lu}",
                  i ? "," : "", who.c_str(), d.objects, d.value_bytes, d.length, d.subfile, d.offset);
    }
    std::printf("\n]}\n");
    return 0;
  }
  std::printf("store       %s\nrevision    %lu (parent %lu), %s\nranks       %u\n", path.c_str(),
              r.revision, r.parent, Time(r.time_ns).c_str(), r.nranks);
  std::printf("data files  %zu\n", r.high_water.size());
  for (size_t i = 0; i < r.high_water.size(); i++)
    std::printf("  data.%05zu  allocated up to %lu bytes\n", i, r.high_water[i]);
  std::printf("%-8s %10s %14s %12s  %s\n", "rank", "objects", "value bytes", "index bytes", "index at");
  for (size_t i = 0; i < r.namespaces.size(); i++) {
    const auto& d = r.namespaces[i];
    std::string who = i + 1 == r.namespaces.size() ? "shared" : std::to_string(i);
    std::printf("%-8s %10lu %14lu %12lu  data.%05u+%lu\n", who.c_str(), d.objects, d.value_bytes,
                d.length, d.subfile, d.offset);
  }
  return 0;
}

int CmdKeys(const std::string& path, uint64_t revision, int rank, bool json) {
  std::unique_ptr<cairn::Store> st;
  Status s = OpenStore(path, revision, &st);
  if (!s.ok()) return Fail(s);
  const cairn::RevisionRecord& r = cairn::Inspector::Record(*st);
  // All ranks then the shared namespace, one rank, or only the shared one.
  std::vector<int> which;
  if (rank == cairn::ReadOptions::kShared) which = {rank};
  else if (rank >= 0) which = {rank};
  else {
    for (int k = 0; k < int(r.nranks); k++) which.push_back(k);
    if (r.revision != 0) which.push_back(cairn::ReadOptions::kShared);
  }
  // Under --json every namespace is listed before anything is printed, so
  // that a damaged one gives a JSON error alone, not a half-printed array;
  // text output streams namespace by namespace.
  std::vector<std::vector<cairn::ObjectInfo>> lists(json ? which.size() : 0);
  for (size_t i = 0; json && i < which.size(); i++) {
    cairn::ReadOptions ro;
    ro.rank = which[i];
    s = st->List(&lists[i], ro);
    if (!s.ok()) return Fail(s);
  }
  bool any = false;
  if (json) std::printf("[");
  for (size_t i = 0; i < which.size(); i++) {
    int k = which[i];
    std::string who = k == cairn::ReadOptions::kShared ? "\"shared\"" : std::to_string(k);
    std::vector<cairn::ObjectInfo> text_objs;
    if (!json) {
      cairn::ReadOptions ro;
      ro.rank = k;
      s = st->List(&text_objs, ro);
      if (!s.ok()) return Fail(s);
    }
    const std::vector<cairn::ObjectInfo>& objs = json ? lists[i] : text_objs;
    for (const auto& o : objs) {
      if (json) {
        std::printf("%s\n {\"rank\": %s, \"key\": %s, \"size\": %lu, \"inline\": %s, \"tags\": {", any ? "," : "",
                    who.c_str(), JsonString(o.key).c_str(), o.size, o.inlined ? "true" : "false");
        for (size_t i = 0; i < o.tags.size(); i++)
          std::printf("%s%s: %s", i ? ", " : "", JsonString(o.tags[i].name).c_str(), TagJson(o.tags[i].value).c_str());
        // The types (widths) the numbers above lose in JSON.
        std::printf("}, \"tag_types\": {");
        for (size_t i = 0; i < o.tags.size(); i++)
          std::printf("%s%s: \"%s\"", i ? ", " : "", JsonString(o.tags[i].name).c_str(),
                      TagTypeName(o.tags[i].value).c_str());
        std::printf("}}");
      } else {
        std::printf("%s\t%s\t%lu", k == cairn::ReadOptions::kShared ? "shared" : who.c_str(), o.key.c_str(), o.size);
        for (const auto& t : o.tags) std::printf("\t%s=%s", t.name.c_str(), t.value.ToString().c_str());
        std::printf("\n");
      }
      any = true;
    }
  }
  if (json) std::printf("\n]\n");
  return 0;
}

// Where `get` writes: standard output, or the file of -o. A regular file
// (or a new one) is written as a temporary file beside it and renamed over
// it once the extraction succeeded, so a failed get leaves no partial file
// behind and an existing file as it was. Anything else that exists (a
// device such as /dev/null, a FIFO, a symlink) is written in place and
// never removed (before, a failed get removed the path: a FIFO, /dev/null
// for root, or the user's earlier good extract).
// The temporary file of a get -o in progress, removed by the handler of a
// signal that ends the tool (Ctrl-C, a job's time limit) before the get
// finished: such a get leaves no file behind either.
char g_output_tmp[4096];
extern "C" void RemoveOutputTmp(int sig) {
  if (g_output_tmp[0]) ::unlink(g_output_tmp);
  std::signal(sig, SIG_DFL);
  std::raise(sig);
}

class Output {
 public:
  Status Open(const std::string& file) {
    if (file.empty() || file == "-") return Status::OK();
    file_ = file;
    struct stat st;
    const bool exists = ::lstat(file.c_str(), &st) == 0;
    if (exists && !S_ISREG(st.st_mode)) {
      f_ = std::fopen(file.c_str(), "wb");
      if (!f_) return Status::FromErrno("cannot open output file " + file, errno);
      return Status::OK();
    }
    tmp_ = file + ".cairn-XXXXXX";
    int fd = ::mkstemp(tmp_.data());
    if (fd < 0) return Status::FromErrno("cannot create output file " + file + " (a temporary file beside it)", errno);
    mode_t mask = ::umask(0);
    ::umask(mask);
    ::fchmod(fd, exists ? st.st_mode & 07777 : 0666 & ~mask);  // the file's, or as fopen would make it
    if (tmp_.size() < sizeof g_output_tmp) {
      std::memcpy(g_output_tmp, tmp_.c_str(), tmp_.size() + 1);
      for (int sig : {SIGINT, SIGTERM, SIGHUP, SIGPIPE, SIGXFSZ}) std::signal(sig, RemoveOutputTmp);
    }
    f_ = ::fdopen(fd, "wb");
    if (!f_) {
      int e = errno;
      ::close(fd);
      std::remove(tmp_.c_str());
      return Status::FromErrno("cannot create output file " + file, e);
    }
    return Status::OK();
  }
  Status Write(const void* p, size_t n) {
    if (n && std::fwrite(p, 1, n, stream()) != n)
      return Status::IOError("writing " + (file_.empty() ? std::string("standard output") : file_));
    return Status::OK();
  }
  // Closes the file (error if it cannot be written out); the temporary file
  // replaces the output if all is ok, and is removed otherwise.
  Status Finish(bool ok) {
    Status s;
    if (f_) {
      if (std::fclose(f_) != 0 && ok) s = Status::FromErrno("closing " + file_, errno);
      f_ = nullptr;
      if (!tmp_.empty()) {
        if (ok && s.ok() && std::rename(tmp_.c_str(), file_.c_str()) != 0)
          s = Status::FromErrno("renaming " + tmp_ + " to " + file_, errno);
        if (!ok || !s.ok()) std::remove(tmp_.c_str());
        g_output_tmp[0] = '\0';
        tmp_.clear();
      }
    } else if (std::fflush(stdout) != 0 && ok) {
      s = Status::IOError("writing standard output");
    }
    return s;
  }
  ~Output() { if (f_) Finish(false); }

 private:
  FILE* stream() { return f_ ? f_ : stdout; }
  FILE* f_ = nullptr;
  std::string file_;
  std::string tmp_;  // the temporary file written in place of file_, if any
};

// rank -1: not given, which is rank 0 for a store written by one rank and
// an error (asking for --rank) for a store written by several.
int CmdGet(const std::string& path, const std::string& key, uint64_t revision, int rank,
           const std::string& out_file) {
  std::unique_ptr<cairn::Store> st;
  Status s = OpenStore(path, revision, &st);
  if (!s.ok()) return Fail(s);
  if (rank == -1) {
    uint32_t n = cairn::Inspector::Record(*st).nranks;
    if (n > 1)
      return Fail(Status::InvalidArgument(
          "store " + path + " (revision " + std::to_string(st->revision()) + ") was written by " +
          std::to_string(n) + " ranks: say whose key '" + key + "' to read with --rank 0.." +
          std::to_string(n - 1) + " (or --shared)"));
    rank = 0;
  }
  cairn::ReadOptions ro;
  ro.rank = rank;
  uint64_t size = 0;
  s = st->GetSize(key, &size, ro);
  if (!s.ok()) return Fail(s);
  Output out;
  s = out.Open(out_file);
  if (!s.ok()) return Fail(s);
  // Stream in pieces so a value of many GiB needs little memory.
  std::string buf;
  const uint64_t piece = 64ull << 20;
  for (uint64_t off = 0; off < size && s.ok(); off += piece) {
    uint64_t n = std::min(piece, size - off);
    buf.resize(n);
    s = st->GetRange(key, off, buf.data(), n, ro);
    if (s.ok()) s = out.Write(buf.data(), n);
  }
  Status f = out.Finish(s.ok());
  if (!s.ok()) return Fail(s);
  if (!f.ok()) return Fail(f);
  return 0;
}

std::string U64List(const std::vector<uint64_t>& v) {
  std::string o = "[";
  for (size_t i = 0; i < v.size(); i++) o += (i ? ", " : "") + std::to_string(v[i]);
  return o + "]";
}

// The arrays of a revision; with `blocks`, every block of each too.
int CmdArrays(const std::string& path, uint64_t revision, bool json, bool blocks) {
  std::unique_ptr<cairn::Store> st;
  Status s = OpenStore(path, revision, &st);
  if (!s.ok()) return Fail(s);
  std::vector<cairn::ArrayInfo> arrays;
  s = st->ListArrays(&arrays);
  if (!s.ok()) return Fail(s);
  if (blocks) {
    for (cairn::ArrayInfo& a : arrays) {
      s = st->GetArrayInfo(a.name, &a, true);
      if (!s.ok()) return Fail(s);
    }
  }
  if (json) {
    std::printf("[");
    for (size_t i = 0; i < arrays.size(); i++) {
      const cairn::ArrayInfo& a = arrays[i];
      std::printf("%s\n {\"name\": %s, \"dtype\": \"%s\", \"shape\": %s, \"blocks\": %lu, \"regular\": %s, "
                  "\"tags\": {", i ? "," : "", JsonString(a.name).c_str(), cairn::DTypeName(a.dtype),
                  U64List(a.shape).c_str(), a.block_count, a.regular ? "true" : "false");
      for (size_t t = 0; t < a.tags.size(); t++)
        std::printf("%s%s: %s", t ? ", " : "", JsonString(a.tags[t].name).c_str(), TagJson(a.tags[t].value).c_str());
      std::printf("}, \"tag_types\": {");
      for (size_t t = 0; t < a.tags.size(); t++)
        std::printf("%s%s: \"%s\"", t ? ", " : "", JsonString(a.tags[t].name).c_str(),
                    TagTypeName(a.tags[t].value).c_str());
      std::printf("}");
      if (blocks) {
        std::printf(", \"block_list\": [");
        for (size_t b = 0; b < a.blocks.size(); b++) {
          const cairn::ArrayBlock& k = a.blocks[b];
          std::printf("%s{\"rank\": %d, \"start\": %s, \"count\": %s", b ? ", " : "", k.rank,
                      U64List(k.start).c_str(), U64List(k.count).c_str());
          // a block put with statistics: its minimum and maximum (as tags print floats)
          if (k.has_statistics)
            std::printf(", \"min\": %s, \"max\": %s", TagJson(cairn::TagValue::Float64(k.min)).c_str(),
                        TagJson(cairn::TagValue::Float64(k.max)).c_str());
          std::printf("}");
        }
        std::printf("]");
      }
      std::printf("}");
    }
    std::printf("\n]\n");
    return 0;
  }
  std::printf("%-24s %-8s %-20s %8s  %-9s %s\n", "array", "dtype", "shape", "blocks", "layout", "tags");
  for (const cairn::ArrayInfo& a : arrays) {
    std::printf("%-24s %-8s %-20s %8lu  %-9s", a.name.c_str(), cairn::DTypeName(a.dtype),
                cairn_tool::ShapeText(a.shape).c_str(), a.block_count,
                a.block_count == 0 ? "empty" : a.regular ? "regular" : "irregular");  // empty: no block was put
    for (size_t t = 0; t < a.tags.size(); t++)
      std::printf("%s%s=%s", t ? "\t" : " ", a.tags[t].name.c_str(), a.tags[t].value.ToString().c_str());
    std::printf("\n");
    for (const cairn::ArrayBlock& b : a.blocks) {
      std::printf("  rank %d:", b.rank);
      for (size_t d = 0; d < b.start.size(); d++)
        std::printf("%s%lu:%lu", d ? "," : " ", b.start[d], b.start[d] + b.count[d]);
      if (b.has_statistics)
        std::printf("  min %s max %s", cairn::TagValue::Float64(b.min).ToString().c_str(),
                    cairn::TagValue::Float64(b.max).ToString().c_str());
      std::printf("\n");
    }
  }
  return 0;
}

// Writes the box `select` (NumPy-style, see array_select.h) of array
// `name`: raw elements in row-major order, or a .npy file with `npy`.
int CmdGetArray(const std::string& path, const std::string& name, uint64_t revision, const std::string& select,
                bool npy, const std::string& out_file) {
  std::unique_ptr<cairn::Store> st;
  Status s = OpenStore(path, revision, &st);
  if (!s.ok()) return Fail(s);
  cairn::ArrayInfo info;
  s = st->GetArrayInfo(name, &info);
  if (!s.ok()) return Fail(s);
  cairn_tool::Selection sel;
  s = cairn_tool::ParseSelection(select, info.shape, name, &sel);
  if (!s.ok()) return Fail(s);
  const uint64_t esize = cairn::DTypeSize(info.dtype);
  Output out;
  s = out.Open(out_file);
  if (!s.ok()) return Fail(s);
  // The .npy header goes out with the first piece read, so that a box that
  // fails in one piece (Corruption, ...) leaves nothing at all.
  std::string header = npy ? cairn_tool::NpyHeader(info.dtype, sel.Shape()) : "";
  // Read in boxes of at most `piece` bytes, each contiguous in the output:
  // dimension j is cut in runs of `batch` indices, every dimension before j
  // is walked one index at a time, every one after it is taken whole.
  const size_t nd = sel.count.size();
  const uint64_t piece_elems = std::max<uint64_t>(1, (64ull << 20) / esize);
  size_t j = 0;
  uint64_t inner = 1;  // elements of the dimensions after j
  for (size_t d = nd; d-- > 0;) {
    j = d;
    if (d == 0 || inner * sel.count[d] > piece_elems) break;
    inner *= sel.count[d];
  }
  // Now inner = prod(count[j+1..]) <= piece_elems.
  const uint64_t batch = std::max<uint64_t>(1, piece_elems / std::max<uint64_t>(inner, 1));
  std::vector<char> buf;
  std::vector<uint64_t> idx(nd, 0);  // position in the dimensions before j
  bool empty = sel.elements() == 0;
  while (s.ok() && !empty) {
    for (uint64_t o = 0; o < sel.count[j] && s.ok(); o += batch) {
      std::vector<uint64_t> start = sel.start, count = sel.count;
      for (size_t d = 0; d < j; d++) { start[d] += idx[d]; count[d] = 1; }
      start[j] += o;
      count[j] = std::min(batch, sel.count[j] - o);
      uint64_t n = count[j] * inner;
      buf.resize(n * esize);
      s = st->GetArray(name, start, count, buf.data());
      if (s.ok() && !header.empty()) s = out.Write(header.data(), header.size());
      header.clear();
      if (s.ok()) s = out.Write(buf.data(), buf.size());
    }
    // Next index of the dimensions before j (odometer); done after the last.
    size_t d = j;
    while (d > 0 && ++idx[d - 1] == sel.count[d - 1]) idx[--d] = 0;
    if (d == 0) break;
  }
  if (s.ok() && !header.empty()) s = out.Write(header.data(), header.size());  // an empty box
  Status f = out.Finish(s.ok());
  if (!s.ok()) return Fail(s);
  if (!f.ok()) return Fail(f);
  return 0;
}

int CmdVerify(const std::string& path, uint64_t revision, bool json) {
  std::unique_ptr<cairn::Store> st;
  Status s = OpenStore(path, revision, &st);
  if (!s.ok()) return Fail(s);
  cairn::VerifyReport rep;
  s = cairn::Inspector::Verify(st.get(), &rep);
  if (!s.ok()) return Fail(s);
  uint64_t rev = st->revision();
  if (json) {
    std::printf("{\"revision\": %lu, \"namespaces\": %lu, \"objects\": %lu, \"chunks\": %lu, \"bytes\": %lu, "
                "\"ok\": %s, \"problems\": [", rev, rep.namespaces, rep.objects, rep.chunks, rep.bytes,
                rep.problems.empty() ? "true" : "false");
    for (size_t i = 0; i < rep.problems.size(); i++)
      std::printf("%s%s", i ? ", " : "", JsonString(rep.problems[i]).c_str());
    std::printf("]}\n");
  } else {
    for (const auto& p : rep.problems) std::printf("CORRUPT %s\n", p.c_str());
    std::printf("revision %lu: %lu namespaces, %lu objects, %lu chunks, %lu bytes checked: %s\n", rev,
                rep.namespaces, rep.objects, rep.chunks, rep.bytes,
                rep.problems.empty() ? "OK" : (std::to_string(rep.problems.size()) + " problem(s)").c_str());
  }
  return rep.problems.empty() ? 0 : kExitCorrupt;
}

// The revisions the store at `path` retains now (one open, one listing).

// One revision's check in a pass of CmdVerifyAll: its report and its own
// problems (the manifest's are kept apart).
struct RevisionCheck {
  cairn::RevisionInfo ri;
  cairn::VerifyReport rep;
  std::vector<std::string> mine;
};

// Verifies every retained revision; problems of the manifest itself are
// shown once. A revision whose check failed and that a writer's retention
// expired meanwhile (a live store) is reported as expired, not as damage:
// its extents may already hold newer data. But what failed in it may be a
// chunk that newer revisions still carry, so the revisions committed since
// the listing are then checked too, until a pass sees no such expiry (at
// most kVerifyRounds passes; then exit 1: the writer expires revisions
// faster than they can be checked). Exit 2 if the manifest or any revision
// still retained has a problem. A pass whose checks all pass lists nothing;
// one where some failed lists the store once, after its last check: that
// listing tells which failed revisions expired (a revision gone from it
// expired while, or after, it was checked) and which revisions the next
// pass checks. Results are printed in order: those after a pass's first
// failure once its listing is made. If that listing fails, its failures
// are reported as found (damage), and no further pass is made.
int CmdVerifyAll(const std::string& path, bool json) {
  constexpr int kVerifyRounds = 5;
  std::vector<cairn::RevisionInfo> todo;
  Status s = ListNow(path, &todo);
  if (!s.ok()) return Fail(s);
  std::vector<std::string> manifest_problems;
  std::vector<uint64_t> failed, expired;
  std::set<uint64_t> checked;
  bool listing_failed = false;
  bool first = true, inconclusive = false;
  size_t count = 0;
  auto print = [&](const RevisionCheck& c, bool gone) {
    const cairn::RevisionInfo& ri = c.ri;
    const cairn::VerifyReport& rep = c.rep;
    const std::vector<std::string>& mine = c.mine;
    if (gone) {
      expired.push_back(ri.revision);
    } else if (!mine.empty()) {
      failed.push_back(ri.revision);
    }
    if (json) {
      std::printf("%s\n {\"revision\": %lu, \"objects\": %lu, \"bytes\": %lu, \"ok\": %s, \"expired\": %s, "
                  "\"problems\": [",
                  first ? "" : ",", ri.revision, rep.objects, rep.bytes, mine.empty() ? "true" : "false",
                  gone ? "true" : "false");
      for (size_t i = 0; i < mine.size(); i++) std::printf("%s%s", i ? ", " : "", JsonString(mine[i]).c_str());
      std::printf("]}");
    } else if (gone) {
      for (const auto& p : mine) std::printf("note revision %lu (expired while checked): %s\n", ri.revision, p.c_str());
      std::printf("revision %lu: expired while it was checked (the writer's retention dropped it, so what the "
                  "check saw may be newer data in its place); the revisions committed since are checked too\n",
                  ri.revision);
    } else {
      for (const auto& p : mine) std::printf("CORRUPT revision %lu: %s\n", ri.revision, p.c_str());
      std::printf("revision %lu: %lu objects, %lu chunks, %lu bytes checked: %s\n", ri.revision, rep.objects,
                  rep.chunks, rep.bytes, mine.empty() ? "OK" : "FAILED");
    }
    first = false;
    count++;
  };
  if (json) std::printf("{\"revisions\": [");
  for (int round = 0; !todo.empty(); round++) {
    if (round == kVerifyRounds) {
      inconclusive = true;
      break;
    }
    size_t expired_before = expired.size();
    std::vector<RevisionCheck> held;  // from the pass's first failure on
    for (const cairn::RevisionInfo& ri : todo) {
      checked.insert(ri.revision);
      RevisionCheck c;
      c.ri = ri;
      std::unique_ptr<cairn::Store> st;
      s = OpenStore(path, ri.revision, &st);
      if (s.ok()) s = cairn::Inspector::Verify(st.get(), &c.rep);
      if (!s.ok()) c.rep.problems.push_back(s.ToString());
      for (const std::string& p : c.rep.problems) {
        if (p.rfind("MANIFEST:", 0) == 0) {
          // The same for every revision: kept once, from whichever check saw it.
          if (std::find(manifest_problems.begin(), manifest_problems.end(), p) == manifest_problems.end())
            manifest_problems.push_back(p);
        } else {
          c.mine.push_back(p);
        }
      }
      if (held.empty() && c.mine.empty()) print(c, false);
      else held.push_back(std::move(c));
    }
    todo.clear();
    if (held.empty()) break;  // every check passed: nothing can have expired
    // The pass's one listing: which failed revisions expired, and (what
    // failed may be carried into them) the revisions committed since.
    std::vector<cairn::RevisionInfo> now;
    Status ls = ListNow(path, &now);
    bool listed = ls.ok();
    if (!listed) {
      // Said, not swallowed: which failed revisions expired, and which were
      // committed since, is then unknown (the failures count as damage).
      std::fprintf(stderr,
                   "cairn: verify --all of %s: listing the revisions after a failed check failed: %s (the "
                   "failures are reported as found; revisions committed since were not checked)\n",
                   path.c_str(), ls.ToString().c_str());
      listing_failed = true;
    }
    std::set<uint64_t> retained;
    for (const cairn::RevisionInfo& ri : now) retained.insert(ri.revision);
    for (const RevisionCheck& c : held) print(c, listed && !c.mine.empty() && !retained.count(c.ri.revision));
    if (expired.size() == expired_before) break;
    for (const cairn::RevisionInfo& ri : now)
      if (!checked.count(ri.revision)) todo.push_back(ri);
  }
  std::string failed_list, expired_list;
  for (uint64_t v : failed) failed_list += (failed_list.empty() ? "" : ", ") + std::to_string(v);
  for (uint64_t v : expired) expired_list += (expired_list.empty() ? "" : ", ") + std::to_string(v);
  bool ok = failed.empty() && manifest_problems.empty() && !listing_failed;
  if (json) {
    std::printf("\n], \"manifest_problems\": [");
    for (size_t i = 0; i < manifest_problems.size(); i++)
      std::printf("%s%s", i ? ", " : "", JsonString(manifest_problems[i]).c_str());
    std::printf("], \"failed\": [%s], \"expired\": [%s], \"inconclusive\": %s, \"ok\": %s}\n",
                failed_list.c_str(), expired_list.c_str(), inconclusive ? "true" : "false",
                ok && !inconclusive ? "true" : "false");
  } else {
    for (const auto& p : manifest_problems) std::printf("CORRUPT %s\n", p.c_str());
    // Those expired while checked are no longer retained.
    std::printf("%zu retained revision(s): %zu OK", count - expired.size(), count - failed.size() - expired.size());
    if (!expired.empty()) std::printf(", expired while checked: %s", expired_list.c_str());
    if (!failed.empty()) std::printf(", FAILED: %s", failed_list.c_str());
    if (!manifest_problems.empty()) std::printf("; the manifest has damaged records (run `cairn repair`)");
    std::printf("\n");
  }
  if (!ok) return kExitCorrupt;
  if (inconclusive) {
    std::fprintf(stderr,
                 "cairn: verify --all of %s: inconclusive: in %d passes a revision whose check failed expired "
                 "before its successors could be checked (the writer expires revisions faster than they are "
                 "checked: pin one, or verify when it stops)\n",
                 path.c_str(), kVerifyRounds);
    return 1;
  }
  return 0;
}

int CmdRepair(const std::string& path) {
  cairn::RepairReport rep;
  Status s = cairn::RepairManifest(path, &rep);
  if (!s.ok()) return Fail(s);
  if (!rep.changed) {
    std::printf("%s/MANIFEST has no damaged records: nothing to repair\n", path.c_str());
    return 0;
  }
  for (const cairn::DamagedRange& d : rep.dropped) {
    std::printf("dropped damaged record(s) at offset %lu (%lu bytes): ", d.offset, d.length);
    if (d.next_revision != 0 && d.next_revision == d.prev_revision + 1)
      std::printf("drop/pin/unpin record(s) between revisions %lu and %lu\n", d.prev_revision, d.next_revision);
    else if (d.next_revision != 0)
      std::printf("revision(s) %lu..%lu (if any), or drop/pin/unpin records\n", d.prev_revision + 1,
                  d.next_revision - 1);
    else
      std::printf("revision(s) after %lu (if any), or drop/pin/unpin records\n", d.prev_revision);
  }
  if (rep.tail_bytes)
    std::printf("dropped the final %s record at offset %lu (%lu bytes)\n",
                rep.tail_damaged ? "damaged" : "unfinished (torn)", rep.tail_offset, rep.tail_bytes);
  for (uint64_t v : rep.pinned_doubtful)
    std::printf("pinned revision %lu: a damaged record after it may have pinned, dropped or expired it "
                "(check with `cairn verify --all`, then `cairn unpin` or `cairn drop`)\n", v);
  if (rep.reserved_revision)
    std::printf("recorded revision %lu as dropped: a lost record may have held it, so no later commit "
                "takes its number\n", rep.reserved_revision);
  std::printf("retained revisions:");
  for (uint64_t v : rep.retained) std::printf(" %lu", v);
  std::printf("\noriginal manifest kept as %s\n", rep.backup.c_str());
  return 0;
}

int CmdMark(const std::string& path, cairn::RecordType type, uint64_t revision) {
  Status s = cairn::MarkRevisionAt(path, type, revision);
  if (!s.ok()) return Fail(s);
  const char* what = type == cairn::RecordType::kDrop ? "dropped" : type == cairn::RecordType::kPin ? "pinned" : "unpinned";
  std::printf("revision %lu %s\n", revision, what);
  return 0;
}

int CmdSpace(const std::string& path, bool json) {
  cairn::SpaceInfo si;
  Status s = cairn::ComputeSpace(path, &si);
  if (!s.ok()) return Fail(s);
  uint64_t logical = 0, disk = 0, hw = 0, ref = 0, recl = 0;
  for (const auto& f : si.files) {
    logical += f.logical_bytes;
    disk += f.disk_bytes;
    hw += f.high_water;
    ref += f.referenced;
    recl += f.reclaimable;
  }
  if (json) {
    std::printf("{\"store\": %s, \"retained_revisions\": %lu, \"pinned_revisions\": %lu, "
                "\"dropped_revisions\": %lu, \"revisions_with_unknown_extents\": %lu, \"manifest_bytes\": %lu,\n"
                " \"data_logical_bytes\": %lu, \"data_disk_bytes\": %lu, \"allocated_bytes\": %lu, "
                "\"referenced_bytes\": %lu, \"reclaimable_bytes\": %lu,\n \"data_files\": [",
                JsonString(path).c_str(), si.retained, si.pinned, si.dropped, si.unknown_extents,
                si.manifest_bytes, logical, disk, hw, ref, recl);
    for (size_t i = 0; i < si.files.size(); i++) {
      const auto& f = si.files[i];
      std::printf("%s\n  {\"id\": %u, \"logical_bytes\": %lu, \"disk_bytes\": %lu, \"allocated_bytes\": %lu, "
                  "\"referenced_bytes\": %lu, \"reclaimable_bytes\": %lu}",
                  i ? "," : "", f.id, f.logical_bytes, f.disk_bytes, f.high_water, f.referenced, f.reclaimable);
    }
    std::printf("\n]}\n");
    return 0;
  }
  std::printf("store        %s\nrevisions    %lu retained (%lu pinned), %lu dropped\nmanifest     %lu bytes\n",
              path.c_str(), si.retained, si.pinned, si.dropped, si.manifest_bytes);
  if (si.unknown_extents)
    std::printf("note         %lu retained revision(s) written by format version 1: their extents are not "
                "recorded, so everything below their high-water mark counts as referenced\n",
                si.unknown_extents);
  std::printf("%-11s %14s %14s %14s %14s %14s\n", "data file", "size", "on disk", "allocated", "referenced",
              "reclaimable");
  for (const auto& f : si.files)
    std::printf("data.%05u  %14lu %14lu %14lu %14lu %14lu\n", f.id, f.logical_bytes, f.disk_bytes, f.high_water,
                f.referenced, f.reclaimable);
  std::printf("%-11s %14lu %14lu %14lu %14lu %14lu\n", "total", logical, disk, hw, ref, recl);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"cairn: list, inspect, verify and extract a cairn checkpoint store"};
  app.set_version_flag("--version", "cairn " CAIRN_VERSION_STRING);
  app.require_subcommand(1);
  std::string path, key;
  uint64_t revision = 0;
  int rank = -1;
  bool json = false;
  // A revision is a number >= 0: "-1" would be read as 2^64 - 1 (and
  // reported as an unknown revision 18446744073709551615).
  const CLI::Validator kRevision(
      [](std::string& v) {
        return !v.empty() && v[0] == '-' ? "a revision is a number >= 0, got " + v : std::string();
      },
      "REV>=0");

  auto* ls = app.add_subcommand("ls", "List the committed revisions");
  ls->add_option("STORE", path, "Store directory")->required();
  ls->add_flag("--json", json, "Machine-readable output");

  auto* info = app.add_subcommand("info", "Show a revision's ranks, data files and per-rank sizes");
  info->add_option("STORE", path, "Store directory")->required();
  info->add_option("--revision,-r", revision, "Revision (default: newest)")->check(kRevision);
  info->add_flag("--json", json, "Machine-readable output");

  auto* keys = app.add_subcommand("keys", "List keys with sizes and tags");
  keys->add_option("STORE", path, "Store directory")->required();
  keys->add_option("--revision,-r", revision, "Revision (default: newest)")->check(kRevision);
  keys->add_option("--rank", rank, "Only this rank's namespace (default: all)")->check(CLI::NonNegativeNumber);
  keys->add_flag("--json", json, "Machine-readable output");
  bool shared = false;
  keys->add_flag("--shared", shared, "Only the shared namespace");

  auto* get = app.add_subcommand("get", "Write an object's value, or a box of a global array, to standard output "
                                        "(or -o FILE)");
  get->add_option("STORE", path, "Store directory")->required();
  get->add_option("KEY", key, "Key of an object; with --array, --select or --npy: name of a global array")
      ->required();
  get->add_option("--revision,-r", revision, "Revision (default: newest)")->check(kRevision);
  get->add_option("--rank", rank,
                  "Rank whose namespace holds the key (needed when several ranks wrote the store)")
      ->check(CLI::NonNegativeNumber);
  get->add_flag("--shared", shared, "The key is in the shared namespace");
  std::string out_file, select;
  bool as_array = false, npy = false;
  get->add_option("-o,--output", out_file, "Write to FILE instead of standard output (a regular FILE is replaced only if the get succeeds)");
  get->add_flag("--array", as_array, "KEY names a global array (`cairn arrays`), not an object");
  auto* select_opt = get->add_option("--select", select,
                                     "Array box, NumPy-style per dimension: a:b, a:, :b, : or an index a "
                                     "(e.g. 0:10,5:20,:); implies --array; default: the whole array");
  get->add_flag("--npy", npy, "Write a NumPy .npy file (version 1.0) instead of raw row-major elements; "
                              "implies --array");

  auto* arrays = app.add_subcommand("arrays", "List a revision's global arrays (dtype, shape, blocks, tags)");
  arrays->add_option("STORE", path, "Store directory")->required();
  arrays->add_option("--revision,-r", revision, "Revision (default: newest)")->check(kRevision);
  arrays->add_flag("--json", json, "Machine-readable output");
  bool blocks = false;
  arrays->add_flag("--blocks", blocks, "List every block too (rank, start:end per dimension)");

  auto* verify = app.add_subcommand("verify", "Read everything and check every checksum (exit 0 if intact, 2 if "
                                              "damage is found, 1 on any other error)");
  verify->add_option("STORE", path, "Store directory")->required();
  auto* verify_rev = verify->add_option("--revision,-r", revision, "Revision (default: newest)")->check(kRevision);
  verify->add_flag("--json", json, "Machine-readable output");
  bool all = false;
  verify->add_flag("--all", all, "Verify every retained revision (exit 2 if any fails, naming it)")
      ->excludes(verify_rev);
  auto* repair = app.add_subcommand("repair", "Rewrite a damaged manifest without its damaged records "
                                              "(the original is kept as MANIFEST.damaged-<time>; exit 0 if repaired "
                                              "or intact, 2 if the damage cannot be repaired, 1 on other errors)");
  repair->add_option("STORE", path, "Store directory")->required();

  auto* drop = app.add_subcommand("drop", "Remove a revision for good; its space is reused by later commits");
  drop->add_option("STORE", path, "Store directory")->required();
  drop->add_option("REV", revision, "Revision")->required()->check(kRevision);
  auto* pin = app.add_subcommand("pin", "Protect a revision from keep_revisions and drop");
  pin->add_option("STORE", path, "Store directory")->required();
  pin->add_option("REV", revision, "Revision")->required()->check(kRevision);
  auto* unpin = app.add_subcommand("unpin", "Remove a revision's pin");
  unpin->add_option("STORE", path, "Store directory")->required();
  unpin->add_option("REV", revision, "Revision")->required()->check(kRevision);
  auto* space = app.add_subcommand("space", "Show the data files' size, and the bytes retained revisions "
                                             "reference and the bytes reusable");
  space->add_option("STORE", path, "Store directory")->required();
  space->add_flag("--json", json, "Machine-readable output");

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    bool want_json = false;
    for (int i = 1; i < argc; i++) want_json |= std::string_view(argv[i]) == "--json";
    // A usage error is an "other error": exit 1, as the help and README
    // say (CLI11's own codes, 100 and above, are not part of the contract).
    if (e.get_exit_code() == 0) return app.exit(e);
    if (!want_json) return app.exit(e) == 0 ? 0 : 1;
    JsonError("InvalidArgument", e.what());
    return 1;
  }
  g_json = json;
  if (*drop) return CmdMark(path, cairn::RecordType::kDrop, revision);
  if (*pin) return CmdMark(path, cairn::RecordType::kPin, revision);
  if (*unpin) return CmdMark(path, cairn::RecordType::kUnpin, revision);
  if (*space) return CmdSpace(path, json);
  if (*ls) return CmdLs(path, json);
  if (*info) return CmdInfo(path, revision, json);
  if (shared) rank = cairn::ReadOptions::kShared;
  if (*keys) return CmdKeys(path, revision, rank, json);
  if (*arrays) return CmdArrays(path, revision, json, blocks);
  if (*get) {
    // An object key unless --array, --select or --npy says it is an array.
    if (as_array || npy || select_opt->count() > 0) {
      if (rank != -1)
        return Fail(Status::InvalidArgument("--rank and --shared name an object's namespace; array '" + key +
                                            "' is global (drop them, or drop --array/--select/--npy)"));
      return CmdGetArray(path, key, revision, select, npy, out_file);
    }
    return CmdGet(path, key, revision, rank, out_file);
  }
  if (*verify) return all ? CmdVerifyAll(path, json) : CmdVerify(path, revision, json);
  if (*repair) return CmdRepair(path);
  return 1;
}
