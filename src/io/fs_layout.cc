#include "io/fs_layout.h"

#include <sys/vfs.h>

#include <cstdio>
#include <cstdlib>

#include "io/file.h"

namespace cairn {

namespace {

struct Known {
  uint64_t magic;
  FsKind kind;
  const char* name;
};

// f_type values from linux/magic.h and the file systems' own headers.
constexpr Known kKnown[] = {
    {0xEF53, FsKind::kLocal, "ext4"},  // ext2, ext3 and ext4 share it
    {0x58465342, FsKind::kLocal, "xfs"},
    {0x9123683E, FsKind::kLocal, "btrfs"},
    {0x01021994, FsKind::kLocal, "tmpfs"},
    {0xF2F52010, FsKind::kLocal, "f2fs"},
    {0x2FC12FC1, FsKind::kLocal, "zfs"},
    {0x794C7630, FsKind::kLocal, "overlayfs"},
    {0x0BD00BD0, FsKind::kParallel, "lustre"},
    {0x47504653, FsKind::kParallel, "gpfs"},
    {0x19830326, FsKind::kParallel, "beegfs"},
    {0x00C36400, FsKind::kParallel, "cephfs"},
    {0x6969, FsKind::kNetwork, "nfs"},
    {0xFF534D42, FsKind::kNetwork, "cifs"},
    {0xFE534D42, FsKind::kNetwork, "smb2"},
};

}  // namespace

FsKind ClassifyFsMagic(uint64_t magic) {
  for (const Known& k : kKnown)
    if (k.magic == magic) return k.kind;
  return FsKind::kUnknown;
}

FileLayout LayoutFor(FsKind kind) {
  switch (kind) {
    case FsKind::kParallel:
    case FsKind::kNetwork:
      return FileLayout::kPerNode;
    case FsKind::kLocal:
    case FsKind::kUnknown:
      break;
  }
  return FileLayout::kPerRank;
}

std::string FsMagicName(uint64_t magic) {
  for (const Known& k : kKnown)
    if (k.magic == magic) return k.name;
  char buf[32];
  std::snprintf(buf, sizeof buf, "0x%llx", static_cast<unsigned long long>(magic));
  return buf;
}

bool StatFsMagic(const std::string& path, IoStats* stats, uint64_t* magic) {
  if (const char* e = std::getenv("CAIRN_FS_MAGIC"); e && *e) {
    *magic = std::strtoull(e, nullptr, 16);
    return true;
  }
  CountIo(stats->stats);
  struct statfs st;
  if (::statfs(path.c_str(), &st) != 0) return false;
  // f_type is a signed word; the magic numbers are 32-bit patterns.
  *magic = static_cast<uint64_t>(static_cast<uint32_t>(st.f_type));
  return true;
}

FileLayout DefaultLayout(const std::string& path, IoStats* stats) {
  uint64_t magic = 0;
  if (!StatFsMagic(path, stats, &magic)) return FileLayout::kPerRank;
  return LayoutFor(ClassifyFsMagic(magic));
}

}  // namespace cairn
