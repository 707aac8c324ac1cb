#include "store/store_dir.h"

#include <algorithm>
#include <cctype>
#include <cstring>
#include <memory>
#include <vector>

#include "format/manifest_format.h"
#include "format/subfile_header.h"
#include "io/file.h"
#include "store/manifest.h"
#include "store/writer_lock.h"

namespace cairn {

namespace {

bool IsDataName(const std::string& n) {
  if (n.rfind("data.", 0) != 0 || n.size() < 10) return false;
  return std::all_of(n.begin() + 5, n.end(), [](char c) { return std::isdigit(static_cast<unsigned char>(c)); });
}

bool IsCairnName(const std::string& n) { return n == kManifestName || n == kLockName || IsDataName(n); }

// The first bytes of a file (up to `want`), and its size.
Status Head(const std::string& path, uint64_t want, IoStats* stats, std::string* head, uint64_t* size) {
  std::unique_ptr<File> f;
  Status s = File::Open(path, File::kReadOnly, stats, &f);
  if (s.ok()) s = f->Size(size);
  if (!s.ok()) return s;
  head->assign(std::min(want, *size), '\0');
  return f->PRead(0, head->data(), head->size());
}

}  // namespace

bool AllZero(const std::string& b) { return b.find_first_not_of('\0') == std::string::npos; }

bool LooksLikeOurs(const std::string& head, uint64_t size, const char* magic, size_t magic_len,
                   uint64_t max_zero_size) {
  size_t n = std::min<size_t>(head.size(), magic_len);
  if (std::memcmp(head.data(), magic, n) == 0) return true;
  return size <= max_zero_size && head.size() == size && AllZero(head);
}

Status CheckLeftovers(const std::string& dir, IoStats* stats) {
  std::vector<std::string> names;
  Status s = ListDir(dir, stats, &names);
  if (!s.ok()) return s;
  std::string head;
  uint64_t size = 0;
  for (const std::string& n : names) {
    if (n != kLockName && !IsDataName(n)) continue;
    s = Head(dir + "/" + n, 64 << 10, stats, &head, &size);
    if (!s.ok()) return s.WithContext("checking directory " + dir);
    if (n == kLockName) {
      static const char kLockText[] = "cairn-lock";
      if (!LooksLikeOurs(head, size, kLockText, sizeof kLockText - 1, 64 << 10))
        return Status::InvalidArgument("directory " + dir + " is not a cairn store: its file 'LOCK' is not "
                                       "cairn's; refusing to write a store into it");
      continue;
    }
    if (!LooksLikeOurs(head, size, kSubfileMagic, sizeof kSubfileMagic, 64 << 10))
      return Status::InvalidArgument("directory " + dir + " is not a cairn store: its file '" + n +
                                     "' is not a cairn data file; refusing to write a store into it");
    // A data file is made only after the manifest's header is durable
    // (Manifest::Open syncs it when it creates the store): one that holds
    // data beside a missing or incomplete MANIFEST means the manifest was
    // lost or damaged, and a new store would overwrite the old one's data.
    if (size > kSubfileHeaderReserve)
      return Status::Corruption(
          "store " + dir + ": MANIFEST is missing or incomplete but " + n + " holds " + std::to_string(size) +
          " bytes of a cairn data file: the manifest was lost or damaged. Refusing to create a new store over "
          "the old one's data; restore MANIFEST (the copy MANIFEST.damaged-* that `cairn repair` leaves, or a "
          "backup), or remove the data files if they hold nothing you need");
  }
  return Status::OK();
}

Status CheckStoreDirectory(const std::string& dir, IoStats* stats) {
  std::vector<std::string> names;
  Status s = ListDir(dir, stats, &names);
  if (!s.ok()) return s;
  std::vector<std::string> foreign;
  bool has_manifest = false;
  for (const std::string& n : names) {
    if (n == kManifestName) has_manifest = true;
    if (!IsCairnName(n)) foreign.push_back(n);
  }
  if (foreign.empty()) {
    // Only cairn's names. With a MANIFEST, Manifest::Open reads it anyway
    // and checks what it holds (its magic, or the leftovers of a creation
    // cut short); without one, the other files must be cairn's.
    return has_manifest ? Status::OK() : CheckLeftovers(dir, stats);
  }
  std::string why = "no MANIFEST";
  if (has_manifest) {
    std::string head;
    uint64_t size = 0;
    s = Head(dir + "/" + kManifestName, sizeof kManifestMagic, stats, &head, &size);
    if (s.ok() && head.size() == sizeof kManifestMagic && std::memcmp(head.data(), kManifestMagic, sizeof kManifestMagic) == 0)
      return Status::OK();
    why = "a MANIFEST that is not a cairn manifest";
  }
  std::sort(foreign.begin(), foreign.end());
  std::string list;
  for (size_t i = 0; i < foreign.size() && i < 3; i++) list += (i ? ", '" : "'") + foreign[i] + "'";
  if (foreign.size() > 3) list += " and " + std::to_string(foreign.size() - 3) + " more";
  return Status::InvalidArgument("directory " + dir + " is not a cairn store: it holds " + list + " and " + why +
                                 "; refusing to write a store into it (give an empty or new directory, or "
                                 "an existing store)");
}

}  // namespace cairn
