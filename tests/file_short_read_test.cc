// A read past the end of a data file names where the file really ends.
// Found by an outside test pass: with a data file cut to its 48-byte
// header (a writer's open had made it again after it was deleted), a read
// at offset 2490368 said "file ends at 2490368", the offset asked for.
#include <gtest/gtest.h>

#include <fstream>
#include <memory>
#include <string>

#include "io/file.h"
#include "test_util.h"

namespace cairn {
namespace {

std::unique_ptr<File> FileOf48Bytes(const test::TempDir& dir, IoStats* stats) {
  const std::string path = dir.sub("f");
  std::ofstream(path, std::ios::binary) << std::string(48, 'h');
  std::unique_ptr<File> f;
  EXPECT_TRUE(File::Open(path, File::kReadOnly, stats, &f).ok());
  return f;
}

TEST(FileShortRead, ReadWhollyPastTheEndDoesNotClaimTheFileEndsThere) {
  test::TempDir dir;
  IoStats stats;
  std::unique_ptr<File> f = FileOf48Bytes(dir, &stats);
  char buf[16];
  for (Status s : {f->PRead(2490368, buf, sizeof buf), f->PReadOnce(2490368, buf, sizeof buf)}) {
    EXPECT_TRUE(s.IsCorruption()) << s.ToString();
    EXPECT_EQ(s.ToString().find("file ends at 2490368"), std::string::npos) << s.ToString();
    EXPECT_NE(s.ToString().find("file ends at 48"), std::string::npos) << s.ToString();
  }
}

TEST(FileShortRead, ReadAcrossTheEndSaysWhereItEnds) {
  test::TempDir dir;
  IoStats stats;
  std::unique_ptr<File> f = FileOf48Bytes(dir, &stats);
  char buf[16];
  Status s = f->PRead(40, buf, sizeof buf);
  EXPECT_TRUE(s.IsCorruption()) << s.ToString();
  EXPECT_NE(s.ToString().find("wanted 16 bytes at offset 40, file ends at 48"), std::string::npos) << s.ToString();
}

}  // namespace
}  // namespace cairn
