// Stream throughput: one process writes `--bytes` as a stream of `--piece`
// byte writes, makes it durable, drops it from the page cache, and reads it
// back in the same piece size. Systems:
//   posix     write(2) to a file, fsync; read(2)
//   cairn     StreamWriter::Write, Close, Store::Commit; StreamReader::Read
//   ofstream  std::ofstream::write, close, fsync; std::ifstream::read
//   ostream   cairn::ostream::write, close, Commit; cairn::istream::read
// Prints one JSON object: {"system", "piece", "bytes", "write_s", "read_s"}.
// Usage: stream_bench --dir DIR --system S --piece P [--bytes N]
//        [--write-buffer B]   (cairn's Options::write_buffer_size)
#include <fcntl.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>

#include "cairn/iostream.h"
#include "cairn/store.h"
#include "cairn/stream.h"

namespace {

double Now() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

[[noreturn]] void Die(const std::string& m) {
  std::fprintf(stderr, "stream_bench: %s\n", m.c_str());
  std::exit(1);
}
void Check(const cairn::Status& s, const char* what) {
  if (!s.ok()) Die(std::string(what) + ": " + s.ToString());
}

// Syncs and drops every file under `dir` from the page cache.
void DropCache(const std::string& dir) {
  for (auto& e : std::filesystem::recursive_directory_iterator(dir)) {
    if (!e.is_regular_file()) continue;
    int fd = ::open(e.path().c_str(), O_RDONLY);
    if (fd < 0) continue;
    ::fdatasync(fd);
    ::posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
    ::close(fd);
  }
}

void FsyncPath(const std::string& p) {
  int fd = ::open(p.c_str(), O_RDONLY);
  if (fd < 0 || ::fsync(fd) != 0) Die("fsync " + p);
  ::close(fd);
}

}  // namespace

int main(int argc, char** argv) {
  std::string dir, system;
  uint64_t bytes = 256ull << 20, piece = 0, write_buffer = 0;
  for (int i = 1; i + 1 < argc; i += 2) {
    std::string a = argv[i], v = argv[i + 1];
    if (a == "--dir") dir = v;
    else if (a == "--system") system = v;
    else if (a == "--piece") piece = std::strtoull(v.c_str(), nullptr, 10);
    else if (a == "--bytes") bytes = std::strtoull(v.c_str(), nullptr, 10);
    else if (a == "--write-buffer") write_buffer = std::strtoull(v.c_str(), nullptr, 10);
    else Die("unknown option " + a);
  }
  if (dir.empty() || system.empty() || piece == 0) Die("usage: --dir DIR --system S --piece P [--bytes N]");
  bytes = bytes / piece * piece;
  std::string data(bytes, '\0');
  std::mt19937_64 g(42);
  for (uint64_t i = 0; i + 8 <= bytes; i += 8) {
    uint64_t v = g();
    std::memcpy(&data[i], &v, 8);
  }
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  std::string file = dir + "/stream.bin", store_path = dir + "/store";
  std::string back(bytes, '\0');
  double w0 = 0, w1 = 0, r0 = 0, r1 = 0;

  if (system == "posix") {
    w0 = Now();
    int fd = ::open(file.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd < 0) Die("open");
    for (uint64_t off = 0; off < bytes; off += piece)
      if (::write(fd, data.data() + off, piece) != ssize_t(piece)) Die("write");
    if (::fsync(fd) != 0) Die("fsync");
    ::close(fd);
    w1 = Now();
    DropCache(dir);
    r0 = Now();
    fd = ::open(file.c_str(), O_RDONLY);
    for (uint64_t off = 0; off < bytes; off += piece)
      if (::read(fd, back.data() + off, piece) != ssize_t(piece)) Die("read");
    ::close(fd);
    r1 = Now();
  } else if (system == "ofstream") {
    w0 = Now();
    {
      std::ofstream out(file, std::ios::binary);
      for (uint64_t off = 0; off < bytes; off += piece) out.write(data.data() + off, std::streamsize(piece));
      if (!out) Die("ofstream write");
    }
    FsyncPath(file);
    w1 = Now();
    DropCache(dir);
    r0 = Now();
    std::ifstream in(file, std::ios::binary);
    for (uint64_t off = 0; off < bytes; off += piece) in.read(back.data() + off, std::streamsize(piece));
    if (!in) Die("ifstream read");
    r1 = Now();
  } else if (system == "cairn" || system == "ostream") {
    cairn::Options o;
    if (write_buffer) o.write_buffer_size = write_buffer;
    std::unique_ptr<cairn::Store> s;
    w0 = Now();
    Check(cairn::Store::Open(o, store_path, &s), "open");
    if (system == "cairn") {
      std::unique_ptr<cairn::StreamWriter> w;
      Check(s->OpenWriteStream("stream.bin", {}, &w), "open stream");
      for (uint64_t off = 0; off < bytes; off += piece) Check(w->Write(data.data() + off, piece), "write");
      Check(w->Close(), "close stream");
    } else {
      cairn::ostream out(*s, "stream.bin");
      for (uint64_t off = 0; off < bytes; off += piece) out.write(data.data() + off, std::streamsize(piece));
      Check(out.close(), "ostream");
    }
    Check(s->Commit(), "commit");
    Check(s->Close(), "close");
    w1 = Now();
    s.reset();
    DropCache(dir);
    r0 = Now();
    o.read_only = true;
    Check(cairn::Store::Open(o, store_path, &s), "reopen");
    if (system == "cairn") {
      std::unique_ptr<cairn::StreamReader> r;
      Check(s->OpenReadStream("stream.bin", &r), "open read stream");
      size_t got;
      for (uint64_t off = 0; off < bytes; off += piece) {
        Check(r->Read(back.data() + off, piece, &got), "read");
        if (got != piece) Die("short read");
      }
    } else {
      cairn::istream in(*s, "stream.bin");
      for (uint64_t off = 0; off < bytes; off += piece) in.read(back.data() + off, std::streamsize(piece));
      if (!in) Die("istream read: " + in.status().ToString());
    }
    r1 = Now();
  } else {
    Die("unknown system " + system);
  }
  if (back != data) Die("data read back differs from data written");
  std::printf("{\"system\": \"%s\", \"piece\": %llu, \"bytes\": %llu, \"write_s\": %.6f, \"read_s\": %.6f}\n",
              system.c_str(), (unsigned long long)piece, (unsigned long long)bytes, w1 - w0, r1 - r0);
  std::filesystem::remove_all(dir);
  return 0;
}
