// Torn and partial writes: the manifest and the data file (header, index
// tables, values) cut at random lengths, in process. Reopening must show the
// last revision whose record is whole, or fail with a clear Corruption or
// NotFound error; reads never return wrong data, and verification reports
// every revision whose bytes were cut. 1,000 trials; CAIRN_LONG_TESTS=1: 20,000.
#include <gtest/gtest.h>

#include <unistd.h>

#include <cstdio>

#include "damage_check.h"

namespace cairn {
namespace {

using namespace cairn::test;

TEST(Truncation, CutFilesGiveTheLastIntactRevisionOrAClearError) {
  TempDir dir;
  std::string ref = dir.sub("ref"), work = dir.sub("work");
  std::vector<RevisionModel> revs = BuildReferenceStore(ref);
  std::vector<std::vector<Range>> kinds = ClassifyStore(ref);
  uint64_t man_size = FileSize(ref + "/MANIFEST"), data_size = FileSize(ref + "/data.00000");
  // Ends of the manifest records, and the end of the last byte any revision uses.
  std::vector<uint64_t> record_ends;
  for (int k : {kManifestRecord, kManifestLastRecord})
    for (const Range& r : kinds[k]) record_ends.push_back(r.end);
  std::sort(record_ends.begin(), record_ends.end());
  uint64_t used_end = 0;
  for (int k : {kDataHeader, kIndexTable, kValueChunk})
    for (const Range& r : kinds[k]) used_end = std::max(used_end, r.end);

  const int trials = LongTests() ? 20000 : 1000;
  uint64_t seed = std::random_device()();
  if (const char* e = std::getenv("CAIRN_SEED")) seed = std::strtoull(e, nullptr, 10);
  std::printf("seed %lu (set CAIRN_SEED to repeat)\n", seed);
  std::mt19937_64 g(seed);
  int failures = 0, errors = 0, older = 0, whole = 0;
  for (int t = 0; t < trials; t++) {
    bool manifest = t % 2 == 0;
    std::string file = manifest ? "MANIFEST" : "data.00000";
    uint64_t size = manifest ? man_size : data_size;
    // Half the cuts fall inside a structure (a record, header, table or
    // value), half anywhere in the file.
    uint64_t len;
    if (t % 4 < 2) {
      len = std::uniform_int_distribution<uint64_t>(0, size)(g);
    } else {
      std::vector<Range> in;
      if (manifest) {
        in = kinds[kManifestHeader];
        for (int k : {kManifestRecord, kManifestLastRecord}) in.insert(in.end(), kinds[k].begin(), kinds[k].end());
      } else {
        for (int k : {kDataHeader, kIndexTable, kValueChunk}) in.insert(in.end(), kinds[k].begin(), kinds[k].end());
      }
      len = PickByte(in, g).second;
    }
    CopyStore(ref, work);
    if (::truncate((work + "/" + file).c_str(), off_t(len)) != 0) std::abort();
    Outcome o;
    // A manifest cut inside its header is a store never completely created:
    // a writer starts it anew, so only readers are asked.
    CheckStore(work, revs, !(manifest && len < kManifestHeaderSize), &o);
    std::vector<std::string> bad = o.wrong;
    if (manifest) {
      // Data intact: the newest whole record's revision reads back entirely.
      uint64_t want = std::upper_bound(record_ends.begin(), record_ends.end(), len) - record_ends.begin();
      if (len < kManifestHeaderSize) {
        if (!o.newest_reported) bad.push_back("a manifest without its header opened");
      } else if (o.newest_seen != want || o.newest_reported) {
        bad.push_back("newest revision " + std::to_string(o.newest_seen) + ", want " + std::to_string(want) +
                      " (" + o.first_report + ")");
      } else if (o.missing.size() != revs.size() - 1 - want) {
        bad.push_back(std::to_string(o.missing.size()) + " revisions missing, want " +
                      std::to_string(revs.size() - 1 - want));
      } else if (o.verify_reported) {
        bad.push_back("verify reported a problem in an intact older revision: " + o.first_report);
      }
    } else if (len < used_end) {
      if (!o.verify_reported) bad.push_back("bytes in use were cut and verify found nothing");
    } else if (o.reads_reported || o.verify_reported) {
      bad.push_back("only unused bytes were cut, yet: " + o.first_report);
    }
    if (o.newest_reported) errors++;
    else if (o.newest_seen < revs.size() - 1) older++;
    else whole++;
    if (!bad.empty()) {
      failures++;
      ADD_FAILURE() << "trial " << t << " (" << file << " cut to " << len << " of " << size << "): " << bad[0];
      if (failures > 20) break;
    }
  }
  std::printf("truncation trials: %d; newest open failed clearly: %d, showed an older revision: %d, "
              "showed the newest: %d; failures: %d\n", trials, errors, older, whole, failures);
}

}  // namespace
}  // namespace cairn
