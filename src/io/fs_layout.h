// Which data-file layout suits the file system a store lives on, decided
// from statfs's f_type (the file system's magic number). Used when
// Options::subfiles is 0 (the default); an explicit subfiles is kept.
// Measurements behind each choice: doc/design.md, "The write path".
#pragma once

#include <cstdint>
#include <string>

#include "cairn/store.h"

namespace cairn {

// The file systems the layout decision tells apart.
enum class FsKind {
  kLocal,     // a disk of this node, or memory: ext2/3/4, XFS, btrfs, tmpfs, F2FS, ZFS, overlay
  kParallel,  // a parallel file system of many clients: Lustre, GPFS, BeeGFS, CephFS
  kNetwork,   // a file server: NFS, SMB
  kUnknown,   // a magic number not in the table
};

// One data file per rank, or one per node (ranks sharing memory share it).
enum class FileLayout { kPerRank, kPerNode };

// The kind of file system whose statfs f_type is `magic`.
FsKind ClassifyFsMagic(uint64_t magic);

// The layout for a store on a file system of `kind`. Local: one file per
// rank (ext4 and XFS serialise buffered writers of one inode, so ranks of a
// node sharing a file copy into the page cache one at a time; a file per
// rank is created once per store, never per checkpoint). Parallel and
// network: one file per node (a commit fsyncs one file per node, and on
// Lustre and GPFS every fsync also reaches the metadata server). Unknown:
// per rank, as for a local disk (what POSIX file-per-process would do).
FileLayout LayoutFor(FsKind kind);

// A short name for messages and benchmarks ("ext4", "lustre", ...), or the
// magic in hex.
std::string FsMagicName(uint64_t magic);

// statfs of `path` (counted in stats->stats): its f_type in *magic.
// Returns false if statfs failed. Test hook: CAIRN_FS_MAGIC=<hex> in the
// environment is returned instead (tests of the Lustre/GPFS layout on a
// local disk).
bool StatFsMagic(const std::string& path, IoStats* stats, uint64_t* magic);

// The layout of a store at `path` whose Options::subfiles is 0: from
// StatFsMagic, per rank if statfs fails.
FileLayout DefaultLayout(const std::string& path, IoStats* stats);

}  // namespace cairn
