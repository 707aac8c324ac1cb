// The data-file layout chosen from the file system's statfs magic number
// (io/fs_layout.h): one file per rank on local file systems, one per node
// on parallel and network ones.
#include <gtest/gtest.h>
#include <stdlib.h>

#include "io/fs_layout.h"
#include "test_util.h"

namespace cairn {
namespace {

struct Case {
  uint64_t magic;
  FsKind kind;
  FileLayout layout;
  const char* name;
};

TEST(FsLayout, EveryKnownMagicNumber) {
  const Case cases[] = {
      {0xEF53, FsKind::kLocal, FileLayout::kPerRank, "ext4"},
      {0x58465342, FsKind::kLocal, FileLayout::kPerRank, "xfs"},
      {0x9123683E, FsKind::kLocal, FileLayout::kPerRank, "btrfs"},
      {0x01021994, FsKind::kLocal, FileLayout::kPerRank, "tmpfs"},
      {0xF2F52010, FsKind::kLocal, FileLayout::kPerRank, "f2fs"},
      {0x2FC12FC1, FsKind::kLocal, FileLayout::kPerRank, "zfs"},
      {0x794C7630, FsKind::kLocal, FileLayout::kPerRank, "overlayfs"},
      {0x0BD00BD0, FsKind::kParallel, FileLayout::kPerNode, "lustre"},
      {0x47504653, FsKind::kParallel, FileLayout::kPerNode, "gpfs"},
      {0x19830326, FsKind::kParallel, FileLayout::kPerNode, "beegfs"},
      {0x00C36400, FsKind::kParallel, FileLayout::kPerNode, "cephfs"},
      {0x6969, FsKind::kNetwork, FileLayout::kPerNode, "nfs"},
      {0xFF534D42, FsKind::kNetwork, FileLayout::kPerNode, "cifs"},
      {0xFE534D42, FsKind::kNetwork, FileLayout::kPerNode, "smb2"},
  };
  for (const Case& c : cases) {
    EXPECT_EQ(ClassifyFsMagic(c.magic), c.kind) << c.name;
    EXPECT_EQ(LayoutFor(ClassifyFsMagic(c.magic)), c.layout) << c.name;
    EXPECT_EQ(FsMagicName(c.magic), c.name);
  }
}

TEST(FsLayout, UnknownMagicIsTreatedAsLocal) {
  EXPECT_EQ(ClassifyFsMagic(0x12345678), FsKind::kUnknown);
  EXPECT_EQ(LayoutFor(FsKind::kUnknown), FileLayout::kPerRank);
  EXPECT_EQ(FsMagicName(0x12345678), "0x12345678");
}

TEST(FsLayout, StatFsOfARealDirectoryAndTheTestHook) {
  IoStats st;
  uint64_t magic = 0;
  ASSERT_TRUE(StatFsMagic("/", &st, &magic));
  EXPECT_NE(magic, 0u);
  EXPECT_EQ(st.stats, 1u);  // counted as a stat
  EXPECT_FALSE(StatFsMagic("/no/such/dir/for/cairn", &st, &magic));
  EXPECT_EQ(DefaultLayout("/no/such/dir/for/cairn", &st), FileLayout::kPerRank);
  ASSERT_EQ(setenv("CAIRN_FS_MAGIC", "0bd00bd0", 1), 0);
  EXPECT_EQ(DefaultLayout("/", &st), FileLayout::kPerNode);
  ASSERT_EQ(setenv("CAIRN_FS_MAGIC", "ef53", 1), 0);
  EXPECT_EQ(DefaultLayout("/", &st), FileLayout::kPerRank);
  unsetenv("CAIRN_FS_MAGIC");
}

}  // namespace
}  // namespace cairn
