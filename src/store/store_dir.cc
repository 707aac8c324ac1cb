#include "store/store_dir.h"

#include <algorithm>
#include <cctype>
#include <cstring>
#include <memory>
#include <vector>

#include "format/manifest_format.h"
#include "io/file.h"
#include "store/manifest.h"
#include "store/writer_lock.h"

namespace cairn {

namespace {

bool IsCairnName(const std::string& n) {
  if (n == kManifestName || n == kLockName) return true;
  if (n.rfind("data.", 0) != 0 || n.size() < 10) return false;
  return std::all_of(n.begin() + 5, n.end(), [](char c) { return std::isdigit(static_cast<unsigned char>(c)); });
}

}  // namespace

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
  if (foreign.empty()) return Status::OK();
  std::string why = "no MANIFEST";
  if (has_manifest) {
    std::unique_ptr<File> f;
    char magic[sizeof kManifestMagic];
    uint64_t size = 0;
    s = File::Open(dir + "/" + kManifestName, File::kReadOnly, stats, &f);
    if (s.ok()) s = f->Size(&size);
    if (s.ok() && size >= sizeof magic) s = f->PRead(0, magic, sizeof magic);
    if (s.ok() && size >= sizeof magic && std::memcmp(magic, kManifestMagic, sizeof magic) == 0)
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
